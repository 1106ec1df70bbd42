"""Against jaxlib 0.10.2 in the same process: the jax wheel's back-compat corpus, a jax.export
round trip, requirement answers and error verdicts."""

import dataclasses
import os

import pytest

import vhlo
from conftest import need, suite_dir


def asm(module, debug_info=True):
    return module.operation.get_asm(print_generic_op_form=True, enable_debug_info=debug_info)


def test_versions_match(hlo):
    assert vhlo.get_minimum_version() == hlo.get_minimum_version()
    assert vhlo.get_smaller_version(vhlo.get_current_version(), hlo.get_current_version()) == hlo.get_current_version()
    pairs = [("1.0.0", "0.9.0"), ("1.10.0", "1.9.3"), ("1.2.3", "1.2.3"), ("2.0.0", "1.99.99")]
    for a, b in pairs:
        assert vhlo.get_smaller_version(a, b) == hlo.get_smaller_version(a, b)
    for a, b in [("1.2", "1.0.0"), ("x", "1.0.0"), ("1.0.0.0", "1.0.0")]:
        with pytest.raises(ValueError):
            hlo.get_smaller_version(a, b)
        with pytest.raises(vhlo.VhloError):
            vhlo.get_smaller_version(a, b)


def test_requirements_match(hlo):
    """jaxlib's hard-coded anchors, from the dates, on the day they were computed; jaxlib's own
    enum members are accepted."""
    for name in ("WEEK_4", "WEEK_12", "MAX"):
        theirs = hlo.get_version_from_compatibility_requirement(getattr(hlo.StablehloCompatibilityRequirement, name))
        ours = vhlo.get_version_from_compatibility_requirement(
            getattr(hlo.StablehloCompatibilityRequirement, name), as_of="2026-05-01"
        )
        assert ours == theirs, name
    assert vhlo.get_version_from_compatibility_requirement(hlo.StablehloCompatibilityRequirement.NONE) == vhlo.get_current_version()


def test_corpus(hlo, ctx, corpus):
    """Every artifact of JAX's back-compat corpus: deserialized, our plain bytecode reads in
    jaxlib as jaxlib's own reading; the text serialized at the artifact's version (and at 0.9.0
    and jaxlib's current version) gets jaxlib's verdict, and jaxlib reads our artifact as its
    own; retargeted to its version, jaxlib reads it as the original."""
    from jaxlib.mlir import ir

    failures = []
    counts = {"deserialize": 0, "serialize": 0, "refused by both": 0, "retarget": 0}
    with ctx:
        for name, artifact, text in corpus:
            reference = asm(hlo.deserialize_portable_artifact(ctx, artifact))
            ours = asm(ir.Module.parse(vhlo.deserialize_portable_artifact_str(artifact)))
            if ours == reference:
                counts["deserialize"] += 1
            else:
                failures.append(f"{name}: deserialize differs")
            info = vhlo.inspect(artifact)
            own = info["target_version"] or "0.9.0"
            other = "sdy." in text
            for target in sorted({own, "0.9.0", hlo.get_current_version()}):
                try:
                    theirs = hlo.serialize_portable_artifact(ir.Module.parse(text), target, other)
                except Exception:  # jaxlib raises ValueError or MLIRError
                    theirs = None
                try:
                    mine = vhlo.serialize_portable_artifact_str(text, target, other)
                except vhlo.VhloError as error:
                    mine, why = None, str(error)
                if (theirs is None) != (mine is None):
                    failures.append(
                        f"{name} at {target}: jaxlib {'refuses' if theirs is None else 'accepts'}, "
                        f"we {'refuse: ' + why[:300] if mine is None else 'accept'}"
                    )
                elif mine is None:
                    counts["refused by both"] += 1
                elif asm(hlo.deserialize_portable_artifact(ctx, mine)) == asm(hlo.deserialize_portable_artifact(ctx, theirs)):
                    counts["serialize"] += 1
                else:
                    failures.append(f"{name} at {target}: jaxlib reads our artifact differently from its own")
            retargeted = vhlo.retarget(artifact, own)
            if asm(hlo.deserialize_portable_artifact(ctx, retargeted)) == reference:
                counts["retarget"] += 1
            else:
                failures.append(f"{name}: retargeted to {own}, jaxlib reads it differently")
    print(f"\ncorpus of {len(corpus)}: {counts}")
    assert not failures, "\n".join(failures[:30])
    assert counts["deserialize"] == len(corpus) and counts["retarget"] == len(corpus)


def _previous_minor(version):
    major, minor, _ = (int(p) for p in version.split("."))
    if minor > 0:
        return f"{major}.{minor - 1}.0"
    return "0.20.0" if major == 1 else None


def test_minimum_versions_match(hlo, ctx, corpus):
    """minimum_version of each corpus text is where jaxlib's verdict turns: jaxlib writes it at
    our minimum and refuses the release before."""
    from jaxlib.mlir import ir

    wrong = []
    with ctx:
        for name, _, text in corpus:
            other = "sdy." in text
            ours = vhlo.minimum_version(text, other)
            before = _previous_minor(ours)

            def accepts(target):
                try:
                    hlo.serialize_portable_artifact(ir.Module.parse(text), target, other)
                    return True
                except Exception:  # ValueError or MLIRError
                    return False

            if not accepts(ours):
                wrong.append(f"{name}: jaxlib refuses our minimum {ours}")
            elif before and accepts(before):
                wrong.append(f"{name}: jaxlib also writes it at {before}, below our minimum {ours}")
    assert not wrong, "\n".join(wrong[:20])


