#!/usr/bin/env bash
# P4: the contents of the five .debs (`dpkg-deb -c`) against tests/package/data/deb-files.txt
# (spec/packaging.md §4.2, §5): the same entries, modes and link targets per package; all owned
# by root/root; files 0755 or 0644, directories 0755; links relative; nothing under /run,
# /var/run or /usr/local.
source "$(dirname "$0")/lib/pkg.sh"

pkg_require_debs
DATA="$NVCT_SOURCE_DIR/tests/package/data/deb-files.txt"
[ -f "$DATA" ] || e2e_die "$DATA is missing (written with packaging/deb-contents.sh)"

pkg_step "the sections of $(basename "$DATA")"
check_eq "one section per package, no other" "$(printf '[%s]\n' "${PKG_NAMES[@]}" | sort)" \
  "$(grep '^\[' "$DATA" | sort)"

for n in "${PKG_NAMES[@]}"; do
  deb="$(pkg_deb "$n")"
  pkg_step "$n"
  want="$(pkg_deb_list_expected "$n")"
  got="$(pkg_deb_list "$deb")"
  if [ -n "$want" ] && [ "$want" = "$got" ]; then
    pass "$n: dpkg-deb -c = deb-files.txt ($(echo "$got" | wc -l) entries)"
  else
    failed "$n: dpkg-deb -c differs from deb-files.txt (< expected, > built): $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
  fi
  check_eq "$n: every entry owned by root/root" "" \
    "$(dpkg-deb -c "$deb" | awk '$2 != "root/root" {print $2, $6}')"
  check_eq "$n: files are -rwxr-xr-x or -rw-r--r--, directories drwxr-xr-x, links lrwxrwxrwx" "" \
    "$(echo "$got" | awk '$1 !~ /^(-rwxr-xr-x|-rw-r--r--|drwxr-xr-x|lrwxrwxrwx)$/')"
  check_eq "$n: links are relative" "" "$(echo "$got" | awk '$3 == "->" && $4 ~ /^\// {print}')"
  check_eq "$n: executables only in /usr/bin and /usr/libexec/nvct" "" \
    "$(echo "$got" | awk '$1 == "-rwxr-xr-x" && $2 !~ /^\/usr\/(bin|libexec\/nvct)\// {print $2}')"
  check_eq "$n: nothing under /run, /var/run or /usr/local" "" \
    "$(echo "$got" | awk '$2 ~ /^\/(run|var\/run|usr\/local)(\/|$)/ {print $2}')"
done
e2e_finish
