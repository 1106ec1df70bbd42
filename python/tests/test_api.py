"""The package on its own: every function, its errors, the stubs, the GIL."""

import datetime
import os
import threading
import time

import pytest

import vhlo

ADD = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""

TAN = """func.func @main(%x: tensor<f32>) -> tensor<f32> {
 %0 = stablehlo.tan %x : tensor<f32>
 return %0 : tensor<f32>
}
"""


def test_versions():
    assert vhlo.get_api_version() >= 1
    assert vhlo.get_minimum_version() == "0.9.0"
    current = vhlo.get_current_version()
    assert vhlo.get_smaller_version(current, "1.0.0") == "1.0.0"
    assert vhlo.get_smaller_version("1.10.0", "1.9.3") == "1.9.3"
    with pytest.raises(vhlo.VhloError) as info:
        vhlo.get_smaller_version("1.10", "1.0.0")
    assert isinstance(info.value, ValueError)
    assert info.value.kind == "version"


def test_requirements_from_dates():
    R = vhlo.StablehloCompatibilityRequirement
    # jaxlib 0.10.2's anchors were computed on 2026-05-01.
    for as_of in ("2026-05-01", datetime.date(2026, 5, 1), 1777593600, "2026-05-01T00:00:00Z"):
        assert vhlo.get_version_from_compatibility_requirement(R.WEEK_4, as_of=as_of) == "1.15.0"
        assert vhlo.get_version_from_compatibility_requirement(R.WEEK_12, as_of=as_of) == "1.13.7"
    assert vhlo.get_version_from_compatibility_requirement(R.NONE) == vhlo.get_current_version()
    assert vhlo.get_version_from_compatibility_requirement("MAX") == "0.9.0"
    assert vhlo.get_version_from_compatibility_requirement(2, as_of="2026-05-01") == "1.13.7"
    # Today: some tagged release at least 28 days old, never newer than the current version.
    week4 = vhlo.get_version_from_compatibility_requirement(R.WEEK_4)
    assert vhlo.get_smaller_version(week4, vhlo.get_current_version()) == week4
    with pytest.raises(vhlo.VhloError):
        vhlo.get_version_from_compatibility_requirement(7)
    with pytest.raises(ValueError):
        vhlo.get_version_from_compatibility_requirement("WEEK_5")
    # The forward guarantee: the newest release tagged two years before (v0.19.8, 2024-04-19).
    assert vhlo.forward_guarantee_target("2026-05-01") == "0.19.8"


def test_round_trip_and_inspect():
    artifact = vhlo.serialize_portable_artifact_str(ADD, "1.0.0")
    assert artifact.startswith(b"ML\xefR") and b"StableHLO_v1.0.0" in artifact
    assert vhlo.serialize_portable_artifact_str(ADD.encode(), "1.0.0") == artifact
    plain = vhlo.deserialize_portable_artifact_str(artifact)
    assert plain.startswith(b"ML\xefR") and b"StableHLO_v" not in plain
    text = vhlo.deserialize_portable_artifact_to_text(artifact)
    assert "stablehlo.add %arg0, %arg0 : tensor<2xf32>" in text
    assert '"stablehlo.add"' in vhlo.deserialize_portable_artifact_to_text(artifact, generic=True)
    assert 'loc("-":2:' in vhlo.deserialize_portable_artifact_to_text(artifact, debug_info=True)
    # Plain bytecode and text are programs too.
    assert vhlo.serialize_portable_artifact_str(plain, "1.0.0").startswith(b"ML\xefR")
    info = vhlo.inspect(artifact)
    assert info["producer"] == "StableHLO_v1.0.0"
    assert info["target_version"] == "1.0.0"
    assert info["histogram"]["stablehlo.add"] == 1
    assert info["minimum_version"] == "0.9.0"
    assert info["first_consumer_release"] == "1.0.0"
    assert info["guaranteed_readable_until"] == "2029-05-14"
    # Presets and requirements as targets.
    for target in ("current", "minimum", "WEEK_4", "WEEK_12", "MAX"):
        assert vhlo.serialize_portable_artifact_str(ADD, target).startswith(b"ML\xefR")
    assert vhlo.minimum_version(ADD) == "0.9.0"
    assert vhlo.minimum_version(TAN) == "1.4.0"
    retargeted = vhlo.retarget(vhlo.serialize_portable_artifact_str(TAN, "current"), "1.4.0")
    assert vhlo.inspect(retargeted)["target_version"] == "1.4.0"
    vhlo.verify(ADD)


