#!/usr/bin/env bash
# P2 (fixture pkg_rpms): scripts/package.sh rpm builds the five rpms <name>-V-1.<arch>.rpm into
# $NVCT_BUILD_DIR/package/packages/rpm, after P1 (same staged tree and ccache: mostly cache hits).
# With NVCT_PACKAGE_DIR set, the packages there are checked instead.
source "$(dirname "$0")/lib/pkg.sh"

pkg_require_cmd rpm
if [ -n "${NVCT_PACKAGE_DIR:-}" ]; then
  echo "# NVCT_PACKAGE_DIR=$PKG_DIR: checking the prebuilt packages there, not building"
else
  [ -x "$NVCT_SOURCE_DIR/scripts/package.sh" ] || e2e_die "scripts/package.sh is missing"
  pkg_require_cmd rpmbuild dpkg-buildflags
  mkdir -p "$PKG_WORK"
  log="$PKG_WORK/build-rpm.log"
  pkg_step "scripts/package.sh rpm (log: $log)"
  start=$SECONDS
  if NVCT_PACKAGES_DIR="$PKG_DIR" "$NVCT_SOURCE_DIR/scripts/package.sh" rpm >"$log" 2>&1; then
    pass "scripts/package.sh rpm exits 0 ($((SECONDS - start)) s)"
  else
    tail -n 40 "$log" >&2
    e2e_die "scripts/package.sh rpm failed after $((SECONDS - start)) s (log above, all of it in $log)"
  fi
  grep -E '^ccache:|packages in' "$log" || true
fi

pkg_step "the rpms in $PKG_DIR/rpm"
[ -d "$PKG_DIR/rpm" ] || e2e_die "no directory $PKG_DIR/rpm"
want=""
for n in "${PKG_NAMES[@]}"; do
  want="$want ${n}-${PKG_V}-1.${PKG_RPM_ARCH}.rpm"
  f="$PKG_DIR/rpm/${n}-${PKG_V}-1.${PKG_RPM_ARCH}.rpm"
  if [ -f "$f" ]; then
    check_eq "$(basename "$f"): name version release arch" \
      "$n $PKG_V 1 $PKG_RPM_ARCH" \
      "$(rpm -qp --nosignature --qf '%{NAME} %{VERSION} %{RELEASE} %{ARCH}' "$f" 2>/dev/null)"
  else
    failed "$n: $f was not built ($(ls "$PKG_DIR/rpm" | tr '\n' ' '))"
  fi
done
check_eq "exactly the five rpms in $PKG_DIR/rpm" "$(echo $want | tr ' ' '\n' | sort | tr '\n' ' ')" \
  "$(ls "$PKG_DIR/rpm" | sort | tr '\n' ' ')"
e2e_finish
