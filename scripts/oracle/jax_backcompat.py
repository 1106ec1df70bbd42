#!/usr/bin/env python3
"""JAX's back-compat artifacts as test cases, with jaxlib's reading of them (tests/tests/oracle/jax_backcompat.rs).

Run inside the oracle venv (scripts/oracle/setup.sh), one process per phase:

    .venv/bin/python scripts/oracle/jax_backcompat.py extract DIR [FILTER]
        Every dict with `mlir_module_serialized` in jax/_src/internal_test_util/export_back_compat_test_data/
        (and pallas/) of the installed jax: DIR/NAME.bc (the artifact), DIR/NAME.mlir (JAX's text), and
        jaxlib's references, each printed generic (or NAME.<suffix>.error when jaxlib fails):
          NAME.jax_deserialized.mlir     deserialize_portable_artifact(artifact), no locations
          NAME.jax_deserialized_loc.mlir the same with locations
          NAME.jax_text.mlir             the text as jaxlib parses it, with locations
          NAME.jax_printed.mlir          deserialized and printed as stablehlo-translate --deserialize
                                         prints (custom forms, no locations): the bytes to match
        DIR/cases.tsv lists NAME, producer and source module, one a line. FILTER keeps names containing it.

    .venv/bin/python scripts/oracle/jax_backcompat.py extract DIR FILTER --fixtures FIXTURE_DIR
        The same for a fixture directory (tests/fixtures/jax_mesh): NAME.jax_export.mlir.bc and NAME.mlir.

    .venv/bin/python scripts/oracle/jax_backcompat.py check DIR
        For each NAME of cases.tsv, jaxlib reads what vhlo-rs wrote, where present, and prints it generic:
          NAME.ours.mlir    (our --deserialize text)  -> NAME.ours.jax.mlir         (parsed, no locations)
          NAME.ours_loc.mlir (our generic print with locations) -> NAME.ours_loc.jax.mlir (locations)
          NAME.retarget.bc  (our --retarget artifact) -> NAME.retarget.jax.mlir     (deserialized, locations)
          NAME.serialize.bc (our serialization of the text) -> NAME.serialize.jax.mlir (deserialized, locations)
          NAME.target (the version of that serialization) -> NAME.jax_serialize.mlir (jaxlib's own
                            serialization of the text at it, deserialized, locations; the artifact
                            itself as NAME.jax_serialize.bc)
"""

import importlib
import os
import pkgutil
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import Oracle, OracleError  # noqa: E402


def _cases(name_filter):
    """(name, artifact bytes, text, module) of every back-compat dict, in a stable order."""
    import jax._src.internal_test_util.export_back_compat_test_data as data
    import jax._src.internal_test_util.export_back_compat_test_data.pallas as pallas

    found = []

    def visit(name, value, module):
        if isinstance(value, dict) and "mlir_module_serialized" in value:
            found.append((re.sub(r"[^A-Za-z0-9_.-]", "_", name), value, module))
        elif isinstance(value, dict):
            for key, item in value.items():
                visit(f"{name}.{key}", item, module)
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                visit(f"{name}.{index}", item, module)

    for package, prefix in ((data, ""), (pallas, "pallas.")):
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
            if info.ispkg:
                continue
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for key, value in vars(module).items():
                if isinstance(value, (dict, list, tuple)) and not key.startswith("_"):
                    visit(f"{prefix}{info.name}.{key}", value, module.__file__)
    seen = set()
    for name, value, module in found:
        if name in seen or (name_filter and name_filter not in name):
            continue
        seen.add(name)
        yield name, bytes(value["mlir_module_serialized"]), value["mlir_module_text"], module


def _write_text_or_error(oracle, path, produce):
    for stale in (path, path + ".error"):
        if os.path.exists(stale):
            os.remove(stale)
    try:
        text = produce()
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except (OracleError, UnicodeError) as error:
        oracle.take_diagnostics()
        with open(path + ".error", "w", encoding="utf-8") as handle:
            handle.write(f"{error}\n")


