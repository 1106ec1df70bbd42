#!/usr/bin/env python3
"""Single-change mutants of JAX's back-compat programs, judged by libStablehlo (jaxlib), for the
differential test of our verifier (tests/tests/verifier/verifier_differential.rs; docs/verification.md).

Run inside the oracle venv (scripts/oracle/setup.sh), one process per phase:

    .venv/bin/python scripts/oracle/mutants.py generate DIR [--per-module N] [--seed S] [--filter F]
                                                       [--fixtures FIXTURE_DIR]... [--kinds K,...]
        For every module text of the jax wheel's back-compat data (scripts/oracle/jax_backcompat.py),
        and every program text NAME.mlir of the fixture directories given (tests/fixtures/jax: ops the
        back-compat data lacks, such as dot_general, convolution, reduce_window, sort, fft, while/case,
        quantized types), parsed by jaxlib, makes up to N (default 8) mutants, each with one change made through the MLIR
        Python API:
          type-dim   one op result's type with one static dimension size changed by +1
          type-elem  one op result's element type changed (f32 -> f16, i32 -> i64, ...)
          type-dyn   one op result's type with one static dimension made dynamic (2 -> ?): ops
                     whose types need only be compatible must accept it
          unranked   one op result's type made unranked (tensor<2x3xf32> -> tensor<*xf32>)
          attr       one integer in one of an op's attributes changed by +1 or -1 (array<i64: ...>,
                     dense<...>, #stablehlo.gather<...>, integer attributes, sdy meshes, ...)
          attr-drop  one of an op's attributes removed (a required one must be refused, naming it)
          attr-kind  one of an op's attributes replaced by a string ("x")
          attr-type  an integer attribute's type changed (i64 -> i32, i32 -> i64)
          operands   two operands of an op, of different types, swapped
          block-arg  one block argument of an op's region with another element type
          rank       one op result's type with its last dimension dropped
          capture    one operand of an op inside a region replaced by the enclosing function's
                     argument of the same type, from outside the region
          op-name    one op renamed: another op of its dialect that jaxlib registers, a name its
                     dialect lacks, or a dialect jaxlib does not register (made in the printed text)
          operand-drop  an op without regions loses its last operand (and its type in the
                     signature; made in the printed text)
          operand-add   an op without regions gets its first operand once more, at the end
        and one control per module (the module unchanged, NAME.orig). Each is printed in generic form without
        verifying (assume_verified) as DIR/NAME.mlir, then parsed by jaxlib (which verifies). The choice
        is seeded by S and the module's name: the same jaxlib makes the same mutants.
        DIR/manifest.tsv: name, source module, kind, op, description, jaxlib's verdict (accept, refuse, or
        crash when jaxlib died on it), jaxlib's first diagnostic. Tabs and newlines in it are escaped.
        DIR/target: jaxlib's current StableHLO version, the newest target it reads artifacts of.

    .venv/bin/python scripts/oracle/mutants.py check DIR
        For each mutant jaxlib accepts and for which vhlo-rs wrote NAME.ours.bc, jaxlib deserializes that
        artifact and prints it generic, without locations, to NAME.ours.jax.mlir, and prints its own parse
        of NAME.mlir the same way to NAME.jax.mlir (or NAME.<suffix>.error): equal texts, same program.
        And what jaxlib's own artifact of NAME.mlir at DIR/target reads back to, printed the same way, to
        NAME.jax_rt.mlir: where ours reads back otherwise than jaxlib parses, it must read back as that
        (a conversion that loses something, such as a channel_handle's type, loses it in both).

The verdicts are taken in a child process (`verdicts DIR`) that appends one line per mutant to
DIR/verdicts.tsv as it goes, so that a crash of jaxlib on one mutant loses only that one: it is recorded
as `crash` and a new child takes up the rest.
"""

import argparse
import collections
import os
import random
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import Oracle, OracleError  # noqa: E402
import jax_backcompat  # noqa: E402

# Element types a result's element type may be changed to: others of the same family.
ELEMENT_FAMILIES = [
    ["f16", "bf16", "f32", "f64"],
    ["i1", "i8", "i16", "i32", "i64"],
    ["ui8", "ui16", "ui32", "ui64"],
    ["complex<f32>", "complex<f64>"],
]

# Attributes nobody verifies (frontend and runtime annotations) or whose every value is valid.
UNCHECKED_PREFIXES = ("mhlo.", "jax.", "xla.", "tf.")
SKIPPED_OPS = ("builtin.module", "func.func", "func.return")

