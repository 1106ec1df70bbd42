#!/usr/bin/env python3
"""libStablehlo (as bundled in jaxlib) as a command-line oracle for vhlo-rs.

Run inside the venv made by scripts/oracle/setup.sh:

    .venv/bin/python scripts/oracle/oracle.py version
    .venv/bin/python scripts/oracle/oracle.py serialize IN.mlir --target 1.0.0 [--strip-debuginfo] -o OUT.bc
    .venv/bin/python scripts/oracle/oracle.py deserialize IN.bc [--generic] [--debug-info] [-o OUT.mlir]
    .venv/bin/python scripts/oracle/oracle.py print-vhlo IN.bc [-o OUT.mlir]
    .venv/bin/python scripts/oracle/oracle.py roundtrip-text IN.mlir [--generic] [--debug-info] [-o OUT.mlir]
    .venv/bin/python scripts/oracle/oracle.py min-target IN.mlir
    .venv/bin/python scripts/oracle/oracle.py targets
    .venv/bin/python scripts/oracle/oracle.py opt IN.mlir --passes 'stablehlo-legalize-to-vhlo' [--generic] ...
    .venv/bin/python scripts/oracle/oracle.py stablehlo-opt ARGS...        (stablehlo-opt's command line)
    .venv/bin/python scripts/oracle/oracle.py stablehlo-translate ARGS...  (stablehlo-translate's)

An input path of "-" reads standard input (source locations then name the buffer "-"); otherwise text is
parsed from the file, so locations carry the path as given, as with stablehlo-translate. Output goes to
standard output unless -o is given. Failures print "oracle: error: ..." with MLIR's diagnostics and exit 1.
"""

import argparse
import io
import mmap
import os
import re
import sys


# Last minor release of each finished major series (the 0.x series ended at 0.20.0, then came 1.0.0).
LAST_MINOR = {0: 20}


class OracleError(Exception):
    """A failure to report to the user, exit status 1; `diagnostics` holds MLIR's, when there were any."""

    def __init__(self, message, diagnostics=()):
        super().__init__(message)
        self.diagnostics = list(diagnostics)


def _load():
    """Imports the MLIR bindings of jaxlib; raises OracleError when the venv is missing them."""
    try:
        from jax._src.interpreters import mlir as jax_mlir
        from jax._src.lib.mlir import ir, passmanager
        from jaxlib.mlir.dialects import stablehlo
        from jaxlib.mlir._mlir_libs import _stablehlo
    except ImportError as error:
        raise OracleError(
            f"cannot import jax/jaxlib MLIR bindings ({error}); run scripts/oracle/setup.sh and use .venv/bin/python"
        ) from error
    # stablehlo-opt's passes (stablehlo-legalize-to-vhlo, vhlo-to-version, ...), for `opt`; registration
    # is process-wide and must precede the context.
    _stablehlo.register_stablehlo_passes()
    return jax_mlir, ir, passmanager, stablehlo


