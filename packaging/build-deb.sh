#!/usr/bin/env bash
# Builds the .deb packages (spec/packaging.md §4.4) into build/packages/deb/: stages the sources
# (packaging/stage.sh), copies packaging/debian to debian/, writes debian/changelog for the
# version V and runs dpkg-buildpackage -b. See packaging/stage.sh for the environment it reads;
# DEB_BUILD_OPTIONS is kept, with nocheck and parallel=<cores> added when absent.
set -euo pipefail
nvct_script=build-deb.sh
# shellcheck source=stage.sh source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/stage.sh"

for tool in dpkg-buildpackage dh cmake; do
  command -v "$tool" >/dev/null || nvct_die "$tool not found (scripts/install-deps.sh installs it)"
done

start=$(date +%s)
version=$(nvct_version)
commit=$(nvct_commit)
nvct_stage_sources
cp -a "$nvct_stage/packaging/debian" "$nvct_stage/debian"

# One entry for V, dated like the last commit (reproducible); signed like the control file's
# Maintainer, as lintian wants for a native package.
maintainer=$(sed -n 's/^Maintainer: //p' "$nvct_stage/debian/control")
date=$(date -R -d "@$(nvct_source_date_epoch)")
cat > "$nvct_stage/debian/changelog" <<CHANGELOG
nvct ($version) unstable; urgency=medium

  * nvct $version.
    Built from commit $commit.

 -- $maintainer  $date
CHANGELOG

export NVCT_GIT_COMMIT=$commit
options=${DEB_BUILD_OPTIONS:-}
case " $options " in *" nocheck "*) ;; *) options="$options nocheck" ;; esac
case " $options " in *" parallel="*) ;; *) options="$options parallel=$(nproc)" ;; esac
export DEB_BUILD_OPTIONS=${options# }
nvct_setup_ccache

echo "$nvct_script: building nvct $version (commit $commit) in $nvct_stage"
(cd "$nvct_stage" && dpkg-buildpackage -b -us -uc --build-profiles=nocheck)

rm -rf "$nvct_out/deb"
mkdir -p "$nvct_out/deb"
mv "$nvct_out"/stage/*.deb "$nvct_out/deb/"
rm -f "$nvct_out"/stage/*.buildinfo "$nvct_out"/stage/*.changes
nvct_ccache_report
echo "$nvct_script: $(find "$nvct_out/deb" -name '*.deb' | wc -l) packages in $nvct_out/deb" \
  "($(nvct_seconds_since "$start") s)"