# An integer literal that is a value: not part of a float (1.0e+00), an identifier or a type
# (i64, 2x3xf32, 0x7F). Quoted strings are skipped separately.
INTEGER = re.compile(r"(?<![\w.+\-])-?\d+(?![\w.])")
QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')

MANIFEST_COLUMNS = ["name", "source", "kind", "op", "description", "jaxlib", "message"]


def _escape(text):
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def _unescape(text):
    return re.sub(r"\\(.)", lambda m: {"t": "\t", "n": "\n"}.get(m.group(1), m.group(1)), text)


def _ops(module):
    """Every op of the module in pre-order (the same order for every parse of the same text)."""
    found = []

    def walk(op):
        found.append(op)
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    walk(inner.operation)

    walk(module.operation)
    return found


def _integer_tokens(text):
    """(start, end, value) of each integer value in an attribute's text, outside quoted strings."""
    quoted = [m.span() for m in QUOTED.finditer(text)]
    tokens = []
    for match in INTEGER.finditer(text):
        if any(a <= match.start() < b for a, b in quoted):
            continue
        tokens.append((match.start(), match.end(), int(match.group())))
    return tokens


def _attribute_text(op, name):
    """The attribute's text, or None when the bindings cannot hand it out (dense complex data)."""
    try:
        return str(op.attributes[name])
    except (TypeError, ValueError, RuntimeError, IndexError, KeyError):
        return None


def _candidates(oracle, module):
    """Every single change the module admits: (kind, op index, detail), in a stable order."""
    ir = oracle.ir
    found = []
    for index, op in enumerate(_ops(module)):
        if op.name in SKIPPED_OPS:
            continue
        for r, region in enumerate(op.regions):
            for b, block in enumerate(region.blocks):
                for a, arg in enumerate(block.arguments):
                    try:
                        element = str(ir.RankedTensorType(arg.type).element_type)
                    except (ValueError, TypeError):
                        continue
                    for family in ELEMENT_FAMILIES:
                        if element in family:
                            for other in family:
                                if other != element:
                                    found.append(("block-arg", index, (r, b, a, other)))
        dialect = op.name.split(".")[0]
        for other in _op_names().get(dialect, []) + [f"{dialect}.no_such_op", "no_such_dialect.op"]:
            if other != op.name:
                found.append(("op-name", index, other))
        types = [str(operand.type) for operand in op.operands]
        if types and not len(op.regions):
            found.append(("operand-drop", index, len(types)))
            found.append(("operand-add", index, len(types)))
        function = _enclosing_function(op)
        if function is not None and op.parent.name != "func.func":
            # An operand of an op inside a region taken from outside it: the function's argument
            # of the same type (IsolatedFromAbove ops refuse it).
            arguments = list(function.regions[0].blocks)[0].arguments if function.regions[0].blocks else []
            for i, operand in enumerate(op.operands):
                for a, argument in enumerate(arguments):
                    if str(argument.type) == types[i] and argument != operand:
                        found.append(("capture", index, (i, a)))
                        break
        for i in range(len(types)):
            for j in range(i + 1, len(types)):
                if types[i] != types[j]:
                    found.append(("operands", index, (i, j)))
        for number, result in enumerate(op.results):
            try:
                tensor = ir.RankedTensorType(result.type)
            except (ValueError, TypeError):
                continue
            for dim, size in enumerate(tensor.shape):
                if size >= 0 and not tensor.is_dynamic_dim(dim):
                    found.append(("type-dim", index, (number, dim)))
                    found.append(("type-dyn", index, (number, dim)))
            if tensor.rank > 0:
                found.append(("rank", index, number))
            found.append(("unranked", index, number))
            element = str(tensor.element_type)
            for family in ELEMENT_FAMILIES:
                if element in family:
                    for other in family:
                        if other != element:
                            found.append(("type-elem", index, (number, other)))
        for name in op.attributes:
            if name.startswith(UNCHECKED_PREFIXES) or (op.name == "stablehlo.constant" and name == "value"):
                continue
            found.append(("attr-drop", index, name))
            found.append(("attr-kind", index, name))
            text = _attribute_text(op, name)
            if text is not None and re.fullmatch(r"-?\d+ : i(32|64)", text):
                found.append(("attr-type", index, name))
            text = _attribute_text(op, name)
            if text is None:
                continue
            for token, (_, _, value) in enumerate(_integer_tokens(text)):
                for delta in (1, -1):
                    found.append(("attr", index, (name, token, delta)))
    return found


