"""Many small oracle jobs in one process (jax starts once): a JSON list of jobs on stdin, a JSON list of
results on stdout, one per job and in order. Used by tests that check many values against libStablehlo.

A job: {"text": str} or {"bytecode_hex": str}, with any of
  "print": true            the module printed (pretty form) -> result "print"
  "generic": true          ... in generic form instead
  "serialize": "1.17.0"    a portable artifact for that target ("current": jaxlib's version) -> result
                           "bytecode_hex", and "target": the version written
  "allow_other_dialects": true   (with "serialize")
  "deserialize": true      (with "bytecode_hex") read the artifact as a portable artifact and print it
A failed step gives {"error": message} for the job.

Or a job {"registry": [names]}: what jaxlib's MLIR context registers -> result "registered" (for each
name, whether an op of that name is registered), "ops_gen" (every op name of jaxlib's generated Python
op classes, `jaxlib/mlir/dialects/_*_ops_gen.py`, and of the dialects that have none: affine, complex
and ub, from the names its library spells, `Oracle.library_op_names`) and "version" (its StableHLO version).
"""

import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import Oracle, OracleError  # noqa: E402


def registry(oracle, names):
    import jaxlib.mlir.dialects as dialects

    ops_gen = set()
    paths = [p for d in dialects.__path__ for p in glob.glob(os.path.join(d, "_*_ops_gen.py"))]
    for path in paths:
        with open(path, encoding="utf-8") as f:
            ops_gen.update(re.findall(r'OPERATION_NAME = "([^"]+)"', f.read()))
    ops_gen.update(oracle.library_op_names(["affine", "complex", "ub"]))
    return {
        "registered": [oracle.context.is_registered_operation(n) for n in names],
        "ops_gen": sorted(ops_gen),
        "version": oracle.current_version(),
    }


def run(oracle, job):
    if "registry" in job:
        return registry(oracle, job["registry"])
    generic = bool(job.get("generic"))
    if "bytecode_hex" in job:
        data = bytes.fromhex(job["bytecode_hex"])
        module = oracle.deserialize(data) if job.get("deserialize") else oracle.parse_bytecode(data)
    else:
        module = oracle.parse_string(job["text"])
    result = {}
    if job.get("print") or job.get("deserialize"):
        result["print"] = oracle.print_module(module, generic=generic)
    if job.get("serialize"):
        target = oracle.resolve_target(job["serialize"])
        artifact = oracle.serialize(module, target, bool(job.get("allow_other_dialects")))
        result["bytecode_hex"] = artifact.hex()
        result["target"] = target
    return result


def main():
    oracle = Oracle()
    results = []
    for job in json.load(sys.stdin):
        try:
            results.append(run(oracle, job))
        except OracleError as error:
            results.append({"error": str(error)})
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
