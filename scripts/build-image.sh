#!/usr/bin/env bash
# Build the image (deploy/Dockerfile) with docker when a Docker engine answers, else with buildah, else podman.
#   scripts/build-image.sh [TAG]              default TAG: eksbot:<version in pyproject.toml>
# Environment (all optional):
#   BASE_IMAGE          base of both stages; a local one (scripts/debian-base-image.sh) where no registry
#                       serves python:3.11-slim-bookworm, e.g. BASE_IMAGE=localhost/debian-bookworm-python
#   BASE_DIGEST         the base's digest (sha256:...). Unset: the Dockerfile's pin of python:3.11-slim-bookworm
#                       when BASE_IMAGE is unset too, else none (BASE_IMAGE as named, which may end in @sha256:...)
#   PIP_INDEX_URL, PIP_EXTRA_INDEX_URL, PIP_TRUSTED_HOST, TORCH_INDEX_URL
#                       a company package mirror, passed as build arguments when set (even empty)
#   CA_BUNDLE           PEM file of the CAs pip must trust (a proxy's), passed as the build secret `ca-bundle`;
#                       default: PIP_CERT when it names a file
#   WHEELS              a directory of wheels pip may take first (the CPU torch on disk), passed as the build
#                       context `wheels`; default: PIP_FIND_LINKS when it names a directory
#   EMBEDDING_BACKEND   onnx (default) or onnx-int8
#   ENGINE              docker, buildah or podman, to choose instead of detecting
#   CONTAINERS_ARGS     global options for buildah and podman (default: --storage-driver vfs)
#   BUILDAH_ISOLATION   buildah's isolation (default here: chroot, which needs no user namespaces)
# The OCI labels: VERSION (pyproject.toml's), REVISION (the commit, "-dirty" when the tree differs), SOURCE (the
# remote `origin` without credentials), CREATED (now, or SOURCE_DATE_EPOCH); each can be set instead.
# buildah and podman write the Docker image format, which keeps SHELL and HEALTHCHECK (OCI drops them), and
# keep no layer per step: on the vfs storage driver each would be a full copy of the build stage (gigabytes).
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml | head -n 1)
tag=${1:-eksbot:${version}}
read -r -a global <<< "${CONTAINERS_ARGS:---storage-driver vfs}"

engine=${ENGINE:-}
if [ -z "$engine" ]; then
    if command -v docker >/dev/null && docker info >/dev/null 2>&1; then engine=docker
    elif command -v buildah >/dev/null; then engine=buildah
    elif command -v podman >/dev/null; then engine=podman
    else echo "no container engine: install docker, buildah or podman" >&2; exit 1
    fi
fi

# The pinned digest is python:3.11-slim-bookworm's: another base is taken as named unless BASE_DIGEST is set.
if [ -n "${BASE_IMAGE:-}" ] && [ -z "${BASE_DIGEST+set}" ]; then BASE_DIGEST=; fi
VERSION=${VERSION:-$version}
if [ -z "${REVISION:-}" ]; then
    if REVISION=$(git rev-parse HEAD 2>/dev/null); then
        git diff --quiet HEAD -- 2>/dev/null || REVISION="$REVISION-dirty"
    else
        unset REVISION
    fi
fi
if [ -z "${SOURCE:-}" ]; then
    SOURCE=$(git remote get-url origin 2>/dev/null | sed -E 's|^git@([^:]+):|https://\1/|; s|://[^/@]*@|://|') || SOURCE=
fi
CREATED=${CREATED:-$(date -u ${SOURCE_DATE_EPOCH:+-d "@$SOURCE_DATE_EPOCH"} +%Y-%m-%dT%H:%M:%SZ)}

args=(-f deploy/Dockerfile -t "$tag")
for name in BASE_IMAGE BASE_DIGEST PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_TRUSTED_HOST TORCH_INDEX_URL \
            EMBEDDING_BACKEND VERSION REVISION SOURCE CREATED; do
    # Set, even empty, is passed: TORCH_INDEX_URL= asks no index for torch (it must come from WHEELS).
    [ -n "${!name+set}" ] && args+=(--build-arg "$name=${!name}")
done
ca=${CA_BUNDLE:-${PIP_CERT:-}}
[ -n "$ca" ] && [ -f "$ca" ] && args+=(--secret "id=ca-bundle,src=$ca")
wheels=${WHEELS:-${PIP_FIND_LINKS:-}}
[ -n "$wheels" ] && [ -d "$wheels" ] && args+=(--build-context "wheels=$wheels")

echo "building $tag with $engine${BASE_IMAGE:+ on $BASE_IMAGE}"
started=$(date +%s)
case "$engine" in
    docker)
        DOCKER_BUILDKIT=1 docker build "${args[@]}" . ;;
    buildah)
        buildah "${global[@]}" bud --isolation "${BUILDAH_ISOLATION:-chroot}" --format docker \
            --ignorefile deploy/Dockerfile.dockerignore "${args[@]}" . ;;
    podman)
        podman "${global[@]}" build --isolation "${BUILDAH_ISOLATION:-chroot}" --format docker \
            --ignorefile deploy/Dockerfile.dockerignore "${args[@]}" . ;;
    *) echo "ENGINE must be docker, buildah or podman, not $engine" >&2; exit 2 ;;
esac
echo "built $tag in $(( $(date +%s) - started )) s"
case "$engine" in
    docker) docker image ls "$tag" ;;
    *) "$engine" "${global[@]}" images "$tag" ;;
esac
