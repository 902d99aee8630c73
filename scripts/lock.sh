#!/usr/bin/env bash
# Write the image's lock files (exact versions with sha256 hashes) from pyproject.toml, with uv (dev extra):
#   requirements/runtime.lock  what serving needs: no PyTorch (deploy/Dockerfile's runtime environment)
#   requirements/build.lock    the runtime's versions plus the build tools (ONNX export, index build)
# Run it after changing dependencies in pyproject.toml; tests/deploy/test_locks.py checks the two agree with it.
# The build lock pins the CPU build of torch (torch==X+cpu, linux x86_64). uv finds that wheel in
# TORCH_WHEELS (a directory holding it) or on PyTorch's CPU index (TORCH_INDEX_URL).
set -euo pipefail
cd "$(dirname "$0")/.."

uv=${UV:-.venv/bin/uv}
torch_version=${TORCH_VERSION:-2.13.0+cpu}
torch_index=${TORCH_INDEX_URL:-https://download.pytorch.org/whl/cpu}
sources=(--index-strategy unsafe-best-match --extra-index-url "$torch_index")
[ -n "${TORCH_WHEELS:-}" ] && sources=(--find-links "$TORCH_WHEELS")
common=(--generate-hashes --python-version 3.11 --no-header --quiet)
# Resolved for linux x86_64; the hashes cover every file of each pinned version (arm64 wheels included).
export UV_NATIVE_TLS=${UV_NATIVE_TLS:-1}  # the system's CA bundle, so a company proxy's CA is trusted

"$uv" pip compile pyproject.toml "${common[@]}" --python-platform x86_64-manylinux_2_28 -o requirements/runtime.lock
echo "torch==${torch_version}" > requirements/.torch.txt
trap 'rm -f requirements/.torch.txt' EXIT
"$uv" pip compile pyproject.toml requirements/build.in --extra build "${common[@]}" \
    --python-platform x86_64-manylinux_2_28 --constraint requirements/runtime.lock \
    --overrides requirements/.torch.txt "${sources[@]}" -o requirements/build.lock
echo "wrote requirements/runtime.lock ($(grep -c '^[a-z]' requirements/runtime.lock) packages)" \
     "and requirements/build.lock ($(grep -c '^[a-z]' requirements/build.lock) packages)"
