#!/usr/bin/env bash
# Keeps README.md from going stale:
#   1. every repository path it mentions (scripts/..., tests/..., packaging/..., deployments/...,
#      config/..., docs/..., src/..., bench/..., include/..., cmake/..., .ci/...) exists in the
#      source tree. Paths a build produces (build/...) and paths on an installed system (/usr/...,
#      /etc/..., $HOME/.config/...) are not repository paths and are not checked;
#   2. every config.toml key of src/config/schema.cpp has a row in the README's configuration
#      reference, and every row there names a key that exists.
# Before checking the README, the script checks itself: each check must fail on a copy of the
# README with a bogus path, a dropped key or an invented key (so a broken pattern cannot make
# the test pass without checking anything).
#
# Environment: NVCT_SOURCE_DIR (default: two levels up from this script), NVCT_README (default:
# $NVCT_SOURCE_DIR/README.md).
# shellcheck disable=SC2016  # the backquotes in the sample READMEs are Markdown
set -euo pipefail

src="${NVCT_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
readme="${NVCT_README:-$src/README.md}"
schema="$src/src/config/schema.cpp"
reference_heading='## Configuration reference'

die() {
  echo "readme_links: $*" >&2
  exit 1
}

[ -f "$readme" ] || die "no README at $readme"
[ -f "$schema" ] || die "no config schema at $schema"

# The config keys, as schema.cpp declares them: KeySpec{"<key>", ...
mapfile -t schema_keys < <(grep -oP 'KeySpec\{"\K[^"]+' "$schema")
[ "${#schema_keys[@]}" -ge 30 ] ||
  die "found only ${#schema_keys[@]} keys in $schema (expected every KeySpec{\"key\", ...})"
declare -A schema_key_set
for key in "${schema_keys[@]}"; do schema_key_set[$key]=1; done

# Repository paths mentioned in a file, one per line. A path starts at a word boundary that is
# not part of a longer path (so /etc/x/config/... or ~/.config/... are not taken) and ends at
# white space, a quote, a bracket or a table bar.
mentioned_paths() {
  grep -oP '(?<![\w./~$@-])(?:scripts|tests|packaging|deployments|config|docs|src|bench|include|cmake|\.ci)/[^\s`'"'"'"()\[\]|,;]*' "$1" |
    sed -E 's/[.:]+$//' | sort -u
}

