#!/usr/bin/env bash
# Builds the fuzz targets on the stable toolchain and runs one of them with a fresh or existing
# corpus, seeded from the compatibility suite and (if present) the JAX fixtures of the oracle branch.
#   fuzz/run.sh TARGET [SECONDS] [extra libFuzzer flags...]
# One process, one core (what -jobs=1 amounts to). Needs `cargo install cargo-fuzz`. Seeds are linked, never committed (corpus/ is ignored).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="${1:?target name, e.g. bytecode_read}"
seconds="${2:-600}"
shift $(( $# >= 2 ? 2 : 1 ))
suite="${VHLO_COMPAT_SUITE:-$here/../../shared/compat-suite}"
jax="${VHLO_JAX_FIXTURES:-$here/../tests/fixtures/jax}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/target}"

# -s none: no sanitizer (ASan needs nightly); -a: debug assertions and overflow checks.
(cd "$here" && cargo fuzz build -s none -O -a "$target")

case "$target" in
  text_*) pattern='*.mlir' kind=text ;;
  bytecode_to_text) pattern='*.mlir.bc' kind=bytecode ;;
  *) pattern='*.mlir.bc' kind=bytecode ;;
esac
seeds="$here/corpus/seeds-$kind"
mkdir -p "$seeds" "$here/corpus/$target" "$here/artifacts/$target" "$here/regressions/$kind"
if [ "$kind" = bytecode ]; then
  for dir in "$suite" "$jax"; do
    [ -d "$dir" ] || continue
    for f in "$dir"/$pattern; do
      [ -e "$f" ] && ln -sf "$f" "$seeds/$(basename "$(dirname "$f")")-$(basename "$f")"
    done
  done
else
  # Text seeds: the suite sources, the StableHLO test files and our fixtures (JAX programs, Shardy
  # syntax), split at `// -----` as `--split-input-file` does, so that each seed is one small program.
  tests="${VHLO_STABLEHLO_TESTS:-$here/../../shared/stablehlo-tests}"
  find "$suite" "$tests" "$here/../tests/fixtures" -name '*.mlir' 2>/dev/null | sort | while read -r f; do
    awk -v out="$seeds/$(basename "$f")" '/^\/\/ -----/ { n++; next } { print > (out "." n+0) }' "$f"
  done
fi
exec "$CARGO_TARGET_DIR/x86_64-unknown-linux-gnu/release/$target" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -artifact_prefix="$here/artifacts/$target/" -print_final_stats=1 "$@" \
  "$here/corpus/$target" "$here/regressions/$kind" "$seeds"
