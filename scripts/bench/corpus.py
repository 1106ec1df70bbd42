#!/usr/bin/env python3
"""Times the vhlo-translate CLI against libStablehlo (jaxlib) on the real-shaped corpus.

    python3 scripts/bench/corpus.py CORPUS_DIR [--reps 5] [--only SUBSTRING]

CORPUS_DIR is what scripts/bench/jax_programs.py writes. For each transformer-*.mlir file, in one run:
  serialize    ours: the whole CLI process `--serialize F --target=current --strip-debuginfo -o A`;
               jaxlib: in process, parse the text, strip locations, serialize at its current version.
  deserialize  ours: the whole CLI process `--deserialize A -o OUT` (read, upgrade, legalize, print);
               jaxlib: in process, deserialize A and print the module. Both read the same artifact A.
For weights-*.mlir: the CLI's serialize, the artifact-to-artifact round trip (`--retarget A
--target=current`) and `--deserialize`, with peak RSS (jaxlib is not timed on these).
Reports the median of --reps runs and the spread (min..max) for each side; jaxlib is timed without
process start, ours with it, so the ratio is conservative for us. The two sides take turns, one
repetition each (jaxlib in a worker process that stays up): the host's speed, which moves by up to
2x within minutes, then weighs on both alike (before, our repetitions ran in a burst of half a
second and jaxlib's over fifteen, and one slow window could move our median alone).
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOALS = {"serialize": 10.0, "deserialize": 20.0}


def oracle_python():
    if os.environ.get("VHLO_ORACLE_PYTHON"):
        return os.environ["VHLO_ORACLE_PYTHON"]
    return os.path.join(os.environ.get("ORACLE_VENV", os.path.join(REPO, ".venv")), "bin", "python")


def timed(cmd):
    """(seconds, peak RSS in KiB) of one run of cmd (an absolute path and its arguments).

    Spawned directly and reaped with wait4, whose usage gives the peak RSS: the time covers the
    process and nothing else (through /usr/bin/time, its own start added about 0.7 ms)."""
    with tempfile.TemporaryFile() as err:
        actions = [
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_DUP2, err.fileno(), 2),
        ]
        start = time.perf_counter()
        pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=actions)
        _, status, usage = os.wait4(pid, 0)
        elapsed = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            err.seek(0)
            stderr = err.read().decode("utf-8", "replace")
            sys.exit(f"corpus: {' '.join(cmd)} failed ({code}):\n{stderr[-2000:]}")
    return elapsed, usage.ru_maxrss


def jaxlib_worker(text_path, artifact_path):
    """Times one step per line read from stdin (`serialize` or `deserialize`), printing its seconds."""
    sys.path.insert(0, os.path.join(REPO, "scripts", "oracle"))
    import oracle as oracle_module  # noqa: E402

    oracle = oracle_module.Oracle()
    text = open(text_path, encoding="utf-8").read()
    artifact = open(artifact_path, "rb").read()
    target = oracle.current_version()

    def serialize():
        module = oracle.parse_string(text)
        oracle.strip_debuginfo(module)
        return oracle.serialize(module, target)

    def deserialize():
        return len(oracle.print_module(oracle.deserialize(artifact)))

    steps = {"serialize": serialize, "deserialize": deserialize}
    print("ready", flush=True)
    for line in sys.stdin:
        run = steps[line.strip()]
        start = time.perf_counter()
        run()
        print(time.perf_counter() - start, flush=True)


def spread(values):
    return f"{statistics.median(values):.3f} ({min(values):.3f}..{max(values):.3f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", nargs="?")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--only", default="", help="time only the files whose name contains this")
    parser.add_argument("--jaxlib-worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.jaxlib_worker:
        jaxlib_worker(args.jaxlib_worker[0], args.jaxlib_worker[1])
        return
    if not args.corpus:
        parser.error("CORPUS_DIR is required")

    target_dir = os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target"))
    subprocess.run(["cargo", "build", "--profile", "dist", "-q", "-p", "vhlo-translate"], cwd=REPO, check=True)
    cli = os.path.join(target_dir, "dist", "vhlo-translate")
    names = sorted(n for n in os.listdir(args.corpus) if n.endswith(".mlir") and args.only in n)
    manifest = json.load(open(os.path.join(args.corpus, "manifest.json")))

    print("| program | ops | text MiB | step | vhlo-rs s, median (min..max) | jaxlib s, median (min..max) | speed-up (medians) | goal |")
    print("|---|---:|---:|---|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory(prefix="vhlo-corpus-") as tmp:
        for name in names:
            path = os.path.join(args.corpus, name)
            artifact = os.path.join(tmp, name + ".bc")
            mib = os.path.getsize(path) / (1 << 20)
            ops = manifest.get(name, {}).get("ops", "?")
            if name.startswith("weights-"):
                ser, ser_rss = timed([cli, "--serialize", path, "--target=current", "-o", artifact])
                size = os.path.getsize(artifact)
                rt, rt_rss = timed([cli, "--retarget", artifact, "--target=current", "-o", os.path.join(tmp, "rt.bc")])
                de, de_rss = timed([cli, "--deserialize", artifact, "-o", os.devnull])
                print(
                    f"| {name} | {ops} | {mib:.1f} | artifact {size / (1 << 20):.1f} MiB: serialize {ser:.2f} s "
                    f"({ser_rss / 1024:.0f} MiB), retarget {rt:.2f} s ({rt_rss / 1024:.0f} MiB, "
                    f"{rt_rss * 1024 / size:.2f}x the artifact), deserialize+print {de:.2f} s ({de_rss / 1024:.0f} MiB) | | | | |"
                )
                continue
            ours = {"serialize": [], "deserialize": []}
            theirs = {"serialize": [], "deserialize": []}
            rss = {"serialize": 0, "deserialize": 0}
            # The artifact both sides read: ours, written before the first timed run.
            timed([cli, "--serialize", path, "--target=current", "--strip-debuginfo", "-o", artifact])
            errors = open(os.path.join(tmp, "jaxlib-worker.err"), "w+")
            worker = subprocess.Popen(
                [oracle_python(), os.path.abspath(__file__), "--jaxlib-worker", path, artifact],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, text=True,
            )

            def failed(what):
                errors.seek(0)
                sys.exit(f"corpus: jaxlib worker failed on {name} ({what}):\n{errors.read()[-2000:]}")

            def jaxlib(step):
                worker.stdin.write(step + "\n")
                worker.stdin.flush()
                line = worker.stdout.readline()
                if not line:
                    failed(step)
                return float(line)

            if worker.stdout.readline().strip() != "ready":
                failed("start")
            for _ in range(args.reps):
                t, r = timed([cli, "--serialize", path, "--target=current", "--strip-debuginfo", "-o", artifact])
                ours["serialize"].append(t)
                rss["serialize"] = max(rss["serialize"], r)
                theirs["serialize"].append(jaxlib("serialize"))
                t, r = timed([cli, "--deserialize", artifact, "-o", os.path.join(tmp, "out.mlir")])
                ours["deserialize"].append(t)
                rss["deserialize"] = max(rss["deserialize"], r)
                theirs["deserialize"].append(jaxlib("deserialize"))
            worker.stdin.close()
            worker.wait()
            errors.close()
            for step in ("serialize", "deserialize"):
                ratio = statistics.median(theirs[step]) / statistics.median(ours[step])
                goal = GOALS[step]
                verdict = "met" if ratio >= goal else "missed"
                print(
                    f"| {name} | {ops} | {mib:.1f} | {step} (peak RSS {rss[step] / 1024:.0f} MiB) | {spread(ours[step])} | "
                    f"{spread(theirs[step])} | {ratio:.1f}x | >= {goal:g}x ({verdict}) |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
