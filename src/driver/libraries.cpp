#include "nvct/driver/libraries.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <optional>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/driver/elf_note.hpp"

namespace nvct::driver {
namespace {

constexpr std::string_view kElfMagic =
    "\x7f"
    "ELF";

// The selector's "ELF file must open" check.
bool is_elf_file(const DriverRoot& root, const std::string& path) {
  auto fd = root.open_file(path, O_RDONLY);
  if (!fd) {
    // A FIFO, device or socket planted as a library is skipped, and said so (issue 18).
    log::warn("skipping {}: {}", path, fd.error().message());
    return false;
  }
  char magic[4];
  return ::pread(fd->get(), magic, sizeof magic, 0) == 4 && std::string_view(magic, 4) == kElfMagic;
}

// libnvidia-tls comes in variants for different thread-local storage ABIs; the reference takes
// only the one tagged GNU / Linux 2.3.99.
bool has_tls_abi_tag(const DriverRoot& root, const std::string& path) {
  auto fd = root.open_file(path, O_RDONLY);
  if (!fd) return false;
  auto tag = read_abi_tag(fd->get());
  if (!tag || !*tag) {
    log::debug("skipping {}: no usable .note.ABI-tag", path);
    return false;
  }
  return (*tag)->os == 0 && (*tag)->version == std::array<unsigned, 3>{2, 3, 99};
}

#if defined(__x86_64__)
constexpr std::string_view kMultiarch = "x86_64-linux-gnu";
constexpr std::string_view kMultiarch32 = "i386-linux-gnu";
#elif defined(__aarch64__)
constexpr std::string_view kMultiarch = "aarch64-linux-gnu";
constexpr std::string_view kMultiarch32 = "arm-linux-gnueabihf";
#else
constexpr std::string_view kMultiarch = "powerpc64le-linux-gnu";
constexpr std::string_view kMultiarch32 = "";
#endif

}  // namespace

std::string_view capability_name(Capability cap) {
  switch (cap) {
    case Capability::kUtility:
      return "utility";
    case Capability::kCompute:
      return "compute";
    case Capability::kNgx:
      return "ngx";
    case Capability::kVideo:
      return "video";
    case Capability::kGraphics:
      return "graphics";
  }
  return "unknown";
}

const std::vector<DriverFileName>& driver_library_names() {
  using C = Capability;
  static const std::vector<DriverFileName> kNames = {
      {"libnvidia-ml.so", C::kUtility},
      {"libnvidia-cfg.so", C::kUtility},
      {"libnvidia-nscq.so", C::kUtility},
      {"libcuda.so", C::kCompute},
      {"libcudadebugger.so", C::kCompute},
      {"libnvidia-opencl.so", C::kCompute},
      {"libnvidia-gpucomp.so", C::kCompute},
      {"libnvidia-ptxjitcompiler.so", C::kCompute},
      {"libnvidia-fatbinaryloader.so", C::kCompute},
      {"libnvidia-allocator.so", C::kCompute},
      {"libnvidia-compiler.so", C::kCompute},
      {"libnvidia-pkcs11.so", C::kCompute},
      {"libnvidia-pkcs11-openssl3.so", C::kCompute},
      {"libnvidia-nvvm.so", C::kCompute},
      {"libnvidia-ngx.so", C::kNgx},
      {"libvdpau_nvidia.so", C::kVideo},
      {"libnvidia-encode.so", C::kVideo},
      {"libnvidia-opticalflow.so", C::kVideo},
      {"libnvcuvid.so", C::kVideo},
      {"libnvidia-eglcore.so", C::kGraphics},
      {"libnvidia-glcore.so", C::kGraphics},
      {"libnvidia-tls.so", C::kGraphics},
      {"libnvidia-glsi.so", C::kGraphics},
      {"libnvidia-fbc.so", C::kGraphics},
      {"libnvidia-ifr.so", C::kGraphics},
      {"libnvidia-rtcore.so", C::kGraphics},
      {"libnvoptix.so", C::kGraphics},
      // GLVND (the default; the legacy no-glvnd list is not reachable from the CLI).
      {"libGLX_nvidia.so", C::kGraphics},
      {"libEGL_nvidia.so", C::kGraphics},
      {"libGLESv2_nvidia.so", C::kGraphics},
      {"libGLESv1_CM_nvidia.so", C::kGraphics},
      {"libnvidia-glvkspirv.so", C::kGraphics},
      {"libnvidia-cbl.so", C::kGraphics},
  };
  return kNames;
}

const std::vector<DriverFileName>& driver_binary_names() {
  using C = Capability;
  static const std::vector<DriverFileName> kNames = {
      {"nvidia-smi", C::kUtility},
      {"nvidia-debugdump", C::kUtility},
      {"nvidia-persistenced", C::kUtility},
      {"nv-fabricmanager", C::kUtility},
      {"nvidia-cuda-mps-control", C::kCompute},
      {"nvidia-cuda-mps-server", C::kCompute},
  };
  return kNames;
}

bool matches_driver_version(std::string_view path, std::string_view version) {
  return !version.empty() && strings::ends_with(strings::basename(path), version);
}

std::vector<DriverLibrary> select_libraries(const LdCache& cache, const DriverRoot& root,
                                            std::uint32_t arch, std::string_view version,
                                            bool compat32) {
  const auto& names = driver_library_names();
  std::vector<std::optional<std::string>> picks(names.size());
  for (const auto& e : cache.entries) {
    if (!ldcache_entry_matches(e.flags, arch)) continue;
    std::size_t i = 0;
    while (i < names.size() && !strings::starts_with(e.key, names[i].name)) ++i;
    if (i == names.size()) continue;
    auto resolved = root.resolve(e.value);
    if (!resolved) {
      log::debug("skipping {}: {}", e.value, resolved.error().message());
      continue;
    }
    if (picks[i] && *picks[i] == *resolved) continue;
    if (!is_elf_file(root, *resolved)) {
      log::debug("skipping {}: not an ELF file", *resolved);
      continue;
    }
    if (names[i].name == "libnvidia-tls.so" && !has_tls_abi_tag(root, *resolved)) continue;
    if (!matches_driver_version(*resolved, version)) {
      log::debug("skipping {}: does not match driver version {}", *resolved, version);
      continue;
    }
    if (picks[i]) log::debug("selecting {} over {}", *resolved, *picks[i]);
    picks[i] = std::move(*resolved);
  }
  std::vector<DriverLibrary> out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!picks[i]) {
      log::warn("missing {}library {}", compat32 ? "compat32 " : "", names[i].name);
      continue;
    }
    out.push_back({names[i].name, names[i].capability, std::move(*picks[i])});
  }
  return out;
}

