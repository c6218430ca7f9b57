#!/bin/sh
# nvct node installer: the entrypoint of the nvct-installer image (deployments/container/).
# With the node's root filesystem mounted at $HOST_ROOT (/host) and the node's /usr/local/nvidia
# mounted at the same path inside the container, it
#   install (default): copies the toolkit binaries to $TOOLKIT_DIR, writes
#     /etc/nvidia-container-runtime/config.toml if the node has none, adds the `nvidia` runtime
#     handler to containerd or CRI-O (`nvidia-ctk runtime configure`), optionally restarts the
#     engine, then sleeps until SIGTERM (a DaemonSet pod), undoing everything first when
#     CLEANUP_ON_EXIT=true;
#   cleanup: `nvidia-ctk runtime configure --remove`, then puts back every file install changed
#     and removes what it added, so the node's root is as it was before the first install.
#   install-only: install, then exit (for a Job or a one-off `docker run`).
# What install found and changed is kept in $TOOLKIT_DIR/.nvct-installer on the node, so a pod
# restart re-installs without losing the originals, and cleanup works from a later pod.
# Written for POSIX sh: the image's shell is busybox.
set -eu

HOST_ROOT="${HOST_ROOT:-/host}"
TOOLKIT_DIR="${TOOLKIT_DIR:-/usr/local/nvidia/toolkit}"
RUNTIME="${RUNTIME:-containerd}"
RUNTIME_NAME="${RUNTIME_NAME:-nvidia}"
SET_AS_DEFAULT="${SET_AS_DEFAULT:-false}"
CDI_ENABLED="${CDI_ENABLED:-false}"
RESTART="${RESTART:-false}"
CLEANUP_ON_EXIT="${CLEANUP_ON_EXIT:-false}"
# The toolkit as shipped in the image (written by build-context.sh).
PAYLOAD_DIR="${PAYLOAD_DIR:-/opt/nvct/toolkit}"
READY_FILE="${READY_FILE:-/run/nvct-installer.ready}"
NVCT_CONFIG=/etc/nvidia-container-runtime/config.toml

case "$RUNTIME" in
  containerd)
    RUNTIME_CONFIG="${RUNTIME_CONFIG:-/etc/containerd/config.toml}"
    RUNTIME_DROP_IN="${RUNTIME_DROP_IN:-/etc/containerd/conf.d/99-nvidia.toml}"
    RUNTIME_SOCKET="${RUNTIME_SOCKET:-/run/containerd/containerd.sock}"
    ;;
  crio)
    RUNTIME_CONFIG="${RUNTIME_CONFIG:-/etc/crio/crio.conf}"
    RUNTIME_DROP_IN="${RUNTIME_DROP_IN:-/etc/crio/crio.conf.d/99-nvidia.toml}"
    RUNTIME_SOCKET="${RUNTIME_SOCKET:-/run/crio/crio.sock}"
    ;;
  *) ;;
esac
STATE="$HOST_ROOT$TOOLKIT_DIR/.nvct-installer"

log() { echo "nvct-installer: $*" >&2; }
die() {
  log "error: $*"
  exit 1
}

is_true() {
  case "$1" in
    true | TRUE | True | 1 | yes) return 0 ;;
    false | FALSE | False | 0 | no | "") return 1 ;;
    *) die "expected true or false, got '$1'" ;;
  esac
}

# --- checks made before anything on the node is touched --------------------------------------

