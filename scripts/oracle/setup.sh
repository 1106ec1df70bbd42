#!/usr/bin/env bash
# Creates (or reuses) the oracle venv at <repo>/.venv with CPU jax + jaxlib, whose bundled libStablehlo is
# the reference implementation our tests compare against. Idempotent: when the pinned versions already
# import, it installs nothing and only prints the versions.
#
# Environment: ORACLE_VENV (default <repo>/.venv), PYTHON (default python3),
# ORACLE_JAX_VERSION (default the version the committed fixtures were generated with; "latest" for newest).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="${ORACLE_VENV:-$repo_root/.venv}"
python="${PYTHON:-python3}"
# tests/fixtures/jax/manifest.json records this version; regenerate the fixtures when changing it.
jax_version="${ORACLE_JAX_VERSION:-0.10.2}"

if [ ! -x "$venv/bin/python" ]; then
    echo "creating venv at $venv" >&2
    "$python" -m venv "$venv"
fi

installed="$("$venv/bin/python" -c 'import jax, jaxlib; print(jax.__version__ + " " + jaxlib.__version__)' 2>/dev/null || true)"
if [ "$jax_version" = "latest" ]; then
    if [ -z "$installed" ]; then
        echo "installing the latest jax + jaxlib (CPU) into $venv" >&2
        "$venv/bin/python" -m pip install --quiet --upgrade pip
        "$venv/bin/python" -m pip install --quiet --upgrade jax jaxlib
    fi
elif [ "$installed" != "$jax_version $jax_version" ]; then
    echo "installing jax==$jax_version jaxlib==$jax_version (CPU) into $venv (found: ${installed:-none})" >&2
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    "$venv/bin/python" -m pip install --quiet "jax==$jax_version" "jaxlib==$jax_version"
fi

"$venv/bin/python" - <<'PY'
import jax, jaxlib
from jaxlib.mlir.dialects import stablehlo
print(f"jax {jax.__version__}")
print(f"jaxlib {jaxlib.__version__}")
print(f"stablehlo {stablehlo.get_current_version()} (minimum {stablehlo.get_minimum_version()})")
PY

# The tests decide when they build whether the oracle is here (tests/build.rs): make them look
# again, so the tests that need it run instead of showing as ignored.
touch "$repo_root/tests/build.rs"
