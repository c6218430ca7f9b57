#!/usr/bin/env bash
# make-driver-root.sh --topology <file> --out <dir> [--build-dir <cmake build dir>]
#
# Builds a complete mock NVIDIA driver root in <dir> from a topology file (topologies/*.conf;
# format in README.md): driver libraries + ld.so.cache, binaries, GSP firmware, IPC sockets,
# the /proc/driver/nvidia tree, proc/devices and device nodes. An existing <dir> made by this
# script is replaced. The build dir (default $NVCT_BUILD_DIR) must have the `mock_driver` target
# built. Device nodes need root; otherwise they are empty regular files and a warning is printed.
set -euo pipefail

die() { echo "make-driver-root: $*" >&2; exit 1; }
warn() { echo "make-driver-root: warning: $*" >&2; }

topology="" out="" build_dir="${NVCT_BUILD_DIR:-}"
while (($#)); do
  case "$1" in
    --topology) topology="${2:?--topology needs a file}"; shift 2 ;;
    --out) out="${2:?--out needs a directory}"; shift 2 ;;
    --build-dir) build_dir="${2:?--build-dir needs a directory}"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) die "unknown argument: $1" ;;
  esac
done
[[ -n "$topology" ]] || die "missing --topology <file>"
[[ -n "$out" ]] || die "missing --out <dir>"
[[ -n "$build_dir" ]] || die "missing --build-dir and NVCT_BUILD_DIR is not set"
[[ -f "$topology" ]] || die "topology $topology: no such file"
here="$(cd "$(dirname "$0")" && pwd)"
artifacts="$build_dir/tests/mock-driver"
for f in lib64/libnvidia-ml.so lib64/libcuda.so bin/nvidia-smi bin/nvct-mock-mksock; do
  [[ -e "$artifacts/$f" ]] ||
    die "$artifacts/$f is missing: run cmake --build $build_dir --target mock_driver"
done

# ---- topology ---------------------------------------------------------------------------
# trim <var> <text>: sets var to text without surrounding blanks (no subshell: forks are slow).
trim() { local s="$2"; s="${s#"${s%%[![:space:]]*}"}"; printf -v "$1" '%s' "${s%"${s##*[![:space:]]}"}"; }

declare -A conf=(
  [driver_version]=550.54.14 [cuda_version]=12040 [nvml]=yes [nvml_version]=""
  [imex_channels]=0 [persistenced]=yes [fabricmanager]=no [mps]=yes [decoy_version]=535.00.01
  [uvm_major]=238 [caps_major]=235 [imex_major]=234 [graphics]=no
  [wsl]=no [wsl_driver_store]=nv_dispi.inf_amd64_5b2a7c0e9d1f4a36
)
gpu_lines=() mig_lines=()
lineno=0
while IFS= read -r raw || [[ -n "$raw" ]]; do
  lineno=$((lineno + 1))
  trim line "${raw%%#*}"
  [[ -z "$line" ]] && continue
  [[ "$line" == *=* ]] || die "$topology:$lineno: expected 'key = value'"
  key="" value=""
  trim key "${line%%=*}"; trim value "${line#*=}"
  case "$key" in
    gpu) gpu_lines+=("$value") ;;
    mig) mig_lines+=("$value") ;;
    *) [[ -v "conf[$key]" ]] || die "$topology:$lineno: unknown key '$key'"; conf[$key]="$value" ;;
  esac