Result<std::string> find_library(const LdCache* cache, const DriverRoot& root, std::uint32_t arch,
                                 std::string_view soname) {
  if (cache) {
    for (const auto& e : cache->entries) {
      if (e.key != soname || !ldcache_entry_matches(e.flags, arch)) continue;
      auto resolved = root.resolve(e.value);
      if (resolved) return resolved;
    }
  }
  bool native = arch == native_ldcache_arch();
  std::string_view triplet = native ? kMultiarch : kMultiarch32;
  for (std::string dir : {fmt::format("/lib/{}", triplet), fmt::format("/usr/lib/{}", triplet),
                          std::string(native ? "/lib64" : "/lib32"),
                          std::string(native ? "/usr/lib64" : "/usr/lib32"), std::string("/lib"),
                          std::string("/usr/lib")}) {
    auto resolved = root.resolve(dir + "/" + std::string(soname));
    if (resolved && is_elf_file(root, *resolved)) return resolved;
  }
  return fail(ENOENT,
              fmt::format("{}: cannot open shared object file: no such file or directory", soname));
}

const std::vector<DriverFileName>& cdi_binary_names() {
  using C = Capability;
  static const std::vector<DriverFileName> kNames = {
      {"nvidia-smi", C::kUtility},
      {"nvidia-debugdump", C::kUtility},
      {"nvidia-persistenced", C::kUtility},
      {"nvidia-cuda-mps-control", C::kCompute},
      {"nvidia-cuda-mps-server", C::kCompute},
      {"nvidia-imex", C::kUtility},
      {"nvidia-imex-ctl", C::kUtility},
  };
  return kNames;
}

std::vector<DriverBinary> find_binaries(const DriverRoot& root, std::string_view path_env,
                                        const std::vector<DriverFileName>& names) {
  std::vector<DriverBinary> out;
  auto dirs = strings::split(path_env, ':');
  for (const auto& n : names) {
    bool found = false;
    for (const auto& dir : dirs) {
      if (dir.empty() || dir[0] != '/') continue;
      std::string candidate = dir;
      while (candidate.size() > 1 && candidate.back() == '/') candidate.pop_back();
      if (candidate != "/") candidate += '/';
      candidate += n.name;
      auto resolved = root.resolve(candidate);
      if (!resolved) continue;
      auto st = root.stat(*resolved);
      if (!st || !S_ISREG(st->st_mode) || (st->st_mode & 0111) == 0) continue;
      out.push_back({n.name, n.capability, std::move(*resolved), std::move(candidate)});
      found = true;
      break;
    }
    if (!found) log::warn("missing binary {}", n.name);
  }
  return out;
}

}  // namespace nvct::driver
