#!/usr/bin/env python3
"""Writes spec/registered_ops.yaml: the op names jaxlib's MLIR context registers in the dialects
the spec does not model (spec/dialects/*.yaml model the others), read from jaxlib's Python
dialect modules (generated from the same ODS as the context's ops) and checked one by one with
the context (`is_registered_operation`). The dialects the context registers without a Python
module (affine; complex and ub are modeled) are listed from the op names spelled in jaxlib's library
(`Oracle.library_op_names`), each checked the same way.

    .venv/bin/python scripts/oracle/registered_ops.py > spec/registered_ops.yaml

The oracle test `oracle::registry_oracle` checks the file against jaxlib's registry.

Dialects that allow unknown ops (llvm, nvvm: the context accepts any name there) are left out.
"""

import importlib
import os
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle as oracle_module  # noqa: E402

DIALECTS = ["gpu", "llvm", "memref", "mhlo", "mpmd", "nvgpu", "nvvm", "vector"]
# Registered by jaxlib's context, with no generated Python op classes.
LIBRARY_DIALECTS = ["affine"]


def allows_unknown_ops(oracle, dialect):
    """Whether the context takes an op name of `dialect` that no dialect defines."""
    try:
        oracle.parse_string('"%s.no_such_op_probe"() : () -> ()' % dialect)
        return True
    except Exception:  # noqa: BLE001 (the oracle raises what MLIR raises)
        return False


def registered():
    oracle = oracle_module.Oracle()
    ctx = oracle.context
    out = {}
    for d in DIALECTS:
        if allows_unknown_ops(oracle, d):
            continue
        mod = importlib.import_module("jaxlib.mlir.dialects._%s_ops_gen" % d)
        names = sorted({v.OPERATION_NAME for v in vars(mod).values() if isinstance(v, type) and hasattr(v, "OPERATION_NAME")})
        missing = [n for n in names if not ctx.is_registered_operation(n)]
        if missing:
            sys.exit("registered_ops: not registered in jaxlib's context: %s" % ", ".join(missing))
        out[d] = [n[len(d) + 1:] for n in names]
    for d in LIBRARY_DIALECTS:
        if allows_unknown_ops(oracle, d):
            continue
        names = oracle.library_op_names([d])
        if not names:
            sys.exit("registered_ops: no op of %s found in jaxlib's library" % d)
        out[d] = [n[len(d) + 1:] for n in names]
    return dict(sorted(out.items()))


def yaml_text(ops):
    lines = [
        "# The op names jaxlib's MLIR context registers in the dialects that spec/dialects/*.yaml does",
        "# not model (jaxlib 0.10.2, StableHLO 1.17.0): the parser and the reader refuse any other name",
        "# of these dialects, as MLIR does (\"unregistered operation ... that does not allow unknown",
        "# operations\"). Written by scripts/oracle/registered_ops.py; oracle::registry_oracle checks it.",
    ]
    for d, names in ops.items():
        body = textwrap.wrap(", ".join('"%s"' % n if ":" in n else n for n in names), 96, break_on_hyphens=False)
        lines.append("%s: [" % d)
        lines.extend("  " + b for b in body)
        lines.append("]")
    return "\n".join(lines) + "\n"


def main():
    sys.stdout.write(yaml_text(registered()))


if __name__ == "__main__":
    main()
