#!/usr/bin/env python3
"""The Python package (python/, `vhlo`) against jaxlib, side by side in one run.

    .venv/bin/python scripts/bench/python_api.py CORPUS_DIR [--reps 7] [--wheel WHEEL]

CORPUS_DIR is what scripts/bench/jax_programs.py writes (transformer-*.mlir). Reports:
  - the wheel's size (--wheel) and the installed extension module's size;
  - import time of `vhlo` and of `jaxlib.mlir.dialects.stablehlo`, each in fresh processes
    (median of --reps, alternating);
  - serialize_portable_artifact_str(text, target) of each transformer form, both in this process
    at jaxlib's current version, alternating run by run (median and spread of --reps), with
    the artifacts checked to read back in jaxlib as the same module;
  - deserialize_portable_artifact_str of jaxlib's artifact likewise (both return MLIR bytecode).
"""

import argparse
import glob
import os
import statistics
import subprocess
import sys
import time


def median_spread(values):
    return statistics.median(values), min(values), max(values)


def import_time(module, reps):
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--wheel")
    parser.add_argument("--only", default="")
    args = parser.parse_args()

    import vhlo
    from jaxlib.mlir.dialects import stablehlo as hlo

    if args.wheel:
        print(f"wheel {os.path.basename(args.wheel)}: {os.path.getsize(args.wheel):,} bytes")
    ext = glob.glob(os.path.join(os.path.dirname(vhlo.__file__), "_vhlo*.so"))
    for path in ext:
        print(f"extension {os.path.basename(path)}: {os.path.getsize(path):,} bytes")

    ours, theirs = [], []
    for _ in range(args.reps):
        ours.append(import_time("vhlo", args.reps))
        theirs.append(import_time("jaxlib.mlir.dialects.stablehlo", args.reps))
    (o, omin, omax), (t, tmin, tmax) = median_spread(ours), median_spread(theirs)
    print(
        f"import: vhlo {o * 1000:.1f} ms ({omin * 1000:.1f}..{omax * 1000:.1f}), "
        f"jaxlib.mlir.dialects.stablehlo {t * 1000:.1f} ms ({tmin * 1000:.1f}..{tmax * 1000:.1f}): {t / o:.1f}x"
    )

    target = hlo.get_current_version()
    for path in sorted(glob.glob(os.path.join(args.corpus, "transformer-*.mlir"))):
        name = os.path.basename(path)
        if args.only not in name:
            continue
        text = open(path, encoding="utf-8").read()
        times = {"vhlo": [], "jaxlib": []}
        for _ in range(args.reps):
            start = time.perf_counter()
            mine = vhlo.serialize_portable_artifact_str(text, target)
            times["vhlo"].append(time.perf_counter() - start)
            start = time.perf_counter()
            reference = hlo.serialize_portable_artifact_str(text, target)
            times["jaxlib"].append(time.perf_counter() - start)
        same = hlo.deserialize_portable_artifact_str(mine) == hlo.deserialize_portable_artifact_str(reference)
        (o, omin, omax), (t, tmin, tmax) = median_spread(times["vhlo"]), median_spread(times["jaxlib"])
        print(
            f"serialize {name} at {target}: vhlo {o * 1000:.1f} ms ({omin * 1000:.1f}..{omax * 1000:.1f}), "
            f"jaxlib {t * 1000:.1f} ms ({tmin * 1000:.1f}..{tmax * 1000:.1f}): {t / o:.1f}x; "
            f"jaxlib reads ours as its own: {same}"
        )
        times = {"vhlo": [], "jaxlib": []}
        for _ in range(args.reps):
            start = time.perf_counter()
            vhlo.deserialize_portable_artifact_str(reference)
            times["vhlo"].append(time.perf_counter() - start)
            start = time.perf_counter()
            hlo.deserialize_portable_artifact_str(reference)
            times["jaxlib"].append(time.perf_counter() - start)
        (o, omin, omax), (t, tmin, tmax) = median_spread(times["vhlo"]), median_spread(times["jaxlib"])
        print(
            f"deserialize {name}: vhlo {o * 1000:.1f} ms ({omin * 1000:.1f}..{omax * 1000:.1f}), "
            f"jaxlib {t * 1000:.1f} ms ({tmin * 1000:.1f}..{tmax * 1000:.1f}): {t / o:.1f}x"
        )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
