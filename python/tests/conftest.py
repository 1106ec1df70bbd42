"""Shared fixtures: the repository, jaxlib (the oracle), and the jax wheel's back-compat corpus.

Under CI=true (or VHLO_REQUIRE_ORACLE=1) a missing jaxlib or corpus is a failure, as in the
Rust oracle tests; otherwise the tests that need it skip, saying why.
"""

import os
import sys

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _required():
    return os.environ.get("CI") == "true" or os.environ.get("VHLO_REQUIRE_ORACLE") == "1"


def need(condition, why):
    """Skip (outside CI) or fail (CI) when `condition` is false."""
    if condition:
        return
    if _required():
        pytest.fail(f"required under CI: {why}")
    pytest.skip(why)


@pytest.fixture(scope="session")
def hlo():
    """jaxlib's StableHLO bindings (jaxlib 0.10.2 in the oracle venv, scripts/oracle/setup.sh)."""
    try:
        from jaxlib.mlir.dialects import stablehlo
    except ImportError as error:
        need(False, f"jaxlib is not installed ({error}); run scripts/oracle/setup.sh")
    return stablehlo


@pytest.fixture(scope="session")
def ctx(hlo):
    """An MLIR context with JAX's dialects (StableHLO, func, Shardy ...)."""
    from jax._src.interpreters import mlir as jax_mlir

    return jax_mlir.make_ir_context()


@pytest.fixture(scope="session")
def corpus(hlo):
    """JAX's own back-compat artifacts from the installed jax wheel: (name, artifact, text)."""
    sys.path.insert(0, os.path.join(REPO, "scripts", "oracle"))
    try:
        from jax_backcompat import _cases
    except ImportError as error:
        need(False, f"the jax back-compat corpus is not importable ({error})")
    cases = [(name, artifact, text) for name, artifact, text, _ in _cases(None)]
    need(len(cases) >= 100, f"expected the jax wheel's back-compat corpus, found {len(cases)} cases")
    return cases


def suite_dir():
    return os.environ.get("VHLO_COMPAT_SUITE") or os.path.join(REPO, "..", "shared", "compat-suite")
