#!/usr/bin/env bash
# Fixture: the fresh Debian 12 root every package test overlays (spec/packaging.md §5):
#   mmdebstrap --variant=minbase --include=systemd,udev,apt-utils bookworm <dir> <sources>
# where <sources> is the host's own apt source file, pasted by mmdebstrap as the root's sources
# (so no mirror host is named in this tree). The package lists are kept (--skip=cleanup/apt/lists)
# so that the tests can resolve the Debian dependencies of nvct's packages offline from the
# archive cache the repo fixture fills.
#
# Made once per build directory at $NVCT_BUILD_DIR/package/base-root and reused while it is
# complete (its marker is written last), made from the same inputs, and younger than
# NVCT_PKG_ROOT_MAX_AGE_DAYS (default 3: the lists must still match the mirror's pool).
# NVCT_PKG_APT_SOURCES names another sources file (one-line or deb822 *.sources).
source "$(dirname "$0")/lib/pkg.sh"
source "$(dirname "$0")/lib/root.sh"

pkg_require_cmd mmdebstrap sha256sum
suite=bookworm
includes=systemd,udev,apt-utils
sources="${NVCT_PKG_APT_SOURCES:-}"
if [ -z "$sources" ]; then
  for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
    if [ -s "$f" ]; then
      sources="$f"
      break
    fi
  done
fi
[ -n "$sources" ] && [ -s "$sources" ] ||
  e2e_die "no host apt sources file (/etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list); set NVCT_PKG_APT_SOURCES"
grep -qE '(^|[[:space:]])bookworm([[:space:]]|$)' "$sources" ||
  e2e_die "$sources does not name the bookworm suite: the package tests need a Debian 12 root"

key="$(printf '%s\n' "$suite" "$includes" "$PKG_ARCH" "$(mmdebstrap --version)" "$(cat "$sources")" |
  sha256sum | cut -d' ' -f1)"
max_age="${NVCT_PKG_ROOT_MAX_AGE_DAYS:-3}"

if [ -f "$PKG_BASE_MARKER" ] && [ "$(sed -n 's/^key=//p' "$PKG_BASE_MARKER")" = "$key" ] &&
  [ -z "$(find "$PKG_BASE_MARKER" -mtime "+$max_age")" ]; then
  pass "reusing the base root $PKG_BASE_ROOT ($(sed -n 's/^made=//p' "$PKG_BASE_MARKER"))"
else
  pkg_step "mmdebstrap $suite into $PKG_BASE_ROOT (sources: $sources)"
  mkdir -p "$PKG_WORK"
  rm -rf "$PKG_BASE_ROOT" "$PKG_BASE_ROOT.new"
  start=$SECONDS
  if ! mmdebstrap --variant=minbase --include="$includes" --skip=cleanup/apt/lists \
    "$suite" "$PKG_BASE_ROOT.new" "$sources" >"$E2E_TMP/mmdebstrap.log" 2>&1; then
    tail -n 30 "$E2E_TMP/mmdebstrap.log" >&2
    rm -rf "$PKG_BASE_ROOT.new"
    e2e_die "mmdebstrap failed (log above)"
  fi
  mv "$PKG_BASE_ROOT.new" "$PKG_BASE_ROOT"
  printf 'key=%s\nmade=%s\nsources=%s\n' "$key" "$(date -u +%FT%TZ)" "$sources" >"$PKG_BASE_MARKER"
  pass "mmdebstrap made the base root in $((SECONDS - start)) s"
fi

pkg_step "the base root is a usable Debian 12 root"
check_eq "Debian 12 (etc/debian_version)" 12 "$(cut -d. -f1 "$PKG_BASE_ROOT/etc/debian_version")"
for p in systemd udev apt-utils dpkg; do
  check_eq "$p is installed in the base root" "install ok installed" \
    "$(chroot "$PKG_BASE_ROOT" dpkg-query -W -f='${Status}' "$p" 2>/dev/null)"
done
check "the Debian package lists were kept (offline dependency resolution)" \
  compgen -G "$PKG_BASE_ROOT/var/lib/apt/lists/*_Packages"
check "no nvct or NVIDIA package in the base root" \
  bash -c "! chroot '$PKG_BASE_ROOT' dpkg-query -W 'nvidia-*' 'libnvidia-*' 2>/dev/null | grep -q ."
e2e_finish
