#!/usr/bin/env bash
# Make a local base image, Debian bookworm with its Python 3.11, for building deploy/Dockerfile where no
# registry with python:3.11-slim is reachable (only a Debian mirror). Needs root, debootstrap and buildah
# (apt-get install debootstrap buildah). Then:
#   BASE_IMAGE=localhost/debian-bookworm-python scripts/build-image.sh
#
#   scripts/debian-base-image.sh [NAME]     default NAME: localhost/debian-bookworm-python
# Environment: DEBIAN_MIRROR (default http://deb.debian.org/debian), BUILDAH_ARGS (default
# "--storage-driver vfs", as scripts/build-image.sh uses).
set -euo pipefail

name=${1:-localhost/debian-bookworm-python}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
read -r -a storage <<< "${BUILDAH_ARGS:---storage-driver vfs}"
root=$(mktemp -d /var/tmp/debian-base.XXXXXX)
trap 'rm -rf "$root"' EXIT

# minbase: the essential packages and apt; then Python 3.11 with venv, and the CA certificates.
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates bookworm "$root" "$mirror"
chroot "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/usr/share/doc/* "$root"/usr/share/man/* \
       "$root"/usr/share/locale/* "$root"/var/log/*.log
ln -sf python3 "$root"/usr/bin/python   # what python:3.11-slim offers too
rm -rf "${root:?}"/dev/*                  # container engines mount /dev

container=$(buildah "${storage[@]}" from scratch)
buildah "${storage[@]}" copy "$container" "$root" /
buildah "${storage[@]}" config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env LANG=C.UTF-8 --cmd python3 "$container"
buildah "${storage[@]}" commit --rm "$container" "$name"
buildah "${storage[@]}" images "$name"
