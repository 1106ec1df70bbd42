#!/usr/bin/env bash
# Checks that the oracle works and that the committed JAX fixtures are what it generates today.
# Needs the venv from setup.sh. Prints "N passed, N failed" last; exits 1 if anything failed.
set -uo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="${ORACLE_VENV:-$repo_root/.venv}/bin/python"
oracle=("$python" "$repo_root/scripts/oracle/oracle.py")
suite="${VHLO_COMPAT_SUITE:-$repo_root/../shared/compat-suite}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
passed=0
failed=0

run() {
    local name="$1"
    shift
    if "$@" >"$scratch/out" 2>&1; then
        passed=$((passed + 1))
        echo "ok   $name"
    else
        failed=$((failed + 1))
        echo "FAIL $name"
        sed 's/^/     /' "$scratch/out" | head -20
    fi
}

if [ ! -x "$python" ]; then
    echo "no oracle venv at $python: run scripts/oracle/setup.sh" >&2
    echo "0 passed, 1 failed"
    exit 1
fi

version_is_semver() { "${oracle[@]}" version | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$'; }
example_reproduced() {
    "${oracle[@]}" serialize "$repo_root/examples/model.mlir" --target 1.0.0 -o "$scratch/model.bc" &&
        cmp "$scratch/model.bc" "$repo_root/examples/model.1_0_0.mlir.bc"
}
future_target_rejected() { ! "${oracle[@]}" serialize "$repo_root/examples/model.mlir" --target 99.0.0 -o /dev/null; }
garbage_rejected() { printf 'garbage' >"$scratch/g.bc" && ! "${oracle[@]}" deserialize "$scratch/g.bc"; }
suite_reproduced() {
    local base="$suite/stablehlo_legalize_to_vhlo.1_0_0"
    "${oracle[@]}" serialize "$base.mlir" --target 1.0.0 --strip-debuginfo -o "$scratch/s.bc" && cmp "$scratch/s.bc" "$base.mlir.bc"
}

run "version is X.Y.Z" version_is_semver
run "example artifact is what jaxlib writes at 1.0.0" example_reproduced
run "example artifact deserializes" "${oracle[@]}" deserialize "$repo_root/examples/model.1_0_0.mlir.bc" -o "$scratch/model.mlir"
run "serialize rejects a future target" future_target_rejected
run "deserialize rejects garbage" garbage_rejected
if [ -f "$suite/stablehlo_legalize_to_vhlo.1_0_0.mlir.bc" ]; then
    run "suite 1.0.0 artifact reproduced byte for byte" suite_reproduced
else
    echo "skip suite check: no compat suite at $suite"
fi
run "fixtures are up to date (gen.py --check)" "$python" "$repo_root/tests/fixtures/jax/gen.py" --check

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
