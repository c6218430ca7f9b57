#include "nvct/driver/graphics_files.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include "nvct/base/log.hpp"

namespace nvct::driver {
namespace {

// The root-relative real path of a regular file, or nullopt.
std::optional<std::string> regular_file(const DriverRoot& root, const std::string& path) {
  auto st = root.stat(path);
  if (!st || !S_ISREG(st->st_mode)) return std::nullopt;
  auto real = root.resolve(path);
  if (!real) return std::nullopt;
  return *real;
}

// The first directory of dirs (each joined with sub) that holds `name`.
std::optional<GraphicsFile> first_match(const DriverRoot& root,
                                        const std::vector<std::string>& dirs,
                                        std::string_view name) {
  for (const auto& dir : dirs) {
    std::string path = fmt::format("{}/{}", dir, name);
    if (auto source = regular_file(root, path)) return GraphicsFile{path, *source};
  }
  return std::nullopt;
}

}  // namespace

GraphicsFiles find_graphics_files(const DriverRoot& root, std::string_view driver_version,
                                  const std::vector<std::string>& extra_config_dirs) {
  GraphicsFiles out;
  std::vector<std::string> config_dirs;
  for (const auto& dir : extra_config_dirs) {
    std::string d = dir;
    while (d.size() > 1 && d.back() == '/') d.pop_back();
    if (d.empty() || d == "/") continue;  // the names are relative to a config directory
    config_dirs.push_back(d.front() == '/' ? d : "/" + d);
  }
  config_dirs.insert(config_dirs.end(), std::begin(kGraphicsConfigDirs),
                     std::end(kGraphicsConfigDirs));
  for (auto name : kGraphicsConfigNames)
    if (auto f = first_match(root, config_dirs, name)) out.files.push_back(std::move(*f));

  std::vector<std::string> drivers, extensions;
  for (auto dir : kXorgModuleDirs) {
    drivers.push_back(fmt::format("{}/drivers", dir));
    extensions.push_back(fmt::format("{}/extensions", dir));
  }
  if (auto f = first_match(root, drivers, "nvidia_drv.so")) out.files.push_back(std::move(*f));
  if (!driver_version.empty()) {
    std::string glx = fmt::format("libglxserver_nvidia.so.{}", driver_version);
    if (auto f = first_match(root, extensions, glx)) {
      std::string dir = f->container_path.substr(0, f->container_path.rfind('/'));
      out.links.push_back(ContainerLink{dir + "/libglxserver_nvidia.so", glx});
      out.files.push_back(std::move(*f));
    }
  }
  for (const auto& f : out.files)
    log::debug("graphics file {} (source {}{})", f.container_path, root.path(), f.source);
  return out;
}

}  // namespace nvct::driver