# Prints one line per path that does not exist; returns 1 if there was any.
check_paths() {
  local file="$1" path check bad=0
  while IFS= read -r path; do
    check="$path"
    # Placeholders and globs (src/<module>/, packaging/systemd/*.in, x.{a,b}): the folder before
    # them must exist.
    if [[ "$check" == *[\<\*\{\?]* ]]; then
      check="${check%%[<*\{?]*}"
      check="${check%/*}/"
    fi
    if [[ "$check" == */ ]]; then
      [ -d "$src/$check" ] && continue
    else
      [ -e "$src/$check" ] && continue
    fi
    echo "README mentions $path, which is not in the source tree ($src)"
    bad=1
  done < <(mentioned_paths "$file")
  return "$bad"
}

# The configuration reference: from its heading to the next "## " heading.
reference_section() {
  awk -v h="$reference_heading" '
    $0 == h { inside = 1; next }
    inside && /^## / { exit }
    inside { print }' "$1"
}

# The first cells of the key tables' rows: tables whose header row starts with "| key |".
reference_rows() {
  reference_section "$1" | awk '
    /^\| key \|/ { table = 1; next }
    table && /^\|[- |]*$/ { next }
    table && /^\|/ { split($0, cell, "|"); print cell[2]; next }
    { table = 0 }' | sed -E 's/^ +//; s/ +$//'
}

# Every schema key needs a row; returns 1 if one is missing.
check_keys_documented() {
  local file="$1" key bad=0 rows
  rows="$(reference_rows "$file")"
  [ -n "$rows" ] || {
    echo "README has no key table (a \"| key |\" header) under \"$reference_heading\""
    return 1
  }
  for key in "${schema_keys[@]}"; do
    grep -qxF "\`$key\`" <<<"$rows" && continue
    echo "config key $key (src/config/schema.cpp) has no row in the README's configuration reference"
    bad=1
  done
  return "$bad"
}

# Every row must name one schema key in backquotes; returns 1 otherwise.
check_rows_known() {
  local file="$1" row key bad=0
  while IFS= read -r row; do
    key="${row#\`}"
    key="${key%\`}"
    if [ "\`$key\`" != "$row" ]; then
      echo "configuration reference row \"$row\" does not start with one key in backquotes"
      bad=1
      continue
    fi
    # A lookup, not `printf ... | grep -q`: under pipefail, grep -q leaving early can kill printf
    # with SIGPIPE and fail the lookup of a key that is there (it failed a CI run so).
    [ -n "${schema_key_set[$key]:-}" ] && continue
    echo "configuration reference documents $key, which is not in src/config/schema.cpp"
    bad=1
  done < <(reference_rows "$file")
  return "$bad"
}

check_all() {
  local status=0
  check_paths "$1" || status=1
  check_keys_documented "$1" || status=1
  check_rows_known "$1" || status=1
  return "$status"
}

# --- self-test: each check must catch its mutation --------------------------------------------
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

expect_failure() {
  local name="$1" check="$2" file="$3"
  if "$check" "$file" >"$tmp/out" 2>&1; then
    die "self-test: $check passed on a README with $name"
  fi
  grep -q . "$tmp/out" || die "self-test: $check failed on a README with $name but said nothing"
}

expect_success() {
  local name="$1" check="$2" file="$3"
  "$check" "$file" >"$tmp/out" 2>&1 ||
    die "self-test: $check failed on $name: $(cat "$tmp/out")"
}

# A README with one known path, one placeholder path and the full key table passes.
{
  echo 'Run `scripts/` and see src/<module>/ and `config/config.toml`; build/x and /etc/config/y are not checked.'
  echo "$reference_heading"
  echo '| key | default |'
  echo '|---|---|'
  for key in "${schema_keys[@]}"; do echo "| \`$key\` | x |"; done
  echo '## Next'
} >"$tmp/good.md"
expect_success "a minimal correct README" check_all "$tmp/good.md"

{ cat "$tmp/good.md"; echo 'See scripts/no-such-script-nvct.sh.'; } >"$tmp/bogus-path.md"
expect_failure "a bogus script path" check_paths "$tmp/bogus-path.md"
{ cat "$tmp/good.md"; echo 'See `deployments/no-such-dir/<x>.yaml`.'; } >"$tmp/bogus-dir.md"
expect_failure "a bogus folder before a placeholder" check_paths "$tmp/bogus-dir.md"

grep -vF "| \`${schema_keys[0]}\` |" "$tmp/good.md" >"$tmp/dropped-key.md"
expect_failure "a dropped key row" check_keys_documented "$tmp/dropped-key.md"

awk '{ print } /^\|---/ && !done { print "| `features.no-such-key-nvct` | x |"; done = 1 }' \
  "$tmp/good.md" >"$tmp/invented-key.md"
expect_failure "an invented key row" check_rows_known "$tmp/invented-key.md"

# The same mutations of the real README must fail too (its layout, not only the minimal one).
{ cat "$readme"; echo 'See `tests/no-such-dir-nvct/x.sh`.'; } >"$tmp/readme-bogus-path.md"
expect_failure "a bogus tests/ path appended" check_paths "$tmp/readme-bogus-path.md"
grep -vF "| \`${schema_keys[0]}\` |" "$readme" >"$tmp/readme-dropped-key.md"
expect_failure "the row of ${schema_keys[0]} removed" check_keys_documented \
  "$tmp/readme-dropped-key.md"

# --- the real README ---------------------------------------------------------------------------
if ! check_all "$readme"; then
  echo "readme_links: $readme is out of date" >&2
  exit 1
fi
echo "readme_links: $(mentioned_paths "$readme" | wc -l) repository paths exist," \
  "${#schema_keys[@]} config keys documented"