_OP_NAMES = None


def _op_names():
    """jaxlib's op names by dialect, from its generated Python op classes (`_*_ops_gen.py`)."""
    global _OP_NAMES
    if _OP_NAMES is None:
        import glob

        import jaxlib.mlir.dialects as dialects

        names = set()
        for folder in dialects.__path__:
            for path in glob.glob(os.path.join(folder, "_*_ops_gen.py")):
                with open(path, encoding="utf-8") as handle:
                    names.update(re.findall(r'OPERATION_NAME = "([^"]+)"', handle.read()))
        _OP_NAMES = {}
        for name in sorted(names):
            _OP_NAMES.setdefault(name.split(".")[0], []).append(name)
    return _OP_NAMES


# The start of an op in the generic form: one a line, in pre-order (the order of `_ops`).
OP_START = re.compile(r'^(\s*(?:%[^=\n]* = )?)"([^"]+)"(?=\()', re.M)


def _renamed(module, index, old, name):
    """The module's generic text with its `index`-th op (pre-order), named `old`, named `name`."""
    text = _print_unverified(module)
    starts = list(OP_START.finditer(text))
    if index >= len(starts) or starts[index].group(2) != old:
        return None
    match = starts[index]
    return text[: match.start(2)] + name + text[match.end(2) :]


