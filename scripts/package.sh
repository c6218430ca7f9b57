#!/usr/bin/env bash
# Builds nvct's Debian and RPM packages: build/packages/deb/*.deb and build/packages/rpm/*.rpm
# (spec/packaging.md §4.4). The rpm build reuses the deb build's objects through ccache. The
# environment of packaging/stage.sh applies (NVCT_PACKAGE_VERSION, NVCT_PACKAGES_DIR, ...).
# Usage: scripts/package.sh [deb|rpm]...   (default: both)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
formats=("$@")
[ ${#formats[@]} -gt 0 ] || formats=(deb rpm)
for format in "${formats[@]}"; do
  case "$format" in
    deb | rpm) "$here/packaging/build-$format.sh" ;;
    *)
      echo "package.sh: unknown package format '$format' (deb or rpm)" >&2
      exit 2
      ;;
  esac
done
