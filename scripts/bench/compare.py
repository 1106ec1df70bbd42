#!/usr/bin/env python3
"""Times vhlo-rs against libStablehlo (jaxlib) on the same generated program, in one run.

    python3 scripts/bench/compare.py [--ops 100000] [--reps 3] [--write-doc docs/benchmarks.md]

Steps: builds the CLI and the `bench_compare` example (`--profile dist`); generates a transformer-like program of
--ops operations into a temporary directory; times, in process on each side (fastest of --reps, no process
start or file I/O inside the timer): parse+print (pretty and generic), serialize (parsed module -> artifact
at 1.0.0 and at each side's current version), deserialize (a 1.0.0 artifact -> StableHLO module; both sides
read the same file, written by vhlo-rs); prints the ratios against the goals; measures the peak RSS of a CLI
round trip (text -> artifact -> text) with /usr/bin/time -v.

The jaxlib side runs in the oracle venv: $VHLO_ORACLE_PYTHON, else $ORACLE_VENV/bin/python, else
<repo>/.venv/bin/python (scripts/oracle/setup.sh makes it).
"""

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# (name in the report, our key, jaxlib's key, goal as a speed-up factor or None)
STEPS = [
    ("parse+print (pretty)", "parse_print_pretty", "parse_print_pretty", 5.0),
    ("parse+print (generic)", "parse_print_generic", "parse_print_generic", 5.0),
    ("parse", "parse", "parse", None),
    ("serialize at 1.0.0", "serialize_1.0.0", "serialize_1.0.0", 10.0),
    ("serialize at current", "serialize_current", "serialize_current", 10.0),
    ("deserialize (1.0.0 artifact)", "deserialize_1.0.0", "deserialize_1.0.0", 20.0),
]
RSS_GOAL_MIB = 64
NOTES_MARKER = "<!-- notes: kept by compare.py -->"


def jaxlib_worker(path, artifact_path, reps):
    """Runs inside the oracle venv; prints the same JSON keys as bench_compare."""
    sys.path.insert(0, os.path.join(REPO, "scripts", "oracle"))
    import oracle as oracle_module  # noqa: E402

    oracle = oracle_module.Oracle()
    text = open(path, encoding="utf-8").read()
    artifact = open(artifact_path, "rb").read()

    def fastest(make_input, run):
        best = float("inf")
        result = None
        for _ in range(reps):
            arg = make_input()
            start = time.perf_counter()
            result = run(arg)
            best = min(best, time.perf_counter() - start)
        return best, result

    out = {}
    no_input = lambda: None  # noqa: E731
    out["parse_print_pretty"], _ = fastest(no_input, lambda _: len(oracle.print_module(oracle.parse_string(text))))
    out["parse_print_generic"], _ = fastest(
        no_input, lambda _: len(oracle.print_module(oracle.parse_string(text), generic=True))
    )
    out["parse"], module = fastest(no_input, lambda _: oracle.parse_string(text))
    out["ops"] = sum(1 for _ in _walk(module.operation))
    # libStablehlo converts the module in place while serializing: every repetition parses afresh, outside the timer.
    out["serialize_1.0.0"], ours_format = fastest(lambda: oracle.parse_string(text), lambda m: oracle.serialize(m, "1.0.0"))
    out["serialize_current"], _ = fastest(
        lambda: oracle.parse_string(text), lambda m: oracle.serialize(m, oracle.current_version())
    )
    out["deserialize_1.0.0"], _ = fastest(no_input, lambda _: oracle.deserialize(artifact))
    out["current_version"] = oracle.current_version()
    out["identical_1.0.0_artifact"] = ours_format == artifact
    print(json.dumps(out))


def _walk(op):
    yield op
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield from _walk(inner.operation)


def oracle_python():
    if os.environ.get("VHLO_ORACLE_PYTHON"):
        return os.environ["VHLO_ORACLE_PYTHON"]
    venv = os.environ.get("ORACLE_VENV", os.path.join(REPO, ".venv"))
    return os.path.join(venv, "bin", "python")


def run(cmd, **kw):
    result = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if result.returncode != 0:
        sys.exit(f"compare: {' '.join(cmd)} failed ({result.returncode}):\n{result.stderr}")
    return result.stdout