def _top_level_split(text, separator):
    """`text` split at each `separator` outside brackets and quoted strings (an arrow `->` is no
    bracket)."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif text.startswith("->", i):
            i += 1
        elif c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        elif depth == 0 and text.startswith(separator, i):
            parts.append(text[start:i])
            start = i + len(separator)
            i = start
            continue
        i += 1
    parts.append(text[start:])
    return parts


def _operands_changed(module, index, name, count, drop):
    """The module's generic text with the `index`-th op (no regions, `count` operands) given one
    operand fewer (the last) or one more (the first again), its signature changed alike."""
    text = _print_unverified(module)
    starts = list(OP_START.finditer(text))
    if index >= len(starts) or starts[index].group(2) != name:
        return None
    match = starts[index]
    end = text.find("\n", match.end())
    line = text[match.end(2) + 1 : end]
    # `(operands) <{props}> {attrs} : (inputs) -> results`
    closing = line.find(")")
    operands = [o.strip() for o in line[1:closing].split(",")] if closing > 1 else []
    parts = _top_level_split(line[closing + 1 :], " : ")
    if len(operands) != count or len(parts) != 2:
        return None
    signature = parts[1]
    arrow = _top_level_split(signature, " -> ")
    if len(arrow) != 2 or not (arrow[0].startswith("(") and arrow[0].endswith(")")):
        return None
    inputs = [t.strip() for t in _top_level_split(arrow[0][1:-1], ",")]
    if len(inputs) != count:
        return None
    if drop:
        operands, inputs = operands[:-1], inputs[:-1]
    else:
        operands, inputs = operands + operands[:1], inputs + inputs[:1]
    changed = f"({', '.join(operands)}){parts[0]} : ({', '.join(inputs)}) -> {arrow[1]}"
    return text[: match.end(2) + 1] + changed + text[end:]


def _enclosing_function(op):
    """The `func.func` around `op` (not itself), or None."""
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        parent = parent.parent
    return parent


def _choose(candidates, rng):
    """The candidates in the order to try them: taking turns between the kinds (attr, attr-drop,
    attr-kind, attr-type, block-arg, operands, rank, type-dim, type-elem), and within a kind between op names, so that the few ops of a rare name are as likely
    to be mutated as the many broadcasts."""
    strata = {}
    for candidate in candidates:
        strata.setdefault((candidate[0], candidate[3]), []).append(candidate)
    kinds = {}
    for key in sorted(strata):
        rng.shuffle(strata[key])
        kinds.setdefault(key[0], []).append(strata[key])
    order = sorted(kinds)
    rng.shuffle(order)
    queues = []
    for kind in order:
        rng.shuffle(kinds[kind])
        queues.append(collections.deque(kinds[kind]))
    chosen = []
    while any(queues):
        for queue in queues:
            if queue:
                members = queue.popleft()
                chosen.append(members.pop())
                if members:
                    queue.append(members)
    return chosen


def _apply(oracle, module, candidate):
    """Applies one change to a freshly parsed module; returns (op name, description) or None when the
    changed value cannot be built (the attribute's own checks refuse it)."""
    ir = oracle.ir
    kind, index, detail, _ = candidate
    op = _ops(module)[index]
    with oracle.context:
        if kind == "op-name":
            # The bindings cannot rename an op: the printed text is changed.
            text = _renamed(module, index, op.name, detail)
            if text is None:
                return None
            return op.name, f"renamed {detail}", text
        if kind in ("operand-drop", "operand-add"):
            drop = kind == "operand-drop"
            text = _operands_changed(module, index, op.name, detail, drop)
            if text is None:
                return None
            return op.name, "last operand removed" if drop else "first operand added again", text
        if kind in ("type-dim", "type-elem", "type-dyn"):
            number = detail[0]
            result = op.results[number]
            old = ir.RankedTensorType(result.type)
            shape = list(old.shape)
            element = old.element_type
            if kind == "type-dim":
                shape[detail[1]] += 1
            elif kind == "type-dyn":
                shape[detail[1]] = ir.ShapedType.get_dynamic_size()
            else:
                element = ir.Type.parse(detail[1])
            new = ir.RankedTensorType.get(shape, element, old.encoding, loc=ir.Location.unknown())
            result.set_type(new)
            return op.name, f"result {number}: {old} -> {new}"
        if kind == "attr-drop":
            del op.attributes[detail]
            return op.name, f"{detail} removed"
        if kind == "attr-type":
            text = _attribute_text(op, detail)
            value, width = text.split(" : i")
            other = "i32" if width == "64" else "i64"
            op.attributes[detail] = ir.Attribute.parse(f"{value} : {other}")
            return op.name, f"{detail}: {text} -> {value} : {other}"
        if kind == "attr-kind":
            op.attributes[detail] = ir.StringAttr.get("x")
            return op.name, f'{detail} -> "x"'
        if kind == "block-arg":
            r, b, a, other = detail
            arg = list(op.regions[r].blocks)[b].arguments[a]
            old = ir.RankedTensorType(arg.type)
            new = ir.RankedTensorType.get(list(old.shape), ir.Type.parse(other), old.encoding, loc=ir.Location.unknown())
            arg.set_type(new)
            return op.name, f"region {r} block {b} argument {a}: {old} -> {new}"
        if kind == "unranked":
            result = op.results[detail]
            old = ir.RankedTensorType(result.type)
            new = ir.UnrankedTensorType.get(old.element_type, loc=ir.Location.unknown())
            result.set_type(new)
            return op.name, f"result {detail}: {old} -> {new}"
        if kind == "rank":
            result = op.results[detail]
            old = ir.RankedTensorType(result.type)
            new = ir.RankedTensorType.get(list(old.shape)[:-1], old.element_type, None, loc=ir.Location.unknown())
            result.set_type(new)
            return op.name, f"result {detail}: {old} -> {new}"
        if kind == "capture":
            i, a = detail
            function = _enclosing_function(op)
            argument = list(function.regions[0].blocks)[0].arguments[a]
            op.operands[i] = argument
            return op.name, f"operand {i} -> the function's argument {a}, from outside the region"
        if kind == "operands":
            i, j = detail
            a, b = op.operands[i], op.operands[j]
            op.operands[i] = b
            op.operands[j] = a
            return op.name, f"operands {i} and {j} swapped"
        name, token, delta = detail
        text = _attribute_text(op, name)
        start, end, value = _integer_tokens(text)[token]
        changed = f"{text[:start]}{value + delta}{text[end:]}"
        try:
            attribute = ir.Attribute.parse(changed)
        except (ir.MLIRError, ValueError, RuntimeError):
            oracle.take_diagnostics()
            return None
        op.attributes[name] = attribute
        return op.name, f"{name}: {text} -> {changed}"


def _print_unverified(module):
    return module.operation.get_asm(print_generic_op_form=True, enable_debug_info=False, assume_verified=True)


def _fixture_texts(fixtures, name_filter):
    """(name, text) of each program text in fixture directories (NAME.mlir, not NAME.generic.mlir),
    named after the directory: `jax.attention`, `jax_mesh.shard_map_psum`."""
    for fixture_dir in fixtures:
        prefix = os.path.basename(os.path.normpath(fixture_dir))
        for entry in sorted(os.listdir(fixture_dir)):
            if not entry.endswith(".mlir") or entry.endswith(".generic.mlir"):
                continue
            name = f"{prefix}.{entry[: -len('.mlir')]}"
            if name_filter and name_filter not in name:
                continue
            with open(os.path.join(fixture_dir, entry), encoding="utf-8") as handle:
                yield name, handle.read()


def generate(directory, per_module, seed, name_filter, fixtures=(), kinds=None):
    oracle = Oracle()
    os.makedirs(directory, exist_ok=True)
    # The version to write artifacts at for `check`: the newest this jaxlib reads.
    with open(os.path.join(directory, "target"), "w", encoding="utf-8") as handle:
        handle.write(oracle.current_version() + "\n")
    rows = []
    cases = [(case, text) for case, _artifact, text, _source in jax_backcompat._cases(name_filter)]
    cases.extend(_fixture_texts(fixtures, name_filter))
    for case, text in cases:
        try:
            original = oracle.parse_string(text, case)
        except OracleError:
            continue  # jaxlib refuses the corpus text itself: nothing to mutate
        rows.append((f"{case}.orig", case, "control", "-", "unchanged", _print_unverified(original)))
        rng = random.Random(f"{seed}:{case}")
        candidates = [
            c + (_ops(original)[c[1]].name,)
            for c in _candidates(oracle, original)
            if kinds is None or c[0] in kinds
        ]
        made = 0
        for candidate in _choose(candidates, rng):
            if made == per_module:
                break
            module = oracle.parse_string(text, case)
            applied = _apply(oracle, module, candidate)
            if applied is None:
                continue
            op_name, description, *changed_text = applied
            mutant = changed_text[0] if changed_text else _print_unverified(module)
            rows.append((f"{case}.m{made}", case, candidate[0], op_name, description, mutant))
            made += 1
    for name, *_rest, mutant in rows:
        with open(os.path.join(directory, name + ".mlir"), "w", encoding="utf-8") as handle:
            handle.write(mutant)
    with open(os.path.join(directory, "mutants.txt"), "w", encoding="utf-8") as handle:
        handle.writelines(name + "\n" for name, *_ in rows)
    verdicts = _verdicts_in_children(directory, [row[0] for row in rows])
    with open(os.path.join(directory, "manifest.tsv"), "w", encoding="utf-8") as handle:
        handle.write("\t".join(MANIFEST_COLUMNS) + "\n")
        for name, source, kind, op_name, description, _ in rows:
            verdict, message = verdicts.get(name, ("crash", "jaxlib gave no verdict"))
            fields = [name, source, kind, op_name, description, verdict, message]
            handle.write("\t".join(_escape(f) for f in fields) + "\n")
    counts = {}
    for name, _, kind, *_ in rows:
        verdict = verdicts.get(name, ("crash",))[0]
        counts[(kind, verdict)] = counts.get((kind, verdict), 0) + 1
    summary = ", ".join(f"{kind} {verdict}: {n}" for (kind, verdict), n in sorted(counts.items()))
    sys.stderr.write(f"mutants.py: {len(rows)} programs ({summary})\n")


def _read_verdicts(path):
    found = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                fields = line.rstrip("\n").split("\t")
                if len(fields) == 3:
                    found[fields[0]] = (fields[1], _unescape(fields[2]))
    return found


# A child that gives no verdict for this long hangs (jaxlib 0.10.2 deadlocks on some mutants
# of shape.function_library); it is killed, and the mutant recorded as a crash.
HANG_SECONDS = 60


def _watch(child, path):
    """Waits for `child`, killing it once it has written no verdict for HANG_SECONDS; True if
    it was killed so."""
    last, since = -1, time.monotonic()
    while child.poll() is None:
        size = os.path.getsize(path) if os.path.exists(path) else 0
        if size != last:
            last, since = size, time.monotonic()
        elif time.monotonic() - since > HANG_SECONDS:
            child.kill()
            child.wait()
            return True
        time.sleep(0.2)
    return False


def _verdicts_in_children(directory, names):
    """jaxlib's verdict on each mutant, from child processes (`verdicts`), restarted after a crash."""
    path = os.path.join(directory, "verdicts.tsv")
    if os.path.exists(path):
        os.remove(path)
    while True:
        done = _read_verdicts(path)
        pending = [n for n in names if n not in done]
        if not pending:
            return done
        # Its errors go to a file: a full pipe would stall it.
        with tempfile.TemporaryFile() as errors:
            child = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "verdicts", directory, pending[0]],
                stdout=subprocess.DEVNULL,
                stderr=errors,
            )
            hung = _watch(child, path)
            errors.seek(0)
            why = errors.read().decode("utf-8", "replace").strip()
        if child.returncode == 0:
            continue
        if child.returncode > 0:
            # A Python error (not a crash of jaxlib): a bug here, not a verdict.
            raise SystemExit(f"mutants.py verdicts failed (status {child.returncode}):\n{why}")
        # Killed by a signal on the first mutant it had not finished: record it and carry on after it.
        done = _read_verdicts(path)
        crashed = next((n for n in pending if n not in done), None)
        if crashed is None:
            continue
        last = why.splitlines()[-1:]
        if hung:
            message = f"jaxlib gave no verdict in {HANG_SECONDS} s (killed)"
        else:
            message = f"jaxlib died of signal {-child.returncode}" + (f": {last[0]}" if last else "")
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"{crashed}\tcrash\t{_escape(message)}\n")


