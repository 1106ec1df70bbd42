#!/usr/bin/env bash
# Creates (or reuses) the oracle venv at <repo>/.venv with CPU jax + jaxlib,
# whose bundled libStablehlo is the reference implementation for our tests.
# Idempotent: when jax and jaxlib already import, it only prints the versions.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="${ORACLE_VENV:-$repo_root/.venv}"
python="${PYTHON:-python3}"

if [ ! -x "$venv/bin/python" ]; then
    echo "creating venv at $venv" >&2
    "$python" -m venv "$venv"
fi

if ! "$venv/bin/python" -c 'import jax, jaxlib' >/dev/null 2>&1; then
    echo "installing jax + jaxlib (CPU) into $venv" >&2
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    "$venv/bin/python" -m pip install --quiet jax jaxlib
fi

"$venv/bin/python" - <<'PY'
import jax, jaxlib
from jax._src.lib.mlir.dialects import stablehlo
print(f"jax {jax.__version__}")
print(f"jaxlib {jaxlib.__version__}")
print(f"stablehlo {stablehlo.get_current_version()}")
PY