def peak_rss_kib(cmd):
    result = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"compare: {' '.join(cmd)} failed:\n{result.stderr}")
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stderr)
    if not match:
        sys.exit("compare: /usr/bin/time -v gave no maximum resident set size")
    return int(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--write-doc", metavar="MD", help="write the measured numbers into this markdown file")
    parser.add_argument("--jaxlib-worker", nargs=3, metavar=("MLIR", "ARTIFACT", "REPS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.jaxlib_worker:
        jaxlib_worker(args.jaxlib_worker[0], args.jaxlib_worker[1], int(args.jaxlib_worker[2]))
        return

    python = oracle_python()
    if not os.path.exists(python):
        sys.exit(f"compare: no oracle python at {python}; run scripts/oracle/setup.sh or set VHLO_ORACLE_PYTHON")
    target_dir = os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target"))
    print("building (--profile dist) ...", file=sys.stderr)
    run(["cargo", "build", "--profile", "dist", "-q", "-p", "vhlo-translate"], cwd=REPO)
    run(["cargo", "build", "--profile", "dist", "-q", "-p", "vhlo-core", "--example", "bench_compare"], cwd=REPO)
    cli = os.path.join(target_dir, "dist", "vhlo-translate")
    bench = os.path.join(target_dir, "dist", "examples", "bench_compare")

    with tempfile.TemporaryDirectory(prefix="vhlo-bench-") as tmp:
        program = os.path.join(tmp, "program.mlir")
        run([bench, "gen", str(args.ops), program])
        size = os.path.getsize(program)
        print(f"timing vhlo-rs on {program} ({size} bytes) ...", file=sys.stderr)
        ours = json.loads(run([bench, "time", program, str(args.reps), tmp]))
        print("timing jaxlib ...", file=sys.stderr)
        artifact = os.path.join(tmp, "ours-1.0.0.mlir.bc")
        theirs = json.loads(
            run([python, os.path.abspath(__file__), "--jaxlib-worker", program, artifact, str(args.reps)])
        )
        print("peak RSS of the CLI round trip ...", file=sys.stderr)
        bc = os.path.join(tmp, "cli.mlir.bc")
        rss_ser = peak_rss_kib([cli, "--serialize", program, "--target=current", "-o", bc])
        rss_de = peak_rss_kib([cli, "--deserialize", bc, "-o", os.path.join(tmp, "cli.mlir")])
        text_mib = size / (1 << 20)
        artifact_kib = os.path.getsize(artifact) / 1024

    rows = []
    for name, our_key, their_key, goal in STEPS:
        ratio = theirs[their_key] / ours[our_key]
        verdict = "" if goal is None else ("met" if ratio >= goal else "MISSED")
        rows.append((name, ours[our_key], theirs[their_key], ratio, goal, verdict))
    rss_mib = max(rss_ser, rss_de) / 1024
    rss_verdict = "met" if rss_mib <= RSS_GOAL_MIB else "MISSED"

    lines = [
        f"| step | vhlo-rs (ms) | jaxlib (ms) | speed-up | goal |",
        f"|---|---:|---:|---:|---|",
    ]
    for name, o, t, ratio, goal, verdict in rows:
        goal_text = "-" if goal is None else f">= {goal:g}x ({verdict})"
        lines.append(f"| {name} | {o * 1e3:.1f} | {t * 1e3:.1f} | {ratio:.1f}x | {goal_text} |")
    table = "\n".join(lines)
    rss_text = (
        f"Peak RSS of the CLI round trip: serialize {rss_ser / 1024:.1f} MiB, deserialize {rss_de / 1024:.1f} MiB "
        f"(goal <= {RSS_GOAL_MIB} MiB: {rss_verdict})."
    )
    facts = (
        f"Program: {ours['ops']} ops as counted by vhlo-rs ({theirs['ops']} by MLIR), {text_mib:.1f} MiB of text, "
        f"{artifact_kib:.0f} KiB as a 1.0.0 artifact. jaxlib's current version: {theirs['current_version']}. "
        f"jaxlib's 1.0.0 artifact is byte-identical to ours: {'yes' if theirs['identical_1.0.0_artifact'] else 'no'}. "
        f"Fastest of {args.reps} repetitions each."
    )
    print(table)
    print(rss_text)
    print(facts)

    if args.write_doc:
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        doc = f"""# Benchmarks against libStablehlo

Measured {now} with `python3 scripts/bench/compare.py --ops {args.ops} --reps {args.reps} --write-doc {args.write_doc}`
on {platform.machine()} Linux, **2 cores shared with other jobs** (numbers are noisy; the fastest
repetition is kept on both sides). jaxlib runs in the oracle venv (`scripts/oracle/`), called through its
Python bindings; vhlo-rs runs the `dist` build of `vhlo-core/examples/bench_compare.rs`. On both sides only
the measured call is inside the timer (no process start, no file I/O). Serialize starts from a parsed module;
deserialize reads the same 1.0.0 artifact (written by vhlo-rs) into a StableHLO module, without printing.

{facts}

{table}

{rss_text}

`cargo bench -p vhlo-core` runs the same steps with divan (small sample counts; see `vhlo-core/benches/portable.rs`).
"""
        path = args.write_doc if os.path.isabs(args.write_doc) else os.path.join(REPO, args.write_doc)
        # Hand-written notes below NOTES_MARKER survive a re-run.
        notes = ""
        if os.path.exists(path):
            previous = open(path, encoding="utf-8").read()
            if NOTES_MARKER in previous:
                notes = "\n" + previous[previous.index(NOTES_MARKER):]
        with open(path, "w", encoding="utf-8") as f:
            f.write(doc + notes)


if __name__ == "__main__":
    main()
