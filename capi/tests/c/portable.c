/* The C API from C: serialize a program of the upstream compatibility suite, read the artifact
 * back, compare with the suite's own artifact, and check the error paths. Built by .ci/run with
 * `cc` against include/vhlo.h and libvhlo.a, and run under valgrind.
 *
 *   portable SUITE_DIR      (e.g. ../shared/compat-suite); exit 0 when every check passes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vhlo.h"

typedef struct {
  char *data;
  size_t length;
  int calls;
} Buffer;

/* The callback: copies the bytes, which are valid only during the call. */
static void collect(struct VhloStringRef s, void *user_data) {
  Buffer *b = (Buffer *)user_data;
  free(b->data);
  b->data = (char *)malloc(s.length + 1);
  if (!b->data) abort();
  if (s.length) memcpy(b->data, s.data, s.length);
  b->data[s.length] = 0;
  b->length = s.length;
  b->calls++;
}

static void reset(Buffer *b) {
  free(b->data);
  b->data = NULL;
  b->length = 0;
  b->calls = 0;
}

static struct VhloStringRef ref(const char *data, size_t length) {
  struct VhloStringRef r;
  r.data = data;
  r.length = length;
  return r;
}

static struct VhloStringRef cstr(const char *s) { return ref(s, strlen(s)); }

static int failures = 0;
#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                       \
      fprintf(stderr, "\n");                              \
      failures++;                                         \
    }                                                     \
  } while (0)