def _fixture_cases(fixtures, name_filter):
    """(name, artifact, text, source) of a fixture directory: NAME.jax_export.mlir.bc and NAME.mlir."""
    for entry in sorted(os.listdir(fixtures)):
        if not entry.endswith(".jax_export.mlir.bc"):
            continue
        name = entry[: -len(".jax_export.mlir.bc")]
        if name_filter and name_filter not in name:
            continue
        with open(os.path.join(fixtures, entry), "rb") as handle:
            artifact = handle.read()
        with open(os.path.join(fixtures, name + ".mlir"), encoding="utf-8") as handle:
            text = handle.read()
        yield name, artifact, text, os.path.join(fixtures, name + ".mlir")


def extract(directory, name_filter, fixtures=None):
    oracle = Oracle()
    os.makedirs(directory, exist_ok=True)
    rows = []
    cases = _fixture_cases(fixtures, name_filter) if fixtures else _cases(name_filter)
    for name, artifact, text, module in cases:
        base = os.path.join(directory, name)
        with open(base + ".bc", "wb") as handle:
            handle.write(artifact)
        with open(base + ".mlir", "w", encoding="utf-8") as handle:
            handle.write(text)
        _write_text_or_error(
            oracle, base + ".jax_deserialized.mlir", lambda: oracle.print_module(oracle.deserialize(artifact), True)
        )
        _write_text_or_error(
            oracle,
            base + ".jax_deserialized_loc.mlir",
            lambda: oracle.print_module(oracle.deserialize(artifact), True, True, True),
        )
        _write_text_or_error(
            oracle, base + ".jax_printed.mlir", lambda: oracle.print_module(oracle.deserialize(artifact))
        )
        _write_text_or_error(
            oracle,
            base + ".jax_text.mlir",
            lambda: oracle.print_module(oracle.parse_string(text, name), True, True, True),
        )
        producer = artifact[5 : artifact.index(b"\0", 5)].decode("utf-8", "replace")
        rows.append(f"{name}\t{producer}\t{os.path.relpath(module, os.path.dirname(os.path.dirname(module)))}\n")
    with open(os.path.join(directory, "cases.tsv"), "w", encoding="utf-8") as handle:
        handle.writelines(rows)


def _read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def check(directory):
    oracle = Oracle()
    with open(os.path.join(directory, "cases.tsv"), encoding="utf-8") as handle:
        names = [line.split("\t")[0] for line in handle if line.strip()]
    for name in names:
        base = os.path.join(directory, name)
        if os.path.exists(base + ".ours.mlir"):
            _write_text_or_error(
                oracle,
                base + ".ours.jax.mlir",
                lambda: oracle.print_module(oracle.parse_text(base + ".ours.mlir"), True),
            )
        if os.path.exists(base + ".ours_loc.mlir"):
            _write_text_or_error(
                oracle,
                base + ".ours_loc.jax.mlir",
                lambda: oracle.print_module(oracle.parse_string(_read(base + ".ours_loc.mlir"), "-"), True, True, True),
            )
        if os.path.exists(base + ".target"):
            # jaxlib's own serialization of the text at the target our serialization used.
            target = _read(base + ".target").strip()

            def serialized_and_read():
                artifact = oracle.serialize(oracle.parse_string(_read(base + ".mlir"), "-"), target)
                with open(base + ".jax_serialize.bc", "wb") as handle:
                    handle.write(artifact)
                return oracle.print_module(oracle.deserialize(artifact), True, True, True)

            _write_text_or_error(oracle, base + ".jax_serialize.mlir", serialized_and_read)
        for kind in ("retarget", "serialize"):
            path = f"{base}.{kind}.bc"
            if os.path.exists(path):
                with open(path, "rb") as handle:
                    artifact = handle.read()
                _write_text_or_error(
                    oracle,
                    f"{base}.{kind}.jax.mlir",
                    lambda: oracle.print_module(oracle.deserialize(artifact), True, True, True),
                )


def main(argv):
    if len(argv) in (2, 3) and argv[0] == "extract":
        extract(argv[1], argv[2] if len(argv) > 2 else "")
    elif len(argv) == 5 and argv[0] == "extract" and argv[3] == "--fixtures":
        extract(argv[1], argv[2], argv[4])
    elif len(argv) == 2 and argv[0] == "check":
        check(argv[1])
    else:
        sys.stderr.write(__doc__)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
