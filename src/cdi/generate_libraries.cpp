#include "nvct/cdi/generate_libraries.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"

namespace nvct::cdi {
namespace {

// DriverLibrary names point at static storage; extra libraries are named by their group.
constexpr std::string_view kVersionedName = "driver library";
constexpr std::string_view kNvvm70Name = "libnvidia-nvvm70.so";
constexpr std::string_view kVdpauName = "libvdpau_nvidia.so";

bool is_elf(const driver::DriverRoot& root, const std::string& path) {
  auto fd = root.open_file(path, O_RDONLY);
  if (!fd) return false;
  char magic[4];
  return ::pread(fd->get(), magic, sizeof magic, 0) == 4 && std::string_view(magic, 4) ==
                                                                "\x7f"
                                                                "ELF";
}

class Collector {
 public:
  Collector(driver::DriverInfo& info, const driver::DriverRoot& root) : info_(info), root_(root) {}

  bool has(const std::string& resolved) const {
    return std::any_of(info_.libs.begin(), info_.libs.end(),
                       [&](const driver::DriverLibrary& l) { return l.path == resolved; });
  }

  // `path` is root-relative and may be a symlink; the real file is what gets mounted.
  void add(std::string_view name, const std::string& path) {
    auto resolved = root_.resolve(path);
    if (!resolved) {
      log::debug("skipping {}: {}", path, resolved.error().message());
      return;
    }
    if (has(*resolved)) return;
    if (!is_elf(root_, *resolved)) {
      log::debug("skipping {}: not an ELF file", *resolved);
      return;
    }
    log::debug("adding CDI library {}", *resolved);
    info_.libs.push_back({name, driver::Capability::kCompute, std::move(*resolved)});
  }

 private:
  driver::DriverInfo& info_;
  const driver::DriverRoot& root_;
};

bool is_nvvm70(std::string_view file) { return strings::starts_with(file, "libnvidia-nvvm70.so"); }

bool is_versioned(std::string_view file, std::string_view version) {
  return !version.empty() && strings::ends_with(file, ".so." + std::string(version));
}

bool in_explicit_list(std::string_view file) {
  const auto& names = driver::driver_library_names();
  return std::any_of(names.begin(), names.end(), [&](const driver::DriverFileName& n) {
    return strings::starts_with(file, n.name);
  });
}

}  // namespace

void add_cdi_libraries(driver::DriverInfo& info, const driver::DriverRoot& root,
                       const driver::LdCache* cache, const LibraryDiscovery& options) {
  Collector collect(info, root);
  const std::string& version = info.nvrm_version;
  auto wanted = [&](std::string_view file) {
    return is_versioned(file, version) && (!options.explicit_only || in_explicit_list(file));
  };

  const std::uint32_t arch = driver::native_ldcache_arch();
  if (cache) {
    for (const auto& e : cache->entries) {
      if (!driver::ldcache_entry_matches(e.flags, arch)) continue;
      // The cache names sonames (libGL.so.1); the version filter applies to the file they
      // resolve to (libGL.so.550.54.14), as the reference does (cdi.md §6.3).
      auto resolved = root.resolve(e.value);
      std::string file(strings::basename(resolved ? *resolved : e.value));
      if (is_nvvm70(e.key)) {
        collect.add(kNvvm70Name, e.value);
      } else if (wanted(file)) {
        collect.add(kVersionedName, e.value);
      }
    }
  }
  for (const auto& dir : options.search_paths) {
    auto names = root.list_dir(dir);
    if (!names) {
      log::debug("skipping library search path {}: {}", dir, names.error().message());
      continue;
    }
    for (const auto& file : *names) {
      std::string path = dir + (dir.back() == '/' ? "" : "/") + file;
      if (is_nvvm70(file)) {
        collect.add(kNvvm70Name, path);
      } else if (wanted(file)) {
        collect.add(kVersionedName, path);
      }
    }
  }
  if (version.empty()) return;
  // vdpau drivers live in a subdirectory the ldcache does not list.
  std::vector<std::string> dirs;
  for (const auto& lib : info.libs) {
    std::string d = strings::dirname(lib.path);
    if (strings::basename(d) == "vdpau") continue;
    if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  }
  for (const auto& d : dirs) {
    std::string path = d + "/vdpau/libvdpau_nvidia.so." + version;
    if (root.exists(path)) collect.add(kVdpauName, path);
  }
}

}  // namespace nvct::cdi