check_environment() {
  case "$RUNTIME" in
    containerd | crio) ;;
    *) die "RUNTIME='$RUNTIME' is not supported: use containerd or crio" ;;
  esac
  is_true "$SET_AS_DEFAULT" || :
  is_true "$CDI_ENABLED" || :
  is_true "$CLEANUP_ON_EXIT" || :
  for p in "$TOOLKIT_DIR" "$RUNTIME_CONFIG" "$RUNTIME_DROP_IN"; do
    case "$p" in
      /*) ;;
      *) die "'$p' must be an absolute path (as seen on the node)" ;;
    esac
  done
  [ -d "$HOST_ROOT" ] || die "HOST_ROOT=$HOST_ROOT is not a directory: mount the node's / there"
  [ -d "$HOST_ROOT/etc" ] || die "$HOST_ROOT has no etc/: is the node's / mounted at $HOST_ROOT?"
  # The runtime path written into the engine's config must exist for nvidia-ctk and, later, for
  # the engine: both see it at $TOOLKIT_DIR, so the node's parent directory has to be mounted at
  # the same path inside this container.
  parent="$(dirname "$TOOLKIT_DIR")"
  [ -d "$HOST_ROOT$parent" ] ||
    die "$HOST_ROOT$parent does not exist: mount the node's $parent (hostPath, DirectoryOrCreate)"
  if [ ! -d "$parent" ] ||
    [ "$(stat -c %d:%i "$parent")" != "$(stat -c %d:%i "$HOST_ROOT$parent")" ]; then
    die "$parent in this container is not the node's $parent: mount the node's $parent at $parent"
  fi
  # nvidia-ctk writes through a symbolic link, and cleanup could not put one back from a copy.
  for p in "$RUNTIME_CONFIG" "$RUNTIME_DROP_IN" "$NVCT_CONFIG"; do
    [ ! -L "$HOST_ROOT$p" ] ||
      die "$p is a symbolic link on the node: point RUNTIME_CONFIG/RUNTIME_DROP_IN at its target"
  done
  case "$RUNTIME_DROP_IN" in
    "$(engine_dir)"/*) ;;
    *) die "RUNTIME_DROP_IN=$RUNTIME_DROP_IN must be under $(engine_dir) (the directory of RUNTIME_CONFIG)" ;;
  esac
  if is_true "$RESTART"; then
    # Only with the node's pid namespace is pid 1 the node's init.
    [ "$$" != 1 ] || die "RESTART=true needs the node's pid namespace (hostPID: true)"
    command -v nsenter >/dev/null || die "RESTART=true needs nsenter in the image"
  fi
  [ -x "$PAYLOAD_DIR/nvidia-ctk.real" ] || [ -x "$PAYLOAD_DIR/nvidia-ctk" ] ||
    die "no nvidia-ctk in $PAYLOAD_DIR: the image was not built by build-context.sh"
}

# --- tools -------------------------------------------------------------------------------------

engine_dir() { dirname "$RUNTIME_CONFIG"; }

# The image's own nvidia-ctk (not the node's copy, which cleanup removes).
payload_ctk() {
  if [ -x "$PAYLOAD_DIR/nvidia-ctk.real" ]; then
    LD_LIBRARY_PATH="$PAYLOAD_DIR/lib" "$PAYLOAD_DIR/nvidia-ctk.real" "$@"
  else
    "$PAYLOAD_DIR/nvidia-ctk" "$@"
  fi
}

# Runs nvidia-ctk with the node's engine directory bind-mounted over the same path in a private
# mount namespace, so that every path it reads, writes or records (the drop-in directory that
# containerd's `imports` names) is the node's path, not one under $HOST_ROOT.
ctk_in_node_view() {
  dir="$(engine_dir)"
  mkdir -p "$dir"
  # shellcheck disable=SC2016 # expanded by the inner shell
  unshare -m --propagation private sh -c '
    mount --bind "$1" "$2" || exit 1
    shift 2
    exec "$@"' sh "$HOST_ROOT$dir" "$dir" "$0" ctk "$@"
}

sha_of() {
  if [ -f "$1" ]; then sha256sum <"$1" | cut -d' ' -f1; else echo absent; fi
}

# --- remembering what install changed --------------------------------------------------------
# $STATE/dirs   node paths of the directories install created, in creation order
# $STATE/files  "present <path> <backup>" or "absent <path>": each file install may change, as
#               it was before the first install (<backup> is a copy in $STATE, mode and owner kept)
# $STATE/written "<sha256|absent> <path>": each such file as install left it
# $STATE/installed  the names install put into $TOOLKIT_DIR

# ensure_dir <node path>: creates it and its missing parents, remembering each one it made.
ensure_dir() {
  [ -d "$HOST_ROOT$1" ] && return 0
  ensure_dir "$(dirname "$1")"
  mkdir "$HOST_ROOT$1"
  echo "$1" >>"$STATE/dirs"
  log "created $1"
}

# remembered <node path>: whether remember_file has recorded it.
remembered() { awk -v p="$1" '$2 == p { found = 1 } END { exit !found }' "$STATE/files"; }

# remember_file <node path>: records the file as it is now, once (the first install's view wins).
remember_file() {
  if remembered "$1"; then return 0; fi
  if [ -e "$HOST_ROOT$1" ]; then
    n="$(($(wc -l <"$STATE/files" 2>/dev/null || echo 0) + 1))"
    cp -p "$HOST_ROOT$1" "$STATE/backup.$n"
    echo "present $1 backup.$n" >>"$STATE/files"
  else
    echo "absent $1" >>"$STATE/files"
  fi
}

record_written() {
  : >"$STATE/written.new"
  while read -r _ path _; do
    echo "$(sha_of "$HOST_ROOT$path") $path" >>"$STATE/written.new"
  done <"$STATE/files"
  mv "$STATE/written.new" "$STATE/written"
}

written_sha() { awk -v p="$1" '$2 == p { print $1 }' "$STATE/written" 2>/dev/null; }

# --- install -----------------------------------------------------------------------------------

open_state() {
  target="$HOST_ROOT$TOOLKIT_DIR"
  if [ ! -d "$STATE" ]; then
    if [ -d "$target" ] && [ -n "$(ls -A "$target")" ]; then
      die "$TOOLKIT_DIR on the node holds files this installer did not put there (another toolkit?): remove them or set TOOLKIT_DIR"
    fi
    created=0
    if [ ! -d "$target" ]; then
      mkdir "$target"
      created=1
    fi
    mkdir "$STATE"
    echo "$created" >"$STATE/toolkit-created"
    : >"$STATE/dirs"
    : >"$STATE/files"
    : >"$STATE/installed"
  fi
  [ -d "$TOOLKIT_DIR/.nvct-installer" ] ||
    die "$TOOLKIT_DIR in this container is not the node's $TOOLKIT_DIR: mount the node's $(dirname "$TOOLKIT_DIR") at the same path"
}

# Replaces <dst> by a copy of <src> through a rename, so a binary that is running (the shim under
# a container) is never rewritten in place.
install_file() {
  src="$1" dst="$2"
  rm -f "$dst.nvct-new"
  if [ -L "$src" ]; then
    ln -s "$(readlink "$src")" "$dst.nvct-new"
  else
    cp -p "$src" "$dst.nvct-new"
  fi
  mv -f "$dst.nvct-new" "$dst"
}

# A dynamically linked binary ships as <name>.real; <name> is a wrapper that makes it load the
# libraries copied next to it, since the node may have other versions of them or none.
write_wrapper() {
  name="$1" dst="$2"
  rm -f "$dst.nvct-new"
  cat >"$dst.nvct-new" <<EOF
#!/bin/sh
# Written by nvct-installer: $name links against the libraries in $TOOLKIT_DIR/lib.
LD_LIBRARY_PATH="$TOOLKIT_DIR/lib" exec "$TOOLKIT_DIR/$name.real" "\$@"
EOF
  chmod 0755 "$dst.nvct-new"
  mv -f "$dst.nvct-new" "$dst"
}

note_installed() {
  grep -qx "$1" "$STATE/installed" || echo "$1" >>"$STATE/installed"
}

install_toolkit() {
  target="$HOST_ROOT$TOOLKIT_DIR"
  if [ -d "$PAYLOAD_DIR/lib" ]; then
    [ -d "$target/lib" ] || {
      mkdir "$target/lib"
      note_installed lib
    }
    for f in "$PAYLOAD_DIR"/lib/*; do
      [ -e "$f" ] || continue
      install_file "$f" "$target/lib/${f##*/}"
      note_installed "lib/${f##*/}"
    done
  fi
  for f in "$PAYLOAD_DIR"/*; do
    [ -f "$f" ] || [ -L "$f" ] || continue
    name="${f##*/}"
    install_file "$f" "$target/$name"
    note_installed "$name"
    case "$name" in
      *.real)
        write_wrapper "${name%.real}" "$target/${name%.real}"
        note_installed "${name%.real}"
        ;;
    esac
  done
  [ -x "$TOOLKIT_DIR/nvidia-container-runtime" ] ||
    die "$TOOLKIT_DIR/nvidia-container-runtime is not visible in this container after the copy"
  # The node's copy must run as it is, libraries included.
  "$TOOLKIT_DIR/nvidia-ctk" --version >/dev/null ||
    die "the installed $TOOLKIT_DIR/nvidia-ctk does not run"
  log "installed the toolkit in $TOOLKIT_DIR ($(wc -l <"$STATE/installed") files)"
}