class Oracle:
    """One MLIR context with every dialect a portable artifact can need (StableHLO, CHLO, VHLO, quant)."""

    def __init__(self):
        self.jax_mlir, self.ir, self.passmanager, self.stablehlo = _load()
        self.context = self.jax_mlir.make_ir_context()
        # MLIR would print diagnostics straight to stderr; collect them to put them in our error messages.
        self.diagnostics = []
        self._diagnostic_handler = self.context.attach_diagnostic_handler(self._on_diagnostic)
        # Deserializing once loads the dialects the VHLO -> StableHLO conversion needs (quant among them);
        # without it, text with !quant.uniform types does not parse.
        with self.context:
            empty = self.ir.Module.parse("module {}")
            artifact = self.stablehlo.serialize_portable_artifact(empty, self.current_version())
        self.stablehlo.deserialize_portable_artifact(self.context, artifact)

    def _on_diagnostic(self, diagnostic):
        self.diagnostics.extend(_diagnostic_records(diagnostic))
        return True

    def take_diagnostics(self, error=None):
        """The diagnostics collected so far, plus those an MLIRError carries; clears the collection."""
        records = self.diagnostics
        self.diagnostics = []
        for diagnostic in getattr(error, "error_diagnostics", None) or []:
            records.extend(_diagnostic_records(diagnostic))
        return records

    def _failure(self, what, error):
        """An OracleError with the diagnostics (or the exception text when there are none)."""
        records = self.take_diagnostics(error)
        details = [d.formatted() for d in records]
        if not details:
            details = [" ".join(str(error).split()) or type(error).__name__]
        return OracleError(what + ":\n  " + "\n  ".join(details), records)

    def current_version(self):
        return str(self.stablehlo.get_current_version())

    def minimum_version(self):
        return str(self.stablehlo.get_minimum_version())

    def all_targets(self):
        """Every X.Y.0 release from the minimum supported version to the current one, in order."""
        low, high = _parse_version(self.minimum_version()), _parse_version(self.current_version())
        targets = []
        for major in range(low[0], high[0] + 1):
            first = low[1] if major == low[0] else 0
            last = high[1] if major == high[0] else LAST_MINOR[major]
            targets.extend(f"{major}.{minor}.0" for minor in range(first, last + 1))
        return targets

    def resolve_target(self, target):
        if target == "current":
            return self.current_version()
        if target == "minimum":
            return self.minimum_version()
        _parse_version(target)
        return target

    def parse_text(self, path):
        with self.context:
            try:
                if path == "-":
                    return self.ir.Module.parse(sys.stdin.read())
                return self.ir.Module.parseFile(path)
            except self.ir.MLIRError as error:
                raise self._failure(f"cannot parse {path}", error) from error
            except (OSError, RuntimeError, ValueError) as error:
                raise self._failure(f"cannot parse {path}", error) from error

    def parse_string(self, text, what="text"):  # noqa: D401
        """Parses text held in memory; locations without an explicit loc() name the buffer "-"."""
        with self.context:
            try:
                return self.ir.Module.parse(text)
            except (self.ir.MLIRError, RuntimeError, ValueError) as error:
                raise self._failure(f"cannot parse {what}", error) from error

    def run_passes(self, module, pipeline, verify_each=True):
        """Runs a textual pass pipeline such as 'builtin.module(stablehlo-legalize-to-vhlo)' on `module`."""
        with self.context:
            try:
                manager = self.passmanager.PassManager.parse(pipeline)
            except (self.ir.MLIRError, ValueError, RuntimeError) as error:
                raise self._failure(f"invalid pass pipeline '{pipeline}'", error) from error
            manager.enable_verifier(verify_each)
            try:
                manager.run(module.operation)
            except (self.ir.MLIRError, ValueError, RuntimeError) as error:
                raise self._failure(f"pass pipeline '{pipeline}' failed", error) from error

    def strip_debuginfo(self, module):
        with self.context:
            try:
                self.passmanager.PassManager.parse("builtin.module(strip-debuginfo)").run(module.operation)
            except self.ir.MLIRError as error:
                raise self._failure("strip-debuginfo failed", error) from error

    def serialize(self, module, target, allow_other_dialects=False):
        """Serializes `module` at `target`. libStablehlo converts the module to VHLO in place while doing so:
        the module is spent afterwards, so parse afresh for another target. With `allow_other_dialects`,
        ops and attributes of other dialects (e.g. sdy) are kept as they are, as jax.export does."""
        with self.context:
            try:
                return bytes(self.stablehlo.serialize_portable_artifact(module, target, allow_other_dialects))
            except (self.ir.MLIRError, RuntimeError, ValueError) as error:
                raise self._failure(f"cannot serialize to target {target}", error) from error

    def deserialize(self, artifact):
        try:
            return self.stablehlo.deserialize_portable_artifact(self.context, _aligned(artifact))
        except (self.ir.MLIRError, RuntimeError, ValueError) as error:
            raise self._failure("cannot deserialize artifact", error) from error

    def parse_bytecode(self, artifact):
        """Parses bytecode as is (VHLO stays VHLO), like `stablehlo-opt --mlir-print-op-generic x.bc`."""
        with self.context:
            try:
                return self.ir.Module.parse(_aligned(artifact))
            except self.ir.MLIRError as error:
                raise self._failure("cannot parse bytecode", error) from error

    @staticmethod
    def print_module(module, generic=False, debug_info=False, local_scope=False):
        """`local_scope` is -mlir-print-local-scope: locations inline instead of #loc aliases."""
        return module.operation.get_asm(
            print_generic_op_form=generic,
            enable_debug_info=debug_info,
            use_local_scope=local_scope,
            assume_verified=False,
        )

    def library_op_names(self, dialects):
        """The op names of `dialects` that the context registers, for dialects that have no
        generated Python op classes to list them from: MLIR keeps each op's full name as a
        string in the library, so every name spelled there (and each of its prefixes, as the
        linker may merge a string into a longer one) is a candidate, kept if registered."""
        import jaxlib

        lib = os.path.join(os.path.dirname(jaxlib.__file__), "libjax_common.so")
        name_bytes = set(b"abcdefghijklmnopqrstuvwxyz0123456789_.")
        candidates = set()
        with open(lib, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            for dialect in dialects:
                prefix = dialect.encode() + b"."
                at = data.find(prefix)
                while at >= 0:
                    end = at + len(prefix)
                    while end < len(data) and data[end] in name_bytes:
                        end += 1
                    if at == 0 or data[at - 1] not in name_bytes:
                        word = data[at:end].decode()
                        candidates.update(word[:i] for i in range(len(prefix) + 1, len(word) + 1))
                    at = data.find(prefix, at + 1)
        return sorted(n for n in candidates if self.context.is_registered_operation(n))

    def min_target(self, path):
        """Smallest X.Y.0 target at which serialization succeeds, with the error at the one before it."""
        last_error = None
        for target in self.all_targets():
            # A failed attempt may leave the module half-converted: parse afresh each time.
            module = self.parse_text(path)
            try:
                self.serialize(module, target)
                return target, last_error
            except OracleError as error:
                last_error = str(error)
        raise OracleError(f"{path} does not serialize at any target up to {self.current_version()}: {last_error}")


class Diagnostic:
    """One MLIR diagnostic: severity (error, warning, note, remark), message, and the location as
    printed plus its file, line and column when it is a file location."""

    LOCATION = re.compile(r'^loc\("((?:[^"\\]|\\.)*)":(\d+):(\d+)')

    def __init__(self, location, severity, message):
        self.location = location
        self.severity = severity
        self.message = message
        match = self.LOCATION.match(location)
        self.file, self.line, self.column = (match.group(1), int(match.group(2)), int(match.group(3))) if match else (None, None, None)

    def formatted(self):
        """As mlir-opt prints it: FILE:LINE:COL: SEVERITY: MESSAGE."""
        if self.file is not None:
            return f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message}"
        if self.location == "loc(unknown)":
            return f"{self.severity}: {self.message}"
        return f"{self.location}: {self.severity}: {self.message}"