static Buffer read_file(const char *path) {
  Buffer b = {NULL, 0, 0};
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  b.data = (char *)malloc((size_t)n + 1);
  if (!b.data || fread(b.data, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(2);
  }
  b.data[n] = 0;
  b.length = (size_t)n;
  fclose(f);
  return b;
}

static void print_error(const char *what) {
  Buffer msg = {NULL, 0, 0};
  vhloGetErrorMessage(collect, &msg);
  fprintf(stderr, "%s: error kind %d: %s\n", what, vhloGetErrorKind(), msg.data ? msg.data : "(none)");
  reset(&msg);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s SUITE_DIR\n", argv[0]);
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/stablehlo_legalize_to_vhlo.1_4_0.mlir", argv[1]);
  Buffer source = read_file(path);
  snprintf(path, sizeof path, "%s/stablehlo_legalize_to_vhlo.1_4_0.mlir.bc", argv[1]);
  Buffer upstream = read_file(path);
  Buffer out = {NULL, 0, 0}, text = {NULL, 0, 0}, expected = {NULL, 0, 0};

  /* Versions. */
  CHECK(vhloGetApiVersion() >= 1, "api version");
  vhloGetCurrentVersion(collect, &out);
  CHECK(out.calls == 1 && out.length >= 5, "current version");
  printf("current version %s\n", out.data);
  vhloGetMinimumVersion(collect, &out);
  CHECK(out.calls == 2 && strcmp(out.data, "0.9.0") == 0, "minimum version: %s", out.data);
  CHECK(vhloGetSmallerVersion(cstr("1.10.0"), cstr("1.9.3"), collect, &out) && strcmp(out.data, "1.9.3") == 0,
        "smaller version");
  CHECK(!vhloGetSmallerVersion(cstr("1.10"), cstr("1.9.3"), collect, &out) && vhloGetErrorKind() == VHLO_ERROR_VERSION,
        "a malformed version is refused");
  /* WEEK_4 and WEEK_12 on 2026-05-01 (00:00 UTC), the day jaxlib 0.10.2's anchors were cut. */
  CHECK(vhloVersionFromCompatibilityRequirementAsOf(VHLO_COMPATIBILITY_WEEK_4, 1777593600, collect, &out) &&
            strcmp(out.data, "1.15.0") == 0,
        "WEEK_4 as of 2026-05-01: %s", out.data);
  CHECK(vhloVersionFromCompatibilityRequirementAsOf(VHLO_COMPATIBILITY_WEEK_12, 1777593600, collect, &out) &&
            strcmp(out.data, "1.13.7") == 0,
        "WEEK_12 as of 2026-05-01: %s", out.data);
  CHECK(vhloVersionFromCompatibilityRequirement(VHLO_COMPATIBILITY_MAX, collect, &out) && strcmp(out.data, "0.9.0") == 0,
        "MAX");
  CHECK(!vhloVersionFromCompatibilityRequirement(7, collect, &out) && vhloGetErrorKind() == VHLO_ERROR_ARGUMENT,
        "requirement 7 is refused");
  reset(&out);

  /* Serialize the suite's 1.4.0 program for 1.4.0 and read it back: the same program as the
   * suite's own artifact. */
  if (!vhloSerializePortableArtifactFromStringRef(ref(source.data, source.length), cstr("1.4.0"), collect, &out)) {
    print_error("serialize");
    failures++;
  } else {
    CHECK(out.length > 8 && memcmp(out.data, "ML\xef" "R", 4) == 0, "artifact magic");
    CHECK(memmem(out.data, out.length, "StableHLO_v1.4.0", 16) != NULL, "producer StableHLO_v1.4.0");
    CHECK(vhloDeserializePortableArtifactToText(ref(out.data, out.length), true, false, collect, &text), "read ours");
    CHECK(vhloDeserializePortableArtifactToText(ref(upstream.data, upstream.length), true, false, collect, &expected),
          "read the suite's");
    CHECK(text.length > 1000 && text.length == expected.length && memcmp(text.data, expected.data, text.length) == 0,
          "our artifact reads back as the suite's artifact does (%zu vs %zu bytes of text)", text.length,
          expected.length);
    CHECK(strstr(text.data, "\"stablehlo.tan\"") != NULL, "the program has its tan op");
    printf("serialized %zu bytes of text into a %zu-byte artifact; read back %zu bytes of text\n", source.length,
           out.length, text.length);
    Buffer plain = {NULL, 0, 0};
    CHECK(vhloDeserializePortableArtifact(ref(out.data, out.length), collect, &plain) && plain.length > 8 &&
              memcmp(plain.data, "ML\xef" "R", 4) == 0,
          "deserialize to plain bytecode");
    /* Retarget the artifact to the current version and back to 1.4.0. */
    CHECK(vhloRetargetPortableArtifact(ref(out.data, out.length), cstr("current"), collect, &plain), "retarget");
    CHECK(vhloMinimumVersionOf(ref(source.data, source.length), false, collect, &text) && strcmp(text.data, "1.4.0") == 0,
          "minimum version of the 1.4.0 program: %s", text.data);
    reset(&plain);
  }

  /* Plain MLIR bytecode (upstream's deserialize result) of a small program reads back as it. */
  {
    const char *add =
        "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  %0 = stablehlo.add %x, %x : tensor<2xf32>\n"
        "  return %0 : tensor<2xf32>\n"
        "}\n";
    Buffer art = {NULL, 0, 0}, plain = {NULL, 0, 0}, t1 = {NULL, 0, 0}, t2 = {NULL, 0, 0};
    CHECK(vhloSerializePortableArtifactFromStringRef(cstr(add), cstr("1.0.0"), collect, &art), "serialize add");
    CHECK(vhloDeserializePortableArtifact(ref(art.data, art.length), collect, &plain), "plain bytecode of add");
    CHECK(vhloDeserializePortableArtifactToText(ref(art.data, art.length), false, false, collect, &t1), "text of add");
    CHECK(vhloDeserializePortableArtifactToText(ref(plain.data, plain.length), false, false, collect, &t2) &&
              t1.length == t2.length && memcmp(t1.data, t2.data, t1.length) == 0 && strstr(t1.data, "stablehlo.add"),
          "the plain bytecode reads back as the program");
    reset(&art);
    reset(&plain);
    reset(&t1);
    reset(&t2);
  }

  /* Error path: 1.0.0 is too old for tan (1.4.0); the blockers are listed with their op,
   * location and the version they need. */
  reset(&out);
  CHECK(!vhloSerializePortableArtifactFromStringRef(ref(source.data, source.length), cstr("1.0.0"), collect, &out),
        "1.0.0 is refused");
  CHECK(out.calls == 0, "no callback on failure");
  CHECK(vhloHasError() && vhloGetErrorKind() == VHLO_ERROR_CONVERT, "convert error (kind %d)", vhloGetErrorKind());
  size_t n = vhloGetErrorDiagnosticCount();
  CHECK(n >= 1, "diagnostics listed");
  int found_tan = 0;
  for (size_t i = 0; i < n; i++) {
    Buffer op = {NULL, 0, 0}, needs = {NULL, 0, 0}, loc = {NULL, 0, 0};
    CHECK(vhloGetErrorDiagnostic(i, VHLO_DIAGNOSTIC_OP, collect, &op), "op field");
    CHECK(vhloGetErrorDiagnostic(i, VHLO_DIAGNOSTIC_NEEDS, collect, &needs), "needs field");
    CHECK(vhloGetErrorDiagnostic(i, VHLO_DIAGNOSTIC_LOCATION, collect, &loc), "location field");
    if (op.data && strstr(op.data, "tan") && needs.data && strcmp(needs.data, "1.4.0") == 0 && loc.length > 0)
      found_tan = 1;
    reset(&op);
    reset(&needs);
    reset(&loc);
  }
  CHECK(found_tan, "a diagnostic names tan, its location and 1.4.0");
  CHECK(!vhloGetErrorDiagnostic(n, VHLO_DIAGNOSTIC_OP, collect, &out), "no diagnostic past the end");
  CHECK(!vhloGetErrorDiagnostic(0, 99, collect, &out), "no field 99");
  vhloGetErrorDiagnosticsJson(collect, &text);
  CHECK(text.length > 2 && text.data[0] == '[' && strstr(text.data, "\"needs\":\"1.4.0\"") != NULL, "JSON diagnostics");
  vhloGetErrorMessage(collect, &text);
  CHECK(strstr(text.data, "1.0.0") != NULL, "message names the target");

  /* A truncated artifact, bytes that are not UTF-8, an empty artifact, NULL arguments. */
  CHECK(!vhloDeserializePortableArtifact(ref(upstream.data, upstream.length / 2), collect, &out) &&
            vhloGetErrorKind() == VHLO_ERROR_BYTECODE,
        "truncated artifact (kind %d)", vhloGetErrorKind());
  CHECK(!vhloSerializePortableArtifactFromStringRef(ref("\xff\xfe module", 9), cstr("1.0.0"), collect, &out) &&
            vhloGetErrorKind() == VHLO_ERROR_PARSE,
        "bad UTF-8 (kind %d)", vhloGetErrorKind());
  CHECK(!vhloDeserializePortableArtifact(ref(NULL, 0), collect, &out), "empty artifact");
  CHECK(!vhloDeserializePortableArtifact(ref(NULL, 5), collect, &out) && vhloGetErrorKind() == VHLO_ERROR_ARGUMENT,
        "NULL with a length");
  CHECK(!vhloDeserializePortableArtifact(ref(upstream.data, upstream.length), NULL, NULL) &&
            vhloGetErrorKind() == VHLO_ERROR_ARGUMENT,
        "NULL callback");
  CHECK(!vhloSerializePortableArtifactFromStringRef(ref(source.data, source.length), cstr("9.0.0"), collect, &out) &&
            vhloGetErrorKind() == VHLO_ERROR_VERSION,
        "a target past the current version");
  /* A success clears the error. */
  CHECK(vhloGetSmallerVersion(cstr("1.0.0"), cstr("1.0.1"), collect, &out) && !vhloHasError() &&
            vhloGetErrorKind() == VHLO_ERROR_NONE,
        "success clears the error");
  vhloClearError();

  reset(&out);
  reset(&text);
  reset(&expected);
  reset(&source);
  reset(&upstream);
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("C API: all checks passed\n");
  return 0;
}