done < "$topology"
version="${conf[driver_version]}"
nvml_version="${conf[nvml_version]:-$version}"
[[ "$version" =~ ^[0-9][0-9.]*$ && ${#version} -le 31 ]] || die "bad driver_version '$version'"
[[ "$nvml_version" =~ ^[0-9][0-9.]*$ && ${#nvml_version} -le 31 ]] ||
  die "bad nvml_version '$nvml_version'"
[[ "${conf[cuda_version]}" =~ ^[0-9]{1,15}$ ]] || die "bad cuda_version '${conf[cuda_version]}'"
[[ "${conf[graphics]}" == yes || "${conf[graphics]}" == no ]] ||
  die "graphics must be yes or no, not '${conf[graphics]}'"
[[ "${conf[wsl]}" == yes || "${conf[wsl]}" == no ]] ||
  die "wsl must be yes or no, not '${conf[wsl]}'"
if [[ "${conf[wsl]}" == yes ]]; then
  ((${#gpu_lines[@]} == 0 && ${#mig_lines[@]} == 0)) ||
    die "$topology: a wsl root has no gpu or mig lines (WSL has no /proc/driver/nvidia)"
  [[ "${conf[wsl_driver_store]}" =~ ^[A-Za-z0-9._-]+$ ]] ||
    die "bad wsl_driver_store '${conf[wsl_driver_store]}'"
  for f in wsl/libdxcore.so wsl/libcuda_loader.so wsl/libnvidia-ml_loader.so wsl/libnvdxgdmal.so; do
    [[ -e "$artifacts/$f" ]] ||
      die "$artifacts/$f is missing: run cmake --build $build_dir --target mock_driver"
  done
fi

# "k1=v1; k2=v2" -> the associative array named $1.
parse_record() {
  local -n record="$1"
  local item k v
  record=()
  IFS=';' read -ra items <<< "$2"
  for item in "${items[@]}"; do
    trim item "$item"
    [[ -z "$item" ]] && continue
    trim k "${item%%=*}"; trim v "${item#*=}"
    record["$k"]="$v"
  done
}
# ---- GPU and MIG records (validated before anything is written) -------------------------
declare -A gpu mig busdir_of_minor=() mig_enabled=() mig_off=()
gpu_busdirs=() gpu_records=()
for record in "${gpu_lines[@]}"; do
  parse_record gpu "$record"
  for k in minor bus uuid model brand arch; do
    [[ -n "${gpu[$k]:-}" ]] || die "$topology: gpu line without $k: $record"
  done
  minor="${gpu[minor]}"
  [[ "$minor" =~ ^[0-9]+$ && "$minor" -lt 254 ]] || die "$topology: bad gpu minor '$minor'"
  [[ -z "${busdir_of_minor[$minor]:-}" ]] || die "$topology: two GPUs with minor $minor"
  [[ "${gpu[bus]}" =~ ^([0-9a-fA-F]{1,8}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.0$ ]] ||
    die "$topology: bad bus id '${gpu[bus]}' (want DDDDDDDD:BB:DD.0)"
  # The kernel names the directory with a 16-bit domain (mount.md §7.1 falls back to it).
  printf -v busdir '%04x:%s:%s.0' "0x${BASH_REMATCH[1]}" "${BASH_REMATCH[2],,}" \
    "${BASH_REMATCH[3],,}"
  case "${gpu[mig]:-unsupported}" in
    enabled) mig_enabled[$minor]=1 ;; disabled) mig_off[$minor]=1 ;; unsupported) ;;
    *) die "$topology: gpu mig must be enabled, disabled or unsupported" ;;
  esac
  busdir_of_minor[$minor]="$busdir"
  gpu_busdirs+=("$busdir")
  gpu_records+=("$record")
done
for record in "${mig_lines[@]}"; do
  parse_record mig "$record"
  for k in gpu gi ci uuid profile; do
    [[ -n "${mig[$k]:-}" ]] || die "$topology: mig line without $k: $record"
  done
  [[ "${mig[gi]}" =~ ^[0-9]+$ && "${mig[gi]}" -lt 15 && "${mig[ci]}" =~ ^[0-9]+$ &&
     "${mig[ci]}" -lt 8 ]] || die "$topology: mig gi must be 0-14 and ci 0-7: $record"
  [[ -n "${busdir_of_minor[${mig[gpu]}]:-}" ]] || die "$topology: mig line for unknown gpu: $record"
  [[ -n "${mig_enabled[${mig[gpu]}]:-}" ]] || die "$topology: mig line for a GPU without MIG: $record"
done

# ---- output directory -------------------------------------------------------------------
marker=".nvct-mock-driver-root"
out_abs="$(realpath -m "$out")"
[[ "$out_abs" != "/" ]] || die "refusing to use / as the output directory"
if [[ -e "$out_abs" ]]; then
  shopt -s nullglob dotglob
  entries=("$out_abs"/*)
  shopt -u nullglob dotglob
  if [[ -e "$out_abs/$marker" ]] || [[ -d "$out_abs" && ${#entries[@]} == 0 ]]; then
    rm -rf "$out_abs"
  else
    die "$out exists and was not made by make-driver-root.sh; not replacing it"
  fi
fi
root="$out_abs"

# ---- WSL2 (wsl = yes): what a WSL guest has instead of the Linux driver ------------------
# usr/lib/wsl/lib/libdxcore.so, one driver store under usr/lib/wsl/drivers, dev/dxg (misc major
# 10, minor 63: a fixed mock choice; the real minor is dynamic), an ld.so.conf naming
# /usr/lib/wsl/lib as WSL's ld.wsl.conf does; no procfs, no /dev/nvidia*, no lib64 driver.
if [[ "${conf[wsl]}" == yes ]]; then
  store="$root/usr/lib/wsl/drivers/${conf[wsl_driver_store]}"
  mkdir -p "$root/etc" "$root/dev" "$root/tmp" "$root/usr/lib/wsl/lib" "$store"
  printf 'topology: %s\n' "$topology" > "$root/$marker"
  printf '/usr/lib/wsl/lib\n' > "$root/etc/ld.so.conf"
  cp "$artifacts/wsl/libdxcore.so" "$root/usr/lib/wsl/lib/libdxcore.so"
  cp "$artifacts/lib64/libcuda.so" "$store/libcuda.so.1.1"
  cp "$artifacts/wsl/libcuda_loader.so" "$store/libcuda_loader.so"
  cp "$artifacts/lib64/libnvidia-ptxjitcompiler.so" "$store/libnvidia-ptxjitcompiler.so.1"
  cp "$artifacts/lib64/libnvidia-ml.so" "$store/libnvidia-ml.so.1"
  cp "$artifacts/wsl/libnvidia-ml_loader.so" "$store/libnvidia-ml_loader.so"
  cp "$artifacts/wsl/libnvdxgdmal.so" "$store/libnvdxgdmal.so.1"
  cp "$artifacts/bin/nvidia-smi" "$store/nvidia-smi"
  printf 'nvct mock CUDA cubins\n' > "$store/nvcubins.bin"
  chmod 0755 "$store"/*.so* "$store/nvidia-smi"
  chmod 1777 "$root/tmp"
  ldconfig="$(PATH="$PATH:/usr/sbin:/sbin" command -v ldconfig)" || die "ldconfig not found"
  "$ldconfig" -X -r "$root"
  if ((EUID == 0)); then
    mknod -m 0666 "$root/dev/dxg" c 10 63
  else
    warn "not root: device nodes are empty regular files"
    : > "$root/dev/dxg"
  fi
  exit 0
fi
lib64="usr/lib/x86_64-linux-gnu" lib32="usr/lib/i386-linux-gnu"
decoy_dir="opt/nvidia-${conf[decoy_version]}/lib"
proc="$root/proc/driver/nvidia"
firmware="lib/firmware/nvidia/$version"

# ---- directories --------------------------------------------------------------------------
dirs=("$root/etc" "$root/dev" "$root/$lib64" "$root/$decoy_dir" "$root/usr/bin" "$root/$firmware"
      "$root/run" "$root/var" "$root/tmp" "$proc/capabilities/mig" "$root/proc/driver/nvidia-caps")
for busdir in "${gpu_busdirs[@]}"; do dirs+=("$proc/gpus/$busdir"); done
[[ -d "$artifacts/lib32" ]] && dirs+=("$root/$lib32")
[[ "${conf[persistenced]}" == yes ]] && dirs+=("$root/run/nvidia-persistenced")
[[ "${conf[fabricmanager]}" == yes ]] && dirs+=("$root/run/nvidia-fabricmanager")
[[ "${conf[mps]}" == yes ]] && dirs+=("$root/tmp/nvidia-mps")
# The driver makes the folder for every MIG-capable GPU, empty while MIG is off (seen on an H200,
# driver 580).
for minor in "${!mig_enabled[@]}" "${!mig_off[@]}"; do dirs+=("$proc/capabilities/gpu$minor/mig"); done
for record in "${mig_lines[@]}"; do
  parse_record mig "$record"
  dirs+=("$proc/capabilities/gpu${mig[gpu]}/mig/gi${mig[gi]}/ci${mig[ci]}")
done
mkdir -p "${dirs[@]}"
printf 'topology: %s\n' "$topology" > "$root/$marker"

# ---- libraries ----------------------------------------------------------------------------
printf '/%s\n' "$lib64" "$lib32" "$decoy_dir" > "$root/etc/ld.so.conf"
# One perl process copies, renames, links and patches every library: a fork costs ~10 ms on
# the CI machines and the builder must stay well under 2 s. The build placeholders (see
# build_facts.c and CMakeLists.txt) are overwritten with same-length NUL-padded values.
ROOT="$root" ARTIFACTS="$artifacts" LIST="$here/libraries.list" VERSION="$version" \
NVML_VERSION="$nvml_version" CUDA_VERSION="${conf[cuda_version]}" WITH_NVML="${conf[nvml]}" \
LIB64="$lib64" LIB32="$lib32" DECOY_DIR="$decoy_dir" DECOY_VERSION="${conf[decoy_version]}" \
perl -e '
  use strict; use warnings;
  my %e = %ENV;
  sub slurp { my ($p) = @_; open(my $f, "<:raw", $p) or die "read $p: $!\n"; local $/; my $d = <$f>; $d }
  sub patch { my ($data, $placeholder, $value) = @_;
    my $v = $value . ("\0" x (length($placeholder) - length($value)));
    $$data =~ s/\Q$placeholder\E/$v/g; }
  sub install { my ($src, $dst, $soname, $driver_version, $cuda) = @_;
    my $data = slurp($src);
    patch(\$data, "NVCTDRIVERVERSIONXXXXXXXXXXXXXX", $driver_version);
    patch(\$data, "NVCTCUDAVERSION", $cuda) if defined $cuda;
    open(my $f, ">:raw", $dst) or die "write $dst: $!\n"; print $f $data; close($f) or die "$dst: $!\n";
    chmod(0755, $dst);
    if ($soname ne "" && $dst !~ m{/\Q$soname\E$}) {
      (my $link = $dst) =~ s{[^/]+$}{$soname};
      symlink((split m{/}, $dst)[-1], $link) or die "symlink $link: $!\n";
    } }
  open(my $list, "<", $e{LIST}) or die "read $e{LIST}: $!\n";
  while (<$list>) {
    next unless /^lib/;
    my ($stem, $so, $file, $group, $m32, $needed) = split;
    next if $stem eq "libnvidia-ml" && $e{WITH_NVML} ne "yes";
    my $is_nvml = $stem eq "libnvidia-ml";
    my $soname = "$stem.so." . ($so eq "\@V" ? $e{VERSION} : $so);
    my $name = $file eq "-" ? $soname
             : "$stem.so." . ($file eq "\@V" ? ($is_nvml ? $e{NVML_VERSION} : $e{VERSION}) : $file);
    install("$e{ARTIFACTS}/lib64/$stem.so", "$e{ROOT}/$e{LIB64}/$name", $soname,
            $is_nvml ? $e{NVML_VERSION} : $e{VERSION},
            ($is_nvml || $stem eq "libcuda") ? $e{CUDA_VERSION} : undef);
    my $src32 = "$e{ARTIFACTS}/lib32/$stem.so";
    install($src32, "$e{ROOT}/$e{LIB32}/$name", $soname, $e{VERSION}, undef)
      if $m32 eq "yes" && -e $src32;
  }
  # A leftover library of another release with the same soname, in its own directory: the
  # version filter of driver.md §10 must reject it.
  install("$e{ARTIFACTS}/lib64/libnvidia-fbc.so",
          "$e{ROOT}/$e{DECOY_DIR}/libnvidia-fbc.so.$e{DECOY_VERSION}", "libnvidia-fbc.so.1",
          $e{DECOY_VERSION}, undef);
' || die "installing the driver libraries failed"
# Paths in the cache are root-relative because ldconfig runs with -r; -X: the links are ours.
ldconfig="$(PATH="$PATH:/usr/sbin:/sbin" command -v ldconfig)" || die "ldconfig not found"
"$ldconfig" -X -r "$root"
[[ -s "$root/etc/ld.so.cache" ]] || die "ldconfig -r $root did not write etc/ld.so.cache"

# ---- binaries and firmware ----------------------------------------------------------------
cp "$artifacts/bin/nvidia-smi" "$root/usr/bin/nvidia-smi"
scripts=()
for bin in nvidia-debugdump nvidia-persistenced nv-fabricmanager nvidia-cuda-mps-control \
           nvidia-cuda-mps-server nvidia-imex nvidia-imex-ctl; do
  printf '#!/bin/sh\necho "%s %s (nvct mock driver)"\n' "$bin" "$version" > "$root/usr/bin/$bin"
  scripts+=("$root/usr/bin/$bin")
done
chmod 0755 "${scripts[@]}"
for fw in gsp_ga10x.bin gsp_tu10x.bin; do
  printf 'nvct mock GSP firmware %s %s\n' "$fw" "$version" > "$root/$firmware/$fw"
done

# ---- IPC: /var/run is an absolute symlink to /run as on Debian: resolve it in the root ----
ln -s /run "$root/var/run"
sockets=()
[[ "${conf[persistenced]}" == yes ]] && sockets+=("$root/run/nvidia-persistenced/socket")
[[ "${conf[fabricmanager]}" == yes ]] && sockets+=("$root/run/nvidia-fabricmanager/socket")
[[ "${conf[mps]}" == yes ]] && sockets+=("$root/tmp/nvidia-mps/control")
((${#sockets[@]} == 0)) || "$artifacts/bin/nvct-mock-mksock" "${sockets[@]}"
chmod 1777 "$root/tmp"

# ---- procfs -------------------------------------------------------------------------------
printf 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  Thu Feb 22 01:44:30 UTC 2024\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n' \
  "$version" > "$proc/version"
cat "$here/params.in" > "$proc/params"
printf 'Binary: ""\n' > "$proc/registry"
cap_file() { # <path> <minor>
  printf 'DeviceFileMinor: %s\nDeviceFileMode: 292\nDeviceFileModify: 1\n' "$2" > "$1"
}
cap_file "$proc/capabilities/mig/config" 1
cap_file "$proc/capabilities/mig/monitor" 2

# Device nodes: "path major minor mode" lines, created at the end in one process.
caps="${conf[caps_major]}"
nodes=("dev/nvidiactl 195 255 0666" "dev/nvidia-modeset 195 254 0666"
       "dev/nvidia-uvm ${conf[uvm_major]} 0 0666" "dev/nvidia-uvm-tools ${conf[uvm_major]} 1 0666"
       "dev/nvidia-caps/nvidia-cap1 $caps 1 0444" "dev/nvidia-caps/nvidia-cap2 $caps 2 0444")
for ((c = 0; c < conf[imex_channels]; c++)); do
  nodes+=("dev/nvidia-caps-imex-channels/channel$c ${conf[imex_major]} $c 0666")
done
# The IMEX management capability; its minor follows the MIG range of 32 GPUs (a mock choice).
if ((conf[imex_channels] > 0)); then
  cap_file "$proc/capabilities/fabric-imex-mgmt" 4323
  nodes+=("dev/nvidia-caps/nvidia-cap4323 $caps 4323 0400")
fi

for i in "${!gpu_records[@]}"; do
  parse_record gpu "${gpu_records[$i]}"
  minor="${gpu[minor]}" busdir="${gpu_busdirs[$i]}"
  printf 'Model: \t\t %s\nIRQ:   \t\t %s\nGPU UUID: \t %s\nVideo BIOS: \t 96.00.99.00.01\nBus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: \t 0xfffffffffffff\nBus Location: \t %s\nDevice Minor: \t %s\nGPU Excluded:\t No\n' \
    "${gpu[model]}" $((100 + minor)) "${gpu[uuid]}" "$busdir" "$minor" \
    > "$proc/gpus/$busdir/information"
  case "${gpu[mig]:-unsupported}" in
    enabled) mig_mode=Enabled ;; disabled) mig_mode=Disabled ;; *) mig_mode=N/A ;;
  esac
  printf 'Brand: %s\nCompute Capability: %s\nPCI Device Id: %s\nPCI Subsystem Id: %s\nMIG Mode: %s\nMIG Max Devices: 7\n' \
    "${gpu[brand]}" "${gpu[arch]}" "${gpu[pci_device_id]:-0x000010de}" \
    "${gpu[pci_subsystem_id]:-0x16c110de}" "$mig_mode" > "$proc/gpus/$busdir/nvct-mock"
  nodes+=("dev/nvidia$minor 195 $minor 0666")
done

# ---- graphics (graphics = yes): DRM nodes per GPU and the graphics config files ---------
# cardN/renderD(128+N) with N = minor + 1, so a card number is never the GPU index or minor
# (real hosts often have a card0 of the BMC's VGA device).
if [[ "${conf[graphics]}" == yes ]]; then
  for i in "${!gpu_records[@]}"; do
    parse_record gpu "${gpu_records[$i]}"
    card=$((gpu[minor] + 1)) render=$((gpu[minor] + 129))
    drm="$root/sys/bus/pci/devices/${gpu_busdirs[$i]}/drm"
    mkdir -p "$drm/card$card" "$drm/renderD$render" "$drm/card$card-DP-1"
    printf '226:%s\n' "$card" > "$drm/card$card/dev"
    printf '226:%s\n' "$render" > "$drm/renderD$render/dev"
    printf 'disconnected\n' > "$drm/card$card-DP-1/status"
    nodes+=("dev/dri/card$card 226 $card 0660" "dev/dri/renderD$render 226 $render 0666")
    # udev's links, which NVIDIA's toolkit reads to find a GPU's DRM nodes.
    mkdir -p "$root/dev/dri/by-path"
    ln -s "../card$card" "$root/dev/dri/by-path/pci-${gpu_busdirs[$i]}-card"
    ln -s "../renderD$render" "$root/dev/dri/by-path/pci-${gpu_busdirs[$i]}-render"
  done
  mkdir -p "$root/etc/vulkan/icd.d" "$root/usr/share/vulkan/implicit_layer.d" \
    "$root/usr/share/glvnd/egl_vendor.d" "$root/usr/share/egl/egl_external_platform.d" \
    "$root/usr/lib/xorg/modules/drivers" "$root/usr/lib/xorg/modules/extensions"
  printf '{"file_format_version": "1.0.1", "ICD": {"library_path": "libGLX_nvidia.so.0", "api_version": "1.3.277"}}\n' \
    > "$root/etc/vulkan/icd.d/nvidia_icd.json"
  printf '{"file_format_version": "1.0.0", "layer": {"name": "VK_LAYER_NV_optimus", "library_path": "libGLX_nvidia.so.0"}}\n' \
    > "$root/usr/share/vulkan/implicit_layer.d/nvidia_layers.json"
  printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "libEGL_nvidia.so.0"}}\n' \
    > "$root/usr/share/glvnd/egl_vendor.d/10_nvidia.json"
  printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "libnvidia-egl-gbm.so.1"}}\n' \
    > "$root/usr/share/egl/egl_external_platform.d/15_nvidia_gbm.json"
  printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "libnvidia-egl-wayland.so.1"}}\n' \
    > "$root/usr/share/egl/egl_external_platform.d/10_nvidia_wayland.json"
  printf 'nvct mock Xorg driver %s\n' "$version" > "$root/usr/lib/xorg/modules/drivers/nvidia_drv.so"
  printf 'nvct mock GLX module %s\n' "$version" \
    > "$root/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so.$version"
fi

# Real drivers number MIG cap minors as 15 GPU instances x (1 + 8 compute instances) per GPU.
for record in "${mig_lines[@]}"; do
  parse_record mig "$record"
  g="${mig[gpu]}" gi="${mig[gi]}" ci="${mig[ci]}"
  gi_minor=$((3 + g * 135 + gi * 9)) ci_minor=$((3 + g * 135 + gi * 9 + 1 + ci))
  printf 'MIG Device: %s %s %s %s\n' "$gi" "$ci" "${mig[uuid]}" "${mig[profile]}" \
    >> "$proc/gpus/${busdir_of_minor[$g]}/nvct-mock"
  gi_dir="$proc/capabilities/gpu$g/mig/gi$gi"
  if [[ ! -e "$gi_dir/access" ]]; then
    cap_file "$gi_dir/access" "$gi_minor"
    nodes+=("dev/nvidia-caps/nvidia-cap$gi_minor $caps $gi_minor 0444")
  fi
  cap_file "$gi_dir/ci$ci/access" "$ci_minor"
  nodes+=("dev/nvidia-caps/nvidia-cap$ci_minor $caps $ci_minor 0444")
done

# mig-minors lists every possible instance of every GPU, like the real driver.
{
  echo "config 1"
  echo "monitor 2"
  for i in "${!gpu_records[@]}"; do
    parse_record gpu "${gpu_records[$i]}"
    m="${gpu[minor]}"
    for ((gi = 0; gi < 15; gi++)); do
      echo "gpu$m/gi$gi/access $((3 + m * 135 + gi * 9))"
      for ((ci = 0; ci < 8; ci++)); do
        echo "gpu$m/gi$gi/ci$ci/access $((3 + m * 135 + gi * 9 + 1 + ci))"
      done
    done
  done
} > "$root/proc/driver/nvidia-caps/mig-minors"

# proc/modules: the loaded modules (nvidia-modprobe's test before it creates nvidia-modeset).
cat > "$root/proc/modules" <<MODULES
nvidia_uvm 1544192 0 - Live 0x0000000000000000 (PO)
nvidia_drm 77824 0 - Live 0x0000000000000000 (PO)
nvidia_modeset 1290240 1 nvidia_drm, Live 0x0000000000000000 (PO)
nvidia 56754176 2 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (PO)
drm_kms_helper 212992 1 nvidia_drm, Live 0x0000000000000000
MODULES

# proc/devices: decoys around the real names ("nvidia-caps" vs "nvidia-caps-imex-channels",
# names after the first empty line) catch sloppy parsers (driver.md §6).
cat > "$root/proc/devices" <<DEVICES
Character devices:
  1 mem
  4 /dev/vc/0
  4 tty
  5 /dev/tty
  5 /dev/console
  5 /dev/ptmx
 10 misc
 13 input
128 ptm
136 pts
195 nvidia-modeset
195 nvidia
195 nvidiactl
${conf[imex_major]} nvidia-caps-imex-channels
${conf[caps_major]} nvidia-caps
236 nvidia-nvlink
237 nvidia-nvswitch
${conf[uvm_major]} nvidia-uvm
254 gpiochip

Block devices:
  7 loop
  8 sd
239 nvidia-uvm-block-decoy
DEVICES

# ---- device nodes -------------------------------------------------------------------------
# mknodat through perl's syscall(): one process instead of one mknod(1) per node.
case "$(uname -m)" in x86_64) mknodat=259 ;; aarch64) mknodat=33 ;; *) mknodat="" ;; esac
if ((EUID != 0)); then
  warn "not root: device nodes are empty regular files"
fi
printf '%s\n' "${nodes[@]}" | ROOT="$root" IS_ROOT=$((EUID == 0)) MKNODAT="$mknodat" perl -e '
  use strict; use warnings;
  while (<STDIN>) {
    my ($rel, $major, $minor, $mode) = split;
    my $path = "$ENV{ROOT}/$rel";
    (my $dir = $path) =~ s{/[^/]+$}{};
    unless (-d $dir) { mkdir($dir) or die "mkdir $dir: $!\n"; }
    if (!$ENV{IS_ROOT}) {
      open(my $f, ">", $path) or die "create $path: $!\n"; close($f);
    } elsif ($ENV{MKNODAT} ne "") {
      my $dev = ($minor & 0xff) | (($major & 0xfff) << 8) | (($minor & ~0xff) << 12)
              | (($major & ~0xfff) << 32);
      syscall($ENV{MKNODAT}, -100, $path, 0020000 | oct($mode), $dev) == 0
        or die "mknod $path c $major $minor: $!\n";
    } else {
      system("mknod", $path, "c", $major, $minor) == 0 or die "mknod $path failed\n";
    }
    chmod(oct($mode), $path) or die "chmod $path: $!\n";
  }
' || die "creating device nodes failed"