INVALID = [
    # The add's result type is not its operands'.
    "func.func @main(%x: tensor<2xf32>) -> tensor<3xf32> {\n"
    "  %0 = stablehlo.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>\n"
    "  return %0 : tensor<3xf32>\n}\n",
    # The return does not match the signature.
    "func.func @main(%x: tensor<2xf32>) -> tensor<2xi32> {\n  return %x : tensor<2xf32>\n}\n",
    # A value used before it is defined.
    "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
    "  %0 = stablehlo.add %1, %x : tensor<2xf32>\n  %1 = stablehlo.abs %x : tensor<2xf32>\n"
    "  return %0 : tensor<2xf32>\n}\n",
]


def test_verify_matches_jaxlib(ctx, corpus):
    """verify accepts every corpus text (jaxlib parses, and so verifies, each) and refuses what
    jaxlib's verifier refuses."""
    from jaxlib.mlir import ir

    with ctx:
        for name, _, text in corpus:
            vhlo.verify(text)
        for text in INVALID:
            with pytest.raises(Exception):
                ir.Module.parse(text)
            with pytest.raises(vhlo.VhloError) as info:
                vhlo.verify(text)
            assert info.value.diagnostics, text


def test_string_api_matches_on_the_corpus(hlo, corpus):
    """jaxlib's own string functions, where they apply (no Shardy: their context has no sdy):
    the bytes jaxlib returns for our artifact equal those it returns for its own."""
    checked = 0
    for name, artifact, text in corpus:
        if "sdy." in text:
            continue
        target = vhlo.inspect(artifact)["target_version"] or "0.9.0"
        theirs = hlo.serialize_portable_artifact_str(text, target)
        ours = vhlo.serialize_portable_artifact_str(text, target)
        assert hlo.deserialize_portable_artifact_str(ours) == hlo.deserialize_portable_artifact_str(theirs), name
        assert hlo.deserialize_portable_artifact_str(vhlo.deserialize_portable_artifact_str(artifact)) == (
            hlo.deserialize_portable_artifact_str(artifact)
        ), name
        checked += 1
    assert checked >= 50


def test_jax_export_round_trip(hlo, ctx):
    """A program exported with jax.export: we read its module, write it at the export's target,
    and jaxlib reads ours as the same module; JAX then runs the exported function with ours."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import export
    from jaxlib.mlir import ir

    def f(x, w):
        return jnp.tanh(x @ w).sum(axis=0) + jnp.cumsum(x[:, 0])

    args = (jax.ShapeDtypeStruct((4, 3), jnp.float32), jax.ShapeDtypeStruct((3, 4), jnp.float32))
    exported = export.export(jax.jit(f))(*args)
    original = exported.mlir_module_serialized
    target = vhlo.inspect(original)["target_version"]
    assert target, "jax.export names its target in the producer"
    text = vhlo.deserialize_portable_artifact_to_text(original, debug_info=True)
    ours = vhlo.serialize_portable_artifact_str(text, target)
    assert vhlo.inspect(ours)["target_version"] == target
    with ctx:
        assert asm(hlo.deserialize_portable_artifact(ctx, ours)) == asm(hlo.deserialize_portable_artifact(ctx, original))
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    w = np.ones((3, 4), dtype=np.float32) / 3
    ours_exported = dataclasses.replace(exported, mlir_module_serialized=ours)
    np.testing.assert_allclose(ours_exported.call(x, w), f(x, w), rtol=1e-6)


def test_errors_match_jaxlib_verdicts(hlo, capfd):
    tan = "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n %0 = stablehlo.tan %x : tensor<f32>\n return %0 : tensor<f32>\n}"
    with pytest.raises(ValueError):
        hlo.serialize_portable_artifact_str(tan, "1.0.0")
    jaxlib_stderr = capfd.readouterr().err
    with pytest.raises(vhlo.VhloError) as info:
        vhlo.serialize_portable_artifact_str(tan, "1.0.0")
    # jaxlib prints `loc("-":2:7): error: failed to legalize operation 'vhlo.tan_v2' ...`; we
    # name the op the program wrote.
    assert f"loc({info.value.location})" in jaxlib_stderr
    assert "'vhlo.tan_v2'" in jaxlib_stderr
    assert info.value.op == "stablehlo.tan"
    assert info.value.needs == "1.4.0"
    artifact = hlo.serialize_portable_artifact_str(tan, "1.4.0")
    for broken in (artifact[: len(artifact) // 2], b"\xff\xfe\x00garbage"):
        with pytest.raises(ValueError):
            hlo.deserialize_portable_artifact_str(broken)
        with pytest.raises(vhlo.VhloError):
            vhlo.deserialize_portable_artifact_str(broken)
    with pytest.raises(ValueError):
        hlo.serialize_portable_artifact_str(b"\xff\xfe", "1.0.0")
    with pytest.raises(vhlo.VhloError) as info:
        vhlo.serialize_portable_artifact_str(b"\xff\xfe", "1.0.0")
    assert info.value.kind == "parse"


def test_suite_program(hlo, ctx):
    """A program of the upstream compatibility suite, both ways, against jaxlib."""
    from jaxlib.mlir import ir

    path = os.path.join(suite_dir(), "stablehlo_legalize_to_vhlo.1_4_0.mlir")
    need(os.path.exists(path), f"the upstream suite is not at {suite_dir()} (set VHLO_COMPAT_SUITE)")
    source = open(path, encoding="utf-8").read()
    ours = vhlo.serialize_portable_artifact_str(source, "1.4.0")
    with ctx:
        theirs = hlo.serialize_portable_artifact_str(source, "1.4.0")
        assert hlo.deserialize_portable_artifact_str(ours) == hlo.deserialize_portable_artifact_str(theirs)
        with open(path + ".bc", "rb") as handle:
            upstream = handle.read()
        assert vhlo.deserialize_portable_artifact_to_text(upstream, generic=True) == vhlo.deserialize_portable_artifact_to_text(
            ours, generic=True
        )