def test_errors_carry_diagnostics():
    # A target too old for an op: every blocker with its op, location and needed version.
    with pytest.raises(vhlo.VhloError) as info:
        vhlo.serialize_portable_artifact_str(TAN, "1.0.0")
    e = info.value
    assert isinstance(e, ValueError) and e.kind == "convert"
    assert "tan" in e.op and e.location == '"-":2:7' and e.needs == "1.4.0"
    assert e.diagnostics[0]["needs"] == "1.4.0" and "1.0.0" in e.message
    assert "1.4.0" in str(e)
    # Bad UTF-8.
    with pytest.raises(vhlo.VhloError) as info:
        vhlo.serialize_portable_artifact_str(b"func.func @main() {\xff\xfe}", "1.0.0")
    assert info.value.kind == "parse" and "UTF-8" in info.value.message
    # Text that does not parse: the location of the error.
    with pytest.raises(vhlo.VhloError) as info:
        vhlo.serialize_portable_artifact_str("func.func @main( {", "1.0.0")
    assert info.value.kind == "parse" and info.value.location.startswith('"-":1:')
    # A truncated artifact.
    artifact = vhlo.serialize_portable_artifact_str(TAN, "1.4.0")
    for cut in (len(artifact) // 2, 10, 4):
        with pytest.raises(vhlo.VhloError) as info:
            vhlo.deserialize_portable_artifact_str(artifact[:cut])
        assert info.value.kind == "bytecode", cut
    with pytest.raises(vhlo.VhloError):
        vhlo.deserialize_portable_artifact_str(b"")
    # Targets outside the supported range.
    for target in ("9.0.0", "0.1.0", "1.0", "WEEK_5"):
        with pytest.raises(vhlo.VhloError) as info:
            vhlo.serialize_portable_artifact_str(ADD, target)
        assert info.value.kind == "version", target
    # Retarget below what the program needs.
    with pytest.raises(vhlo.VhloError) as info:
        vhlo.retarget(artifact, "1.0.0")
    assert info.value.needs == "1.4.0"
    # A program that does not verify.
    bad = (
        "func.func @main(%x: tensor<2xf32>) -> tensor<3xf32> {\n"
        "  %0 = stablehlo.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>\n"
        "  return %0 : tensor<3xf32>\n}\n"
    )
    with pytest.raises(vhlo.VhloError) as info:
        vhlo.verify(bad)
    assert info.value.kind == "convert" and "add" in info.value.op and info.value.location.startswith('"-":2:')
    with pytest.raises(TypeError):
        vhlo.serialize_portable_artifact_str(42, "1.0.0")


def test_stubs_cover_the_module():
    here = os.path.dirname(vhlo.__file__)
    stub = open(os.path.join(here, "_vhlo.pyi"), encoding="utf-8").read()
    for name in dir(vhlo._vhlo):
        if not name.startswith("__"):
            assert (f"def {name}(" in stub) or (f"class {name}(" in stub), name
    assert os.path.exists(os.path.join(here, "py.typed"))
    for name in vhlo.__all__:
        assert getattr(vhlo, name).__doc__, name


def test_gil_is_released():
    """A long conversion on a thread lets Python run on another meanwhile."""
    body = "\n".join(f"  %{i + 1} = stablehlo.add %{i}, %{i} : tensor<2xf32>" for i in range(30000))
    program = (
        "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.abs %x : tensor<2xf32>\n"
        + body
        + "\n  return %30000 : tensor<2xf32>\n}\n"
    )
    window = {}

    def work():
        window["start"] = time.perf_counter()
        vhlo.serialize_portable_artifact_str(program, "1.0.0")
        window["end"] = time.perf_counter()

    ticks = []
    worker = threading.Thread(target=work)
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
    worker.join()
    start, end = window["start"], window["end"]
    span = end - start
    assert span > 0.02, f"the conversion took only {span * 1000:.1f} ms: too short to tell"
    middle = [t for t in ticks if start + span / 4 < t < end - span / 4]
    assert len(middle) > 10, f"the main thread ran {len(middle)} times in the middle of a {span * 1000:.0f} ms call"