def _diagnostic_records(diagnostic):
    severity = str(diagnostic.severity).rsplit(".", 1)[-1].lower()
    records = [Diagnostic(str(diagnostic.location), severity, str(diagnostic.message))]
    for note in diagnostic.notes:
        records.extend(_diagnostic_records(note))
    return records


def _aligned(data):
    """`data` as a bytes object whose buffer starts at a multiple of 64 bytes. MLIR reads a section
    aligned to N only from a buffer aligned to N ("bytecode buffer ... is not aligned"); its tools
    map files page-aligned, while a Python bytes object's buffer is only 16-byte aligned, so the
    same artifact would read or not by where it landed."""
    import ctypes

    if not isinstance(data, (bytes, bytearray)):
        return data
    held = []
    for _ in range(64):
        copy = bytes(bytearray(data))
        if ctypes.cast(ctypes.c_char_p(copy), ctypes.c_void_p).value % 64 == 0:
            return copy
        held.append(copy)  # kept alive so the next copy lands elsewhere
    return bytes(data)


def _parse_version(text):
    parts = text.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise OracleError(f"invalid version '{text}': expected X.Y.Z, 'current' or 'minimum'")
    return tuple(int(p) for p in parts)


def _read_bytes(path):
    try:
        if path == "-":
            return sys.stdin.buffer.read()
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise OracleError(f"cannot read {path}: {error}") from error


def _write(path, data):
    try:
        if path is None or path == "-":
            if isinstance(data, bytes):
                sys.stdout.buffer.write(data)
            else:
                sys.stdout.write(data)
            return
        with open(path, "wb" if isinstance(data, bytes) else "w") as handle:
            handle.write(data)
    except OSError as error:
        raise OracleError(f"cannot write {path}: {error}") from error


