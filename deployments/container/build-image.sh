#!/usr/bin/env bash
# Builds the nvct-installer image offline from an nvct build tree:
#   build-image.sh <build-dir> [tag]      (tag default nvct-installer:local)
# DOCKER_HOST selects the daemon. The classic builder is used (DOCKER_BUILDKIT=0): it needs no
# buildx plugin and, with `FROM scratch`, no registry.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 <nvct-build-dir> [tag]" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
tag="${2:-nvct-installer:local}"
context="$(mktemp -d "${TMPDIR:-/tmp}/nvct-installer-image.XXXXXX")"
trap 'rm -rf "$context"' EXIT

"$here/build-context.sh" "$1" "$context"
DOCKER_BUILDKIT=0 docker build --quiet --tag "$tag" "$context" >/dev/null
echo "build-image: built $tag" >&2