# The node's config.toml, only if it has none: the defaults with this toolkit's paths, and the
# ldconfig and user values decided from the node's files, not the image's.
install_nvct_config() {
  remember_file "$NVCT_CONFIG"
  if [ -e "$HOST_ROOT$NVCT_CONFIG" ]; then
    log "$NVCT_CONFIG exists on the node: left as it is"
    return 0
  fi
  ensure_dir "$(dirname "$NVCT_CONFIG")"
  ldconfig="@/sbin/ldconfig"
  [ -e "$HOST_ROOT/sbin/ldconfig.real" ] && ldconfig="@/sbin/ldconfig.real"
  set -- --set "nvidia-container-cli.path=$TOOLKIT_DIR/nvidia-container-cli" \
    --set "nvidia-container-cli.ldconfig=$ldconfig" \
    --set "nvidia-container-runtime-hook.path=$TOOLKIT_DIR/nvidia-container-runtime-hook" \
    --set "nvidia-ctk.path=$TOOLKIT_DIR/nvidia-ctk"
  if grep -Eq '^ID_LIKE=.*(suse|opensuse)' "$HOST_ROOT/etc/os-release" 2>/dev/null; then
    set -- "$@" --set "nvidia-container-cli.user=root:video"
  fi
  # Made in the container's /tmp, so that nvidia-ctk's lock file (deleted when done) is there too.
  payload_ctk --quiet config default --output=/tmp/nvct-config.toml
  payload_ctk --quiet config --config-file=/tmp/nvct-config.toml --in-place "$@"
  tmp="$HOST_ROOT$NVCT_CONFIG.nvct-new"
  cp /tmp/nvct-config.toml "$tmp"
  chmod 0644 "$tmp"
  mv -f "$tmp" "$HOST_ROOT$NVCT_CONFIG"
  log "wrote $NVCT_CONFIG"
}