def _text_output(text):
    return text if text.endswith("\n") else text + "\n"


SPLIT_MARKER = "// -----"

# expected-error@+1 {{message}}, expected-note@below {{...}}, expected-error-re {{text {{regex}} text}}:
# MLIR's -verify-diagnostics annotations.
EXPECTATION = re.compile(
    r"expected-(error|warning|note|remark)(-re)?\s*(?:@([+-][0-9]+|above|below|unknown))?\s*\{\{(.*)\}\}"
)


def split_input(text):
    """--split-input-file: the chunks between lines starting with "// -----"."""
    chunks, current = [], []
    for line in text.splitlines(keepends=True):
        if line.startswith(SPLIT_MARKER):
            chunks.append("".join(current))
            current = []
        else:
            current.append(line)
    chunks.append("".join(current))
    return chunks


def expectations(chunk):
    """(line or None for @unknown, severity, message, is_regex) for each annotation in a chunk."""
    lines = chunk.splitlines()
    found = []
    for index, line in enumerate(lines):
        for match in EXPECTATION.finditer(line):
            severity, is_regex, where, message = match.groups()
            line_number = index + 1
            if where is None:
                target = line_number
            elif where == "unknown":
                target = None
            elif where == "above" or where == "below":
                step = -1 if where == "above" else 1
                target = line_number + step
                # The closest line that is not itself an annotation.
                while 1 <= target <= len(lines) and EXPECTATION.search(lines[target - 1]):
                    target += step
            else:
                target = line_number + int(where)
            found.append((target, severity, message, bool(is_regex)))
    return found


def _expectation_regex(message):
    """An expected-*-re message: a substring match in which {{...}} blocks are regexes, as in MLIR."""
    parts, rest = [], message
    while "{{" in rest:
        before, _, after = rest.partition("{{")
        regex, closed, rest = after.partition("}}")
        if not closed:
            rest = "{{" + after
            break
        parts.append(re.escape(before) + f"(?:{regex})")
    parts.append(re.escape(rest))
    return "".join(parts)


def verify_diagnostics(chunk, diagnostics):
    """Compares diagnostics with a chunk's annotations like -verify-diagnostics; returns the problems."""
    expected = expectations(chunk)
    matched = [False] * len(expected)
    problems = []
    for diagnostic in diagnostics:
        if diagnostic.severity == "note" and diagnostic.message.startswith("see current operation:"):
            continue  # mlir-opt does not attach these under -verify-diagnostics
        for index, (line, severity, message, is_regex) in enumerate(expected):
            if matched[index] or severity != diagnostic.severity or line != diagnostic.line:
                continue
            if re.search(_expectation_regex(message), diagnostic.message) if is_regex else message in diagnostic.message:
                matched[index] = True
                break
        else:
            problems.append(f"unexpected {diagnostic.formatted()}")
    for (line, severity, message, _), was_matched in zip(expected, matched):
        if not was_matched:
            where = f"line {line}" if line is not None else "an unknown location"
            problems.append(f"expected {severity} at {where} not produced: {message}")
    return problems


BYTECODE_MAGIC = b"ML\xefR"


