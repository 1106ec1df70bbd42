#!/usr/bin/env python3
"""jaxlib reads back what the downstream example wrote (run by .ci/run with the oracle's Python).

    check.py RELU.mlir.bc LAPACK.mlir.bc TANH.mlir.bc

RELU: `relu`'s artifact; LAPACK and TANH: `rewrite`'s outputs for a JAX export with `lapack_*`
custom calls and one with `stablehlo.tanh`. Each must deserialize in jaxlib (which verifies it),
and show the example's edits.
"""

import sys

from jax._src.interpreters import mlir as jax_mlir
from jaxlib.mlir.dialects import stablehlo


def read(path):
    # JAX's context: StableHLO, CHLO and Shardy registered, as when JAX reads its exports.
    with jax_mlir.make_ir_context() as ctx:
        module = stablehlo.deserialize_portable_artifact(ctx, open(path, "rb").read())
        return str(module)


def expect(text, path, present=(), absent=()):
    for s in present:
        if s not in text:
            sys.exit(f"{path}: jaxlib's print lacks {s!r}")
    for s in absent:
        if s in text:
            sys.exit(f"{path}: jaxlib's print still has {s!r}")


relu, lapack, tanh = sys.argv[1:4]
expect(read(relu), relu, present=["stablehlo.dot_general", "stablehlo.add", "stablehlo.maximum"])
expect(read(lapack), lapack, present=["@mylib_", "mylib_spotrf"], absent=["lapack_"])
expect(read(tanh), tanh, present=["stablehlo.logistic"], absent=["stablehlo.tanh"])
print("jaxlib reads the downstream example's artifacts back")
