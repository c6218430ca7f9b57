#include "nvct/driver/wsl_driver_store.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include "nvct/base/strings.hpp"

namespace nvct::driver {
namespace {

bool is_regular_file(const DriverRoot& root, const std::string& path) {
  auto st = root.stat(path);
  return st && S_ISREG(st->st_mode);
}

}  // namespace

Result<std::vector<WslDriverStore>> find_wsl_driver_stores(const DriverRoot& root) {
  const std::string drivers(kWslDriversDir);
  std::vector<WslDriverStore> out;
  auto names = root.list_dir(drivers);
  if (names) {
    for (const auto& name : *names) {
      auto dir = root.resolve(drivers + "/" + name);
      if (!dir) continue;
      auto st = root.stat(*dir);
      if (!st || !S_ISDIR(st->st_mode)) continue;
      WslDriverStore store;
      store.path = *dir;
      for (const auto& file : kWslDriverStoreFiles)
        if (is_regular_file(root, store.path + "/" + file)) store.files.push_back(file);
      auto has = [&](std::string_view f) {
        for (const auto& present : store.files)
          if (present == f) return true;
        return false;
      };
      if (has("libcuda.so.1.1") || has("libnvidia-ml.so.1")) out.push_back(std::move(store));
    }
  }
  if (out.empty())
    return fail(ENOENT, fmt::format("no NVIDIA WSL driver store found: no directory under {} "
                                    "holds libcuda.so.1.1 or libnvidia-ml.so.1",
                                    root.host_path(drivers)));
  return out;
}

Result<std::string> find_dxcore(const DriverRoot& root,
                                const std::vector<std::string>& search_paths) {
  std::vector<std::string> dirs = search_paths;
  if (dirs.empty()) dirs.emplace_back(kWslLibDir);
  std::vector<std::string> searched;
  for (const auto& dir : dirs) {
    std::string candidate = normalize_path(dir + "/" + std::string(kDxcoreLibrary));
    auto real = root.resolve(candidate);
    if (real && is_regular_file(root, *real)) return *real;
    searched.push_back(root.host_path(normalize_path(dir)));
  }
  return fail(ENOENT,
              fmt::format("{} not found in {}", kDxcoreLibrary, strings::join(searched, ", ")));
}

}  // namespace nvct::driver