def run_opt(oracle, args, path):
    """stablehlo-opt: parse (text or bytecode), run the pipeline, print. Returns (output, failures): like
    mlir-opt with --split-input-file, every chunk is processed and the outputs of those that succeed are
    kept. With verify_diagnostics, a chunk fails only when its diagnostics differ from its annotations."""
    data = _read_bytes(path)
    pipeline = args.pass_pipeline
    if args.passes:
        pipeline = f"builtin.module({args.passes})"
    if data.startswith(BYTECODE_MAGIC):
        chunks = [data]
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise OracleError(f"{path} is neither MLIR bytecode nor UTF-8 text: {error}") from error
        chunks = split_input(text) if args.split_input_file else [text]
    outputs, failures = [], []
    for number, chunk in enumerate(chunks, 1):
        where = f"{path} (split {number})" if len(chunks) > 1 else path
        oracle.take_diagnostics()
        try:
            if isinstance(chunk, bytes):
                module = oracle.parse_bytecode(chunk)
            else:
                module = oracle.parse_string(chunk, where)
            if pipeline:
                oracle.run_passes(module, pipeline, verify_each=not args.no_verify_each)
            if getattr(args, "emit_bytecode", False):
                buffer = io.BytesIO()
                module.operation.write_bytecode(buffer)
                outputs.append(buffer.getvalue())
            else:
                outputs.append(
                    _text_output(oracle.print_module(module, args.generic, args.debug_info, args.local_scope))
                )
            diagnostics = oracle.take_diagnostics()
        except OracleError as error:
            if not args.verify_diagnostics:
                failures.append(str(error))
                continue
            diagnostics = error.diagnostics
        if args.verify_diagnostics:
            text_chunk = chunk if isinstance(chunk, str) else ""
            failures.extend(f"{where}: {problem}" for problem in verify_diagnostics(text_chunk, diagnostics))
    if failures and args.verify_diagnostics:
        failures = ["-verify-diagnostics failed:\n  " + "\n  ".join(failures)]
    if any(isinstance(o, bytes) for o in outputs):
        if len(chunks) > 1:
            raise OracleError("-emit-bytecode with --split-input-file is not supported")
        return b"".join(outputs), failures
    return (SPLIT_MARKER + "\n").join(outputs), failures


def _unquote(value):
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"" else value


def stablehlo_opt(oracle, argv):
    """`oracle.py stablehlo-opt ARGS`: the subset of stablehlo-opt's command line that lit tests use, with
    pass flags (--stablehlo-legalize-to-vhlo, --vhlo-to-version=target=X, ...) run in the order given."""
    args = argparse.Namespace(
        pass_pipeline=None, passes=None, generic=False, debug_info=False, local_scope=False,
        split_input_file=False, verify_diagnostics=False, no_verify_each=False, emit_bytecode=False,
    )
    passes, inputs, output = [], [], None
    words = iter(argv)
    for word in words:
        if word == "-" or not word.startswith("-"):
            inputs.append(word)
            continue
        name, has_value, value = word.lstrip("-").partition("=")
        value = _unquote(value)
        if name == "o":
            output = next(words, None)
        elif name == "mlir-print-op-generic":
            args.generic = True
        elif name == "mlir-print-debuginfo":
            args.debug_info = True
        elif name == "mlir-print-local-scope":
            args.local_scope = True
        elif name == "split-input-file":
            args.split_input_file = True
        elif name == "verify-diagnostics":
            args.verify_diagnostics = True
        elif name == "verify-each":
            args.no_verify_each = value.lower() in ("false", "0")
        elif name == "allow-unregistered-dialect":
            oracle.context.allow_unregistered_dialects = True
        elif name == "pass-pipeline":
            args.pass_pipeline = value
        elif name == "emit-bytecode":
            args.emit_bytecode = True
        elif name == "debug-only" or name.startswith("mlir-"):
            raise OracleError(f"stablehlo-opt flag --{name} is not supported by the oracle")
        else:
            # Any other flag is a pass; its value holds the pass options ("target=1.9.0", "allow-other-dialects").
            options = " ".join(o if "=" in o else f"{o}=true" for o in value.split()) if has_value else ""
            passes.append(f"{name}{{{options}}}" if options else name)
    if passes and args.pass_pipeline:
        raise OracleError("give either pass flags or --pass-pipeline")
    args.passes = ",".join(passes) or None
    if len(inputs) > 1:
        raise OracleError(f"stablehlo-opt takes one input, got {inputs}")
    text, failures = run_opt(oracle, args, inputs[0] if inputs else "-")
    _write(output, text)
    for failure in failures:
        sys.stderr.write(f"oracle: error: {failure}\n")
    return 1 if failures else 0


