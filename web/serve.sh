#!/usr/bin/env bash
# Builds the inspector (web/build.sh) and serves it on http://localhost:${1:-8034}/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash web/build.sh
exec node web/serve.mjs "${1:-8034}"
