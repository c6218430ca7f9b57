#!/usr/bin/env bash
# Prints the contents of .deb packages in the normalised form of
# tests/package/data/deb-files.txt: for each package (sorted by name, -dbgsym packages left out)
# a line "[<package>]", then one line per entry of `dpkg-deb -c`, sorted by path:
#   <mode> <path>[ -> <link target>]
# <mode> is dpkg-deb's (type letter and permissions), <path> absolute without a trailing "/";
# owners, sizes and dates are left out. The root directory "/" is not listed.
# Usage: packaging/deb-contents.sh <file.deb>...
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 <file.deb>..." >&2; exit 2; }

declare -A debs=()
for deb in "$@"; do
  package=$(dpkg-deb -f "$deb" Package)
  case "$package" in *-dbgsym) continue ;; esac
  debs[$package]=$deb
done

mapfile -t packages < <(printf '%s\n' "${!debs[@]}" | LC_ALL=C sort)
for package in "${packages[@]}"; do
  echo "[$package]"
  dpkg-deb -c "${debs[$package]}" |
    awk '{
      path = $6; sub(/^\./, "", path); if (path != "/") sub(/\/$/, "", path)
      if (path == "/") next
      line = $1 " " path
      if ($7 == "->") line = line " -> " $8
      print line
    }' | LC_ALL=C sort -k2,2
done