def stablehlo_translate(oracle, argv):
    """`oracle.py stablehlo-translate ARGS`: --serialize / --deserialize as stablehlo-translate does them."""
    mode, target, strip, allow_other, print_version, inputs, output = None, None, False, False, False, [], None
    words = iter(argv)
    for word in words:
        if word == "-" or not word.startswith("-"):
            inputs.append(word)
            continue
        name, _, value = word.lstrip("-").partition("=")
        value = _unquote(value)
        if name in ("serialize", "deserialize"):
            mode = name
        elif name == "target":
            target = value or next(words, None)
        elif name == "strip-debuginfo":
            strip = True
        elif name == "allow-other-dialects":
            allow_other = True
        elif name == "print-stablehlo-version":
            print_version = True
        elif name == "verify-diagnostics":
            # A portable artifact holds no expected-* annotations: every diagnostic is unexpected, so this
            # only means "fail on any diagnostic", which happens anyway.
            pass
        elif name == "o":
            output = next(words, None)
        else:
            raise OracleError(f"stablehlo-translate flag --{name} is not supported by the oracle")
    if mode is None or len(inputs) > 1:
        raise OracleError("stablehlo-translate needs --serialize or --deserialize and at most one input")
    path = inputs[0] if inputs else "-"
    if mode == "serialize":
        if not target:
            raise OracleError("--serialize needs --target")
        module = oracle.parse_text(path)
        if strip:
            oracle.strip_debuginfo(module)
        _write(output, oracle.serialize(module, oracle.resolve_target(target), allow_other))
        return 0
    data = _read_bytes(path)
    prefix = ""
    if print_version:
        version = artifact_version(data)
        prefix = (
            f"// Reading portable artifact with StableHLO version: {version}\n"
            if version
            else "// Failed parsing StableHLO version from portable artifact\n"
        )
    module = oracle.deserialize(data)
    _write(output, prefix + _text_output(oracle.print_module(module)))
    return 0


def artifact_version(data):
    """The StableHLO version in a portable artifact's producer string, or None."""
    match = re.match(rb"ML\xefR[\x00-\xff]StableHLO_v([0-9]+\.[0-9]+\.[0-9]+)\x00", data)
    return match.group(1).decode() if match else None


