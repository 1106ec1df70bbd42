#!/usr/bin/env python3
"""A small lit: runs the RUN lines of StableHLO test files with the oracle (or another implementation)
standing in for stablehlo-opt / stablehlo-translate, and our Rust filecheck for FileCheck.

    .venv/bin/python scripts/oracle/lit.py [--filecheck BIN] [--stablehlo-translate CMD]
                                           [--stablehlo-opt CMD] [-v] FILE...

Each file passes when every RUN line exits 0 (lit's pipefail semantics; `not` inverts a command's exit).
`%if asserts %{ ... %}` lines need an asserts build of LLVM and are skipped, as lit would on a release build.
A file whose name carries a version newer than the oracle's (X_Y_Z) is reported UNSUPPORTED.
Ends with "N passed, N failed" (and the unsupported count); exits 1 if any failed.

--stablehlo-translate lets another translator (e.g. vhlo-translate, once it speaks the same flags) run the
same RUN lines, which makes the upstream lit suite a differential test against libStablehlo.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
ORACLE = os.path.join(HERE, "oracle.py")


def run_lines(text):
    """RUN: commands with `\\` continuations joined, as (line number, command)."""
    commands, pending, start = [], None, 0
    for number, line in enumerate(text.splitlines(), 1):
        match = re.search(r"(?<![\w-])RUN:(.*)$", line)
        if not match:
            continue
        part = match.group(1).strip()
        continues = part.endswith("\\")
        part = part[:-1].rstrip() if continues else part
        if pending is None:
            pending, start = part, number
        else:
            pending = f"{pending} {part}".strip()
        if not continues:
            commands.append((start, pending))
            pending = None
    if pending is not None:
        commands.append((start, pending))
    return commands


def file_version(path):
    match = re.search(r"\.(\d+)_(\d+)_(\d+)\.mlir$", path)
    return tuple(int(g) for g in match.groups()) if match else None


def default_filecheck():
    candidates = []
    if os.environ.get("CARGO_TARGET_DIR"):
        candidates.append(os.path.join(os.environ["CARGO_TARGET_DIR"], "debug", "filecheck"))
    candidates.append(os.path.join(REPO_ROOT, "target", "debug", "filecheck"))
    for candidate in candidates:
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def substitute(command, path, temp_base, tools):
    """lit's %s, %t, %S plus tool names replaced by the commands standing in for them."""
    command = command.replace("%s", shlex.quote(path)).replace("%t", shlex.quote(temp_base))
    command = command.replace("%S", shlex.quote(os.path.dirname(path)))
    for name, replacement in tools.items():
        command = re.sub(rf"(?<![\w./-]){re.escape(name)}(?![\w-])", lambda _: replacement, command)
    return command


def run_file(path, tools, verbose):
    """('PASS'|'FAIL'|'UNSUPPORTED', details)."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    commands = run_lines(text)
    if not commands:
        return "UNSUPPORTED", "no RUN lines"
    with tempfile.TemporaryDirectory() as scratch:
        temp_base = os.path.join(scratch, "t")
        ran = 0
        for line, command in commands:
            if "%if" in command:
                continue  # %if asserts %{ ... %}: only on asserts builds of LLVM
            shell = "not() { ! \"$@\"; }\n" + substitute(command, path, temp_base, tools)
            result = subprocess.run(
                ["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True, errors="replace"
            )
            ran += 1
            if verbose:
                print(f"  RUN at line {line}: exit {result.returncode}")
            if result.returncode != 0:
                output = (result.stdout + result.stderr).strip().splitlines()
                excerpt = "\n".join("    " + l for l in output[:25])
                return "FAIL", f"RUN at line {line} exited {result.returncode}: {command}\n{excerpt}"
        if ran == 0:
            return "UNSUPPORTED", "every RUN line needs an asserts build"
    return "PASS", ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--filecheck", help="FileCheck stand-in (default: target/debug/filecheck)")
    parser.add_argument("--stablehlo-translate", help="command standing in for stablehlo-translate")
    parser.add_argument("--stablehlo-opt", help="command standing in for stablehlo-opt")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()

    filecheck = args.filecheck or default_filecheck()
    if not filecheck:
        sys.exit("lit.py: no filecheck binary: run `cargo build -p filecheck` or pass --filecheck")
    python = shlex.quote(sys.executable)
    tools = {
        "stablehlo-translate": args.stablehlo_translate or f"{python} {shlex.quote(ORACLE)} stablehlo-translate",
        "stablehlo-opt": args.stablehlo_opt or f"{python} {shlex.quote(ORACLE)} stablehlo-opt",
        "FileCheck": shlex.quote(os.path.abspath(filecheck)),
    }
    current = subprocess.run(
        [sys.executable, ORACLE, "version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    current = tuple(int(p) for p in current.split("."))

    counts = {"PASS": 0, "FAIL": 0, "UNSUPPORTED": 0}
    for path in args.files:
        version = file_version(path)
        if version is not None and version > current:
            status, details = "UNSUPPORTED", f"needs StableHLO {'.'.join(map(str, version))}"
        else:
            status, details = run_file(os.path.abspath(path), tools, args.verbose)
        counts[status] += 1
        print(f"{status}: {path}" + (f" ({details})" if status == "UNSUPPORTED" else ""))
        if status == "FAIL":
            print(details)
    print(f"{counts['PASS']} passed, {counts['FAIL']} failed, {counts['UNSUPPORTED']} skipped")
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
