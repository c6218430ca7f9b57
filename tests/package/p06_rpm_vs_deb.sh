#!/usr/bin/env bash
# P6: the rpms against the debs (spec/packaging.md §5, §4.2, §4.5). Per package, the files of
# `rpm -qp` (mode, path, link target) equal those of `dpkg-deb -c` once both are normalised:
# directories, documentation, licenses, lintian overrides and the rpm-only preset left out,
# /usr/lib/{systemd,udev} read as /lib/..., ".gz" dropped. Then the config files, the relations
# and the scriptlets (no unexpanded %macro, valid sh).
source "$(dirname "$0")/lib/pkg.sh"

pkg_require_cmd rpm
pkg_require_debs
V="$PKG_V"
BASE=nvidia-container-toolkit-base
TK=nvidia-container-toolkit
TOOLS=libnvidia-container-tools
LIB=libnvidia-container1
EXT=nvidia-container-toolkit-operator-extensions
RPMQ=(rpm -qp --nosignature --nodigest)

normalise() {
  sed -E 's#^([^ ]+) /usr/lib/(systemd|udev)/#\1 /lib/\2/#; s#\.gz( |$)#\1#g' |
    { grep -vE '^[^ ]+ /usr/share/(doc|licenses|lintian)/|^[^ ]+ /(usr/)?lib/systemd/system-preset/' || true; } |
    sort
}
# Non-directory entries as "<mode> <path>[ -> <target>]", mode as ls -l prints it.
deb_files() { pkg_deb_list "$(pkg_deb "$1")" | { grep -v '^d' || true; } | normalise; }
# The same for an rpm: its non-directory, non-ghost files (docs and licenses by path, below).
rpm_files() {
  "${RPMQ[@]}" --qf '[%{FILEMODES:perms} %{FILEFLAGS:fflags}. %{FILENAMES} %{FILELINKTOS}\n]' \
    "$(pkg_rpm "$1")" | awk '
      {
        mode = $1; flags = $2; path = $3; target = $4
        if (mode ~ /^d/ || flags ~ /g/) next
        line = mode " " path
        if (mode ~ /^l/) line = line " -> " target
        print line
      }' | normalise
}

pkg_step "file lists, rpm against deb"
for n in "${PKG_NAMES[@]}"; do
  d="$(deb_files "$n")"
  r="$(rpm_files "$n")"
  if [ "$d" = "$r" ]; then
    pass "$n: the rpm's files are the deb's ($(echo "$d" | grep -c . || true) entries)"
  else
    failed "$n: rpm and deb differ (< deb, > rpm): $(diff <(echo "$d") <(echo "$r") | grep '^[<>]' | tr '\n' ' ')"
  fi
done
check "the base rpm owns /etc/nvidia-container-runtime (%dir)" bash -c \
  "${RPMQ[*]} -l '$(pkg_rpm $BASE)' | grep -qx /etc/nvidia-container-runtime"
check "the base rpm ships the preset" bash -c \
  "${RPMQ[*]} -l '$(pkg_rpm $BASE)' | grep -qE '/lib/systemd/system-preset/90-nvidia-container-toolkit.preset$'"
check_eq "config.toml is a %ghost %config(noreplace) of the base rpm" "cgn" \
  "$("${RPMQ[@]}" --qf '[%{FILENAMES} %{FILEFLAGS:fflags}\n]' "$(pkg_rpm $BASE)" |
    awk '$1 == "/etc/nvidia-container-runtime/config.toml" {print $2}' | fold -w1 | grep '[cgn]' | sort | tr -d '\n')"

pkg_step "config files"
check_eq "$BASE --configfiles" \
  "/etc/nvidia-container-runtime/config.toml /etc/nvidia-container-toolkit/nvidia-cdi-refresh.env" \
  "$("${RPMQ[@]}" --configfiles "$(pkg_rpm $BASE)" | sort | tr '\n' ' ' | sed 's/ $//')"
for n in $TK $TOOLS $LIB $EXT; do
  check_eq "$n has no config file" "" "$("${RPMQ[@]}" --configfiles "$(pkg_rpm "$n")" | grep -v '^(contains no files)$' || true)"
done

pkg_step "relations (§4.2, rpm form: Obsoletes/Provides/Conflicts)"
rel() { "${RPMQ[@]}" "--$2" "$(pkg_rpm "$1")" | sed 's/[[:space:]]*$//'; }
has_rel() {
  local pkg="$1" kind="$2" re="$3"
  if rel "$pkg" "$kind" | grep -qE "^$re\$"; then
    pass "$pkg --$kind: $re"
  else
    failed "$pkg --$kind has no entry matching /$re/: [$(rel "$pkg" "$kind" | paste -sd'|')]"
  fi
}
lacks_rel() {
  local pkg="$1" kind="$2" name="$3"
  if rel "$pkg" "$kind" | grep -qE "^$name(\\(|[[:space:]]|\$)"; then
    failed "$pkg --$kind must not name $name: [$(rel "$pkg" "$kind" | paste -sd'|')]"
  else
    pass "$pkg --$kind does not name $name"
  fi
}
Vq="$(pkg_ere "$V")"
VR="$Vq(-1)?"
ISA='(\(x86-64\)|\(aarch-64\))?'
for n in $BASE $TK; do
  has_rel "$n" obsoletes "nvidia-container-runtime <= 3\.5\.0-1"
  has_rel "$n" obsoletes "nvidia-container-runtime-hook <= 1\.4\.0-2"
  has_rel "$n" provides "nvidia-container-runtime( = .*)?"
done
has_rel $BASE conflicts "nvidia-container-toolkit <= 1\.10\.0-1"
has_rel $TK provides "nvidia-container-runtime-hook( = .*)?"
has_rel $TK requires "$BASE$ISA = $VR"
has_rel $TK requires "$TOOLS$ISA = $VR"
has_rel $EXT requires "$BASE$ISA = $VR"
has_rel $LIB conflicts "$TOOLS < $VR"
lacks_rel $TOOLS requires "$LIB"
lacks_rel $BASE requires "$TK"
for n in "${PKG_NAMES[@]}"; do
  has_rel "$n" provides "$n$ISA = $Vq-1"
done

pkg_step "scriptlets: no unexpanded macro, valid sh"
for n in "${PKG_NAMES[@]}"; do
  s="$E2E_TMP/scripts-$n"
  "${RPMQ[@]}" --scripts "$(pkg_rpm "$n")" >"$s"
  check_eq "$n: no '%' in the scriptlets (undefined macros are left literal)" "" "$(grep -n '%' "$s" || true)"
  # One file per scriptlet ("<name> scriptlet (using <interpreter>):" starts each).
  rm -f "$s".part.*
  awk -v out="$s.part" '/^[a-z]+ scriptlet( \(through [^)]*\))? \(using [^)]*\):$/ {i++; print > (out "." i ".hdr"); next}
    i {print > (out "." i)}' "$s"
  for part in "$s".part.*; do
    [ -f "$part" ] || continue
    case "$part" in *.hdr) continue ;; esac
    hdr="$(cat "$part.hdr")"
    case "$hdr" in
      *"(using /bin/sh)"*)
        if sh -n "$part" 2>"$part.err"; then pass "$n: $hdr passes sh -n"; else failed "$n: $hdr: $(cat "$part.err")"; fi ;;
      *) failed "$n: $hdr: not a /bin/sh scriptlet" ;;
    esac
  done
done
e2e_finish