def _read_text(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise OracleError(f"cannot read {path}: {error}") from error


# Per-input commands: what each writes for one input, and the suffix of its output in --output-dir mode.
OUTPUT_SUFFIX = {
    "serialize": ".bc",
    "deserialize": ".deserialized.mlir",
    "print-vhlo": ".vhlo.mlir",
    "roundtrip-text": ".roundtrip.mlir",
    "opt": ".opt.mlir",
}


def _run_one(oracle, args, path):
    """The output (bytes or text) of a per-input command for one input path."""
    if args.command == "serialize":
        module = oracle.parse_text(path)
        if args.strip_debuginfo:
            oracle.strip_debuginfo(module)
        return oracle.serialize(module, oracle.resolve_target(args.target), args.allow_other_dialects)
    if args.command == "deserialize":
        module = oracle.deserialize(_read_bytes(path))
        return _text_output(oracle.print_module(module, args.generic, args.debug_info, args.local_scope))
    if args.command == "print-vhlo":
        module = oracle.parse_bytecode(_read_bytes(path))
        return _text_output(oracle.print_module(module, True, args.debug_info, args.local_scope))
    if args.command == "roundtrip-text":
        module = oracle.parse_text(path)
        if args.strip_debuginfo:
            oracle.strip_debuginfo(module)
        return _text_output(oracle.print_module(module, args.generic, args.debug_info, args.local_scope))
    if args.command == "opt":
        text, failures = run_opt(oracle, args, path)
        if failures:
            raise OracleError("\n".join(failures))
        return text
    raise OracleError(f"unknown command {args.command}")


def _run_batch(oracle, args):
    """--output-dir mode: every input is processed; a failure writes DIR/<name><suffix>.error instead.
    Returns the exit status: 1 when any input failed."""
    suffix = OUTPUT_SUFFIX[args.command]
    failures = 0
    for path in args.input:
        output = os.path.join(args.output_dir, os.path.basename(path) + suffix)
        for stale in (output, output + ".error"):
            if os.path.exists(stale):
                os.remove(stale)
        try:
            _write(output, _run_one(oracle, args, path))
        except OracleError as error:
            failures += 1
            _write(output + ".error", f"{error}\n")
    if failures:
        sys.stderr.write(f"oracle: {failures} of {len(args.input)} inputs failed (see *.error in {args.output_dir})\n")
    return 1 if failures else 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="oracle.py", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    def per_input_command(name, help_text):
        command = commands.add_parser(name, help=help_text)
        command.add_argument("input", nargs="+", help="input files ('-' for standard input)")
        command.add_argument("-o", "--output", help="output file (one input only; default standard output)")
        if name != "serialize":
            command.add_argument("--local-scope", action="store_true", help="locations inline (-mlir-print-local-scope)")
        command.add_argument(
            "--output-dir",
            help=f"process every input, writing DIR/<input file name>{OUTPUT_SUFFIX[name]} "
            "or, on failure, that name + .error",
        )
        return command

    serialize = per_input_command("serialize", "StableHLO text -> portable artifact")
    serialize.add_argument("--target", required=True, help="X.Y.Z, 'current' or 'minimum'")
    serialize.add_argument("--strip-debuginfo", action="store_true")
    serialize.add_argument("--allow-other-dialects", action="store_true", help="keep non-StableHLO dialects")

    deserialize = per_input_command("deserialize", "portable artifact -> StableHLO text")
    deserialize.add_argument("--generic", action="store_true")
    deserialize.add_argument("--debug-info", action="store_true", help="print locations")

    print_vhlo = per_input_command("print-vhlo", "portable artifact -> VHLO generic text (no conversion)")
    print_vhlo.add_argument("--debug-info", action="store_true", help="print locations")

    roundtrip = per_input_command("roundtrip-text", "parse text and print it again")
    roundtrip.add_argument("--generic", action="store_true")
    roundtrip.add_argument("--debug-info", action="store_true", help="print locations")
    roundtrip.add_argument("--strip-debuginfo", action="store_true")

    opt = per_input_command("opt", "stablehlo-opt: parse, run passes, print")
    pipelines = opt.add_mutually_exclusive_group()
    pipelines.add_argument("--pass-pipeline", help="e.g. 'builtin.module(stablehlo-legalize-to-vhlo)'")
    pipelines.add_argument(
        "--passes", help="passes inside builtin.module(...), e.g. 'stablehlo-legalize-to-vhlo,vhlo-to-version{target=1.9.0}'"
    )
    opt.add_argument("--generic", action="store_true", help="-mlir-print-op-generic")
    opt.add_argument("--debug-info", action="store_true", help="-mlir-print-debuginfo")
    opt.add_argument("--split-input-file", action="store_true", help="process chunks between '// -----' lines")
    opt.add_argument("--verify-diagnostics", action="store_true", help="check expected-error annotations")
    opt.add_argument("--no-verify-each", action="store_true", help="--verify-each=false")

    min_target = commands.add_parser("min-target", help="smallest X.Y.0 target that serializes")
    min_target.add_argument("input", nargs="+", help="with several inputs, prints 'TARGET INPUT' lines")
    min_target.add_argument("--verbose", action="store_true", help="also print why the target below failed")

    commands.add_parser("version", help="StableHLO version of the installed jaxlib")
    commands.add_parser("targets", help="every X.Y.0 target the installed jaxlib accepts")

    argv = sys.argv[1:] if argv is None else argv
    emulated = {"stablehlo-opt": stablehlo_opt, "stablehlo-translate": stablehlo_translate}
    if argv and argv[0] in emulated:
        try:
            return emulated[argv[0]](Oracle(), argv[1:])
        except OracleError as error:
            sys.stderr.write(f"oracle: error: {error}\n")
            return 1
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_request:
        # argparse exits 2 on usage errors; every failure of this tool exits 1 (--help still exits 0).
        return 0 if exit_request.code in (0, None) else 1
    try:
        oracle = Oracle()
        if args.command == "version":
            _write(None, oracle.current_version() + "\n")
        elif args.command == "targets":
            _write(None, "".join(t + "\n" for t in oracle.all_targets()))
        elif args.command == "min-target":
            for path in args.input:
                target, below_error = oracle.min_target(path)
                _write(None, f"{target} {path}\n" if len(args.input) > 1 else target + "\n")
                if args.verbose and below_error:
                    sys.stderr.write(f"{path}: below {target}: {below_error}\n")
        elif args.output_dir:
            if args.output:
                raise OracleError("give either -o or --output-dir")
            return _run_batch(oracle, args)
        else:
            if len(args.input) > 1:
                raise OracleError("several inputs need --output-dir")
            _write(args.output, _run_one(oracle, args, args.input[0]))
    except OracleError as error:
        sys.stderr.write(f"oracle: error: {error}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
