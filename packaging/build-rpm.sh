#!/usr/bin/env bash
# Builds the .rpm packages (spec/packaging.md §4.4) into build/packages/rpm/ with
# rpmbuild -bb --nodeps and packaging/rpm/nvct.spec, from the staged sources of
# packaging/stage.sh (see there for the environment it reads). The compiler flags are the deb
# build's (dpkg-buildflags with hardening=+all), so that ccache serves the objects of a previous
# build-deb.sh.
set -euo pipefail
nvct_script=build-rpm.sh
# shellcheck source=stage.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/stage.sh"

for tool in rpmbuild dpkg-buildflags cmake; do
  command -v "$tool" >/dev/null || nvct_die "$tool not found (scripts/install-deps.sh installs it)"
done

start=$(date +%s)
version=$(nvct_version)
commit=$(nvct_commit)
nvct_stage_sources

# Computed in the staged tree, as debhelper does for the deb: -ffile-prefix-map names it.
flags() {
  (cd "$nvct_stage" && DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get "$1")
}
cppflags=$(flags CPPFLAGS)
# debhelper appends CPPFLAGS to CFLAGS and CXXFLAGS for CMake, which ignores CPPFLAGS.
cflags="$(flags CFLAGS) $cppflags"
cxxflags="$(flags CXXFLAGS) $cppflags"
ldflags=$(flags LDFLAGS)

# dpkg-buildpackage sets it from debian/changelog, which build-deb.sh dates like the last commit.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(nvct_source_date_epoch)}

topdir=$nvct_out/rpmbuild
rm -rf "$topdir"
mkdir -p "$topdir"
nvct_setup_ccache

echo "$nvct_script: building nvct $version (commit $commit) in $nvct_stage"
rpmbuild -bb --nodeps \
  --define "_topdir $topdir" \
  --define "_builddir $nvct_stage" \
  --define "nvct_srcdir $nvct_stage" \
  --define "nvct_builddir $nvct_stage/build/rpm" \
  --define "nvct_version $version" \
  --define "nvct_commit $commit" \
  --define "nvct_cflags $cflags" \
  --define "nvct_cxxflags $cxxflags" \
  --define "nvct_ldflags $ldflags" \
  --define "nvct_unity_build ${NVCT_UNITY_BUILD:-ON}" \
  --define "nvct_werror ${NVCT_WERROR:-OFF}" \
  "$nvct_stage/packaging/rpm/nvct.spec"

rm -rf "$nvct_out/rpm"
mkdir -p "$nvct_out/rpm"
find "$topdir/RPMS" -name '*.rpm' -exec mv -t "$nvct_out/rpm/" {} +
rm -rf "$topdir"
nvct_ccache_report
echo "$nvct_script: $(find "$nvct_out/rpm" -name '*.rpm' | wc -l) packages in $nvct_out/rpm" \
  "($(nvct_seconds_since "$start") s)"
