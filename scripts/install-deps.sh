#!/usr/bin/env bash
# Installs every Debian 12 package nvct needs to build, test and run its demo. Idempotent; run
# as root. Packages already present are not reinstalled, and apt-get update runs only when
# something is missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev libseccomp-dev
  libtomlplusplus-dev libexpected-dev libgtest-dev libgmock-dev libyaml-cpp-dev
  runc crun busybox-static docker.io containerd podman
  iproute2 procps util-linux kmod jq python3 python3-yaml e2fsprogs
  # security_*: the exec-site and environment tests trace the hooks
  strace
  # security_hostile_inputs_asan: the table against a clang ASan + UBSan build (the fuzz preset's)
  clang libclang-rt-14-dev
  debhelper dpkg-dev rpm lintian help2man fakeroot ccache
  mmdebstrap apt-utils
  # e2e_runc_bats: runc's own bats suite (Debian's runc source) and its Go helper programs
  bats gawk file bsdutils golang-go golang-github-containerd-console-dev
  golang-github-urfave-cli-dev golang-golang-x-sys-dev golang-github-cyphar-filepath-securejoin-dev
  golang-github-opencontainers-specs-dev golang-github-seccomp-libseccomp-golang-dev
  golang-github-sirupsen-logrus-dev
  # e2e_cri_*: pods with a CNI bridge, critest's images from a local registry
  containernetworking-plugins docker-registry skopeo iptables curl
)

# `--demo`: only what scripts/demo.sh needs (build the binaries and the mock driver, run runc).
demo_packages=(
  build-essential cmake pkg-config
  nlohmann-json3-dev libcli11-dev libspdlog-dev libfmt-dev libseccomp-dev
  libtomlplusplus-dev libexpected-dev libyaml-cpp-dev
  runc busybox-static jq procps util-linux kmod
)
if [ "${1:-}" = "--demo" ]; then
  packages=("${demo_packages[@]}")
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: must run as root (apt-get install)" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all ${#packages[@]} packages present"
fi

# Podman on this class of machine refuses to start containers with the default ulimits.
if [ -f /etc/containers/containers.conf ] || [ -d /etc/containers ]; then
  mkdir -p /etc/containers
  if ! grep -q '^default_ulimits' /etc/containers/containers.conf 2>/dev/null; then
    printf '[containers]\ndefault_ulimits = []\n' >> /etc/containers/containers.conf
  fi
fi
