#!/usr/bin/env python3
"""jaxlib's side of the mixed-dialect differential test (tests/tests/dialects/dialects_differential.rs).

    .venv/bin/python scripts/oracle/dialects_diff.py CASES.json TARGET

CASES.json is a list of {"name", "src", "ours_print", "ours_generic" (null where we refused the source),
"ours_artifacts": {"plain": PATH|null, "allow": PATH|null}}: the source text, our print of it, and
the artifacts we wrote for TARGET without and with allow_other_dialects (null where we refused).
Prints one line per case and check, `name<TAB>check<TAB>ok` or `name<TAB>check<TAB>differs: ...`:
- print: jaxlib parses our print to the module it parses the source to (or refuses both);
- print-exact (where we read the source): our print is jaxlib's print of the source;
- print-generic-exact (likewise): our generic print is jaxlib's;
- serialize-plain, serialize-allow: jaxlib's serialize_portable_artifact succeeds exactly when ours did;
- read-plain, read-allow (where both wrote one): jaxlib reads ours to what it reads from its own.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402


def main():
    cases = json.load(open(sys.argv[1]))
    o = oracle.Oracle()
    st = o.stablehlo
    target = sys.argv[2]

    def parse_print(text, generic=False):
        try:
            with o.context:
                return o.ir.Module.parse(text).operation.get_asm(print_generic_op_form=generic)
        except Exception as e:  # MLIRError: a refusal is a result here
            o.take_diagnostics()
            return "error: " + str(e).splitlines()[0]

    def read_print(data):
        try:
            return st.deserialize_portable_artifact(o.context, oracle._aligned(data)).operation.get_asm()
        except Exception as e:
            o.take_diagnostics()
            return "error: " + str(e).splitlines()[0]

    def line(name, check, ours, theirs):
        verdict = "ok" if ours == theirs else "differs: ours %r, jaxlib %r" % (ours[:300], theirs[:300])
        print("%s\t%s\t%s" % (name, check, verdict.replace("\n", "\\n").replace("\t", " ")))

    for case in cases:
        name = case["name"]
        src_print = parse_print(case["src"])
        if case["ours_print"] is None:
            line(name, "print", "refused", "refused" if src_print.startswith("error:") else src_print)
        else:
            line(name, "print", parse_print(case["ours_print"]), src_print)
            # Our print is jaxlib's print of the source, byte for byte.
            line(name, "print-exact", case["ours_print"], src_print)
            # In generic form too (each default-valued attribute is there).
            line(name, "print-generic-exact", case["ours_generic"], parse_print(case["src"], True))
        for key, allow in (("plain", False), ("allow", True)):
            try:
                with o.context:
                    m = o.ir.Module.parse(case["src"])
                    own = bytes(st.serialize_portable_artifact(m, target, allow))
            except Exception:
                o.take_diagnostics()
                own = None
            path = case["ours_artifacts"].get(key)
            line(name, "serialize-" + key, "writes" if path else "refuses", "writes" if own else "refuses")
            if own is not None and path:
                line(name, "read-" + key, read_print(open(path, "rb").read()), read_print(own))


if __name__ == "__main__":
    main()