configure_engine() {
  ensure_dir "$(engine_dir)"
  ensure_dir "$(dirname "$RUNTIME_DROP_IN")"
  # nvidia-ctk serialises edits through a sidecar lock file next to each file it edits; it
  # deletes it when done, but a killed run leaves one: remembered, so cleanup removes it too.
  for f in "$RUNTIME_CONFIG" "$RUNTIME_DROP_IN"; do
    remember_file "$f"
    remember_file "$(dirname "$f")/.$(basename "$f").lock"
  done
  set -- runtime configure --runtime="$RUNTIME" --config="$RUNTIME_CONFIG" \
    --drop-in-config="$RUNTIME_DROP_IN" --nvidia-runtime-name="$RUNTIME_NAME" \
    --nvidia-runtime-path="$TOOLKIT_DIR/nvidia-container-runtime"
  is_true "$SET_AS_DEFAULT" && set -- "$@" --set-as-default
  is_true "$CDI_ENABLED" && set -- "$@" --cdi.enabled
  ctk_in_node_view "$@" || die "nvidia-ctk $* failed"
  log "configured $RUNTIME: runtime handler '$RUNTIME_NAME' in $RUNTIME_DROP_IN"
}

restart_engine() {
  if ! is_true "$RESTART"; then
    log "RESTART is off: restart $RUNTIME on the node to load the change"
    return 0
  fi
  log "restarting $RUNTIME on the node"
  nsenter --target 1 --mount --uts --ipc --net --pid -- systemctl restart "$RUNTIME" ||
    die "systemctl restart $RUNTIME on the node failed"
  # The engine's socket (the node's run directory, mounted at the same path) shows it serves again.
  [ -d "$(dirname "$RUNTIME_SOCKET")" ] || return 0
  i=0
  while [ ! -S "$RUNTIME_SOCKET" ]; do
    i=$((i + 1))
    [ "$i" -le 60 ] || die "$RUNTIME_SOCKET did not come back within 60 s of the restart"
    sleep 1
  done
  log "$RUNTIME is back ($RUNTIME_SOCKET)"
}

do_install() {
  open_state
  install_toolkit
  install_nvct_config
  configure_engine
  record_written
  restart_engine
  log "install complete"
}