def verdicts(directory, first):
    """Parses (and so verifies) each mutant from `first` on, appending `name verdict message` lines."""
    oracle = Oracle()
    with open(os.path.join(directory, "mutants.txt"), encoding="utf-8") as handle:
        names = [line.strip() for line in handle if line.strip()]
    names = names[names.index(first):]
    with open(os.path.join(directory, "verdicts.tsv"), "a", encoding="utf-8") as out:
        for name in names:
            with open(os.path.join(directory, name + ".mlir"), encoding="utf-8") as handle:
                text = handle.read()
            oracle.take_diagnostics()
            try:
                oracle.parse_string(text, name)
                verdict, message = "accept", ""
            except OracleError as error:
                errors = [d for d in error.diagnostics if d.severity == "error"] or error.diagnostics
                verdict = "refuse"
                message = errors[0].message if errors else str(error)
            out.write(f"{name}\t{verdict}\t{_escape(' '.join(message.split()))}\n")
            out.flush()


def read_manifest(directory):
    with open(os.path.join(directory, "manifest.tsv"), encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    return [dict(zip(MANIFEST_COLUMNS, (_unescape(f) for f in line.split("\t")))) for line in lines[1:] if line]


def check(directory):
    oracle = Oracle()
    with open(os.path.join(directory, "target"), encoding="utf-8") as handle:
        target = handle.read().strip()
    for row in read_manifest(directory):
        base = os.path.join(directory, row["name"])
        if row["jaxlib"] != "accept" or not os.path.exists(base + ".ours.bc"):
            continue
        with open(base + ".ours.bc", "rb") as handle:
            artifact = handle.read()
        jax_backcompat._write_text_or_error(
            oracle, base + ".ours.jax.mlir", lambda: oracle.print_module(oracle.deserialize(artifact), True)
        )
        with open(base + ".mlir", encoding="utf-8") as handle:
            text = handle.read()
        jax_backcompat._write_text_or_error(
            oracle, base + ".jax.mlir", lambda: oracle.print_module(oracle.parse_string(text, row["name"]), True)
        )

        def own_round_trip():
            module = oracle.parse_string(text, row["name"])
            own = oracle.serialize(module, target, allow_other_dialects="sdy." in text)
            return oracle.print_module(oracle.deserialize(own), True)

        jax_backcompat._write_text_or_error(oracle, base + ".jax_rt.mlir", own_round_trip)


def main(argv):
    parser = argparse.ArgumentParser(prog="mutants.py", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    gen = commands.add_parser("generate", help="make the mutants and jaxlib's verdicts")
    gen.add_argument("directory")
    gen.add_argument("--per-module", type=int, default=8)
    gen.add_argument("--seed", default="29")
    gen.add_argument("--filter", default="", help="only modules whose name contains this")
    gen.add_argument("--kinds", default="", help="only these kinds of change, comma-separated")
    gen.add_argument(
        "--fixtures",
        action="append",
        default=[],
        help="also the program texts (NAME.mlir) of this fixture directory, e.g. tests/fixtures/jax",
    )
    chk = commands.add_parser("check", help="jaxlib reads back vhlo-rs's artifacts of accepted mutants")
    chk.add_argument("directory")
    ver = commands.add_parser("verdicts", help="(internal) jaxlib's verdicts from one mutant on")
    ver.add_argument("directory")
    ver.add_argument("first")
    args = parser.parse_args(argv)
    if args.command == "generate":
        kinds = set(args.kinds.split(",")) if args.kinds else None
        generate(args.directory, args.per_module, args.seed, args.filter, args.fixtures, kinds)
    elif args.command == "check":
        check(args.directory)
    else:
        verdicts(args.directory, args.first)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