# --- cleanup -----------------------------------------------------------------------------------

# Puts a remembered file back as it was, unless someone changed it since install wrote it.
restore_file() {
  state="$1" path="$2" backup="$3" before_sha="$4"
  now="$HOST_ROOT$path"
  want="$(written_sha "$path")"
  if [ -n "$want" ] && [ "$before_sha" != "$want" ]; then
    if [ -e "$now" ]; then log "kept $path: changed on the node since install"; fi
    return 0
  fi
  if [ "$state" = present ]; then
    [ "$(sha_of "$now")" != "$(sha_of "$STATE/$backup")" ] || return 0
    cp -p "$STATE/$backup" "$now.nvct-restore"
    mv -f "$now.nvct-restore" "$now"
    log "restored $path"
  elif [ -e "$now" ]; then
    rm -f "$now"
    log "removed $path"
  fi
}

do_cleanup() {
  if [ ! -d "$STATE" ]; then
    log "nothing to clean up: no install state in $TOOLKIT_DIR/.nvct-installer"
    return 0
  fi
  # Whether each file is still as install left it, decided before --remove edits any of them.
  : >/tmp/nvct-cleanup.files
  while read -r state path backup; do
    echo "$state $path ${backup:--} $(sha_of "$HOST_ROOT$path")" >>/tmp/nvct-cleanup.files
  done <"$STATE/files"

  if remembered "$RUNTIME_CONFIG"; then
    set -- runtime configure --remove --runtime="$RUNTIME" --config="$RUNTIME_CONFIG" \
      --drop-in-config="$RUNTIME_DROP_IN" --nvidia-runtime-name="$RUNTIME_NAME"
    if ctk_in_node_view "$@"; then
      log "removed the '$RUNTIME_NAME' runtime from $RUNTIME (nvidia-ctk runtime configure --remove)"
    else
      log "warning: nvidia-ctk $* failed; restoring the files anyway"
    fi
  fi
  while read -r state path backup before; do
    restore_file "$state" "$path" "$backup" "$before"
  done </tmp/nvct-cleanup.files

  target="$HOST_ROOT$TOOLKIT_DIR"
  sort -r "$STATE/installed" | while read -r name; do
    if [ -d "$target/$name" ] && [ ! -L "$target/$name" ]; then
      rmdir "$target/$name" 2>/dev/null || log "kept $TOOLKIT_DIR/$name: not empty"
    else
      rm -f "$target/$name"
    fi
  done
  dirs="$(cat "$STATE/dirs")"
  toolkit_created="$(cat "$STATE/toolkit-created")"
  rm -rf "$STATE"
  # Directories install created, newest first, while they are empty.
  for d in $(echo "$dirs" | sed '1!G;h;$!d'); do
    rmdir "$HOST_ROOT$d" 2>/dev/null || log "kept $d: not empty"
  done
  if [ "$toolkit_created" = 1 ]; then
    rmdir "$target" 2>/dev/null || log "kept $TOOLKIT_DIR: not empty"
  fi
  restart_engine
  log "cleanup complete"
}

# --- main --------------------------------------------------------------------------------------

main() {
  mode="${1:-install}"
  case "$mode" in
    ctk)
      # Internal: the command ctk_in_node_view runs inside its mount namespace.
      shift
      payload_ctk "$@"
      return
      ;;
    install | install-only | cleanup) ;;
    *) die "unknown mode '$mode': use install, install-only or cleanup" ;;
  esac
  check_environment
  case "$mode" in
    cleanup)
      do_cleanup
      return
      ;;
    install-only)
      do_install
      return
      ;;
  esac
  # DaemonSet mode: install, report ready, then wait for SIGTERM.
  trap 'on_term' TERM INT
  do_install
  touch "$READY_FILE"
  sleep infinity &
  sleeper=$!
  wait "$sleeper" || :
}

on_term() {
  rm -f "$READY_FILE"
  [ -n "${sleeper:-}" ] && kill "$sleeper" 2>/dev/null
  if is_true "$CLEANUP_ON_EXIT"; then
    log "SIGTERM: cleaning up (CLEANUP_ON_EXIT=true)"
    do_cleanup
  else
    log "SIGTERM: leaving the install in place (CLEANUP_ON_EXIT=false)"
  fi
  exit 0
}

main "$@"
