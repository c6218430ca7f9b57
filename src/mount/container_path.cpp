#include "nvct/mount/container_path.hpp"

#include <fmt/format.h>

#include <climits>
#include <vector>

#include "nvct/base/strings.hpp"

namespace nvct::mount {
namespace {

bool under(const std::string& path, const std::string& dir) {
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                         path[dir.size()] == '/');
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

Result<std::string> clean_container_path(const std::string& path, PathPolicy policy) {
  if (path.find('\0') != std::string::npos) return fail(EINVAL, "container path contains NUL");
  if (path.empty() || path[0] != '/')
    return fail(EINVAL, fmt::format("container path {} is not absolute", path));
  if (path.size() >= PATH_MAX) return fail(ENAMETOOLONG, "container path too long");
  std::vector<std::string> out;
  for (auto& comp : strings::split(path, '/')) {
    if (comp.empty() || comp == ".") continue;
    if (comp == "..") {
      if (!out.empty()) out.pop_back();
      continue;
    }
    out.push_back(comp);
  }
  std::string clean = "/" + strings::join(out, "/");
  if (clean == "/") return fail(EINVAL, fmt::format("container path {} is the root", path));
  NVCT_TRY(check_resolved_location(clean, policy));
  return clean;
}

Status check_resolved_location(const std::string& p, PathPolicy policy) {
  if (p == "/") return fail(EINVAL, "target is the container root");
  if (under(p, "/sys")) return fail(EPERM, fmt::format("target {} is under /sys", p));
  if (under(p, "/proc")) {
    if (policy == PathPolicy::kProcfs && under(p, "/proc/driver/nvidia")) return ok();
    return fail(EPERM, fmt::format("target {} is under /proc", p));
  }
  if (under(p, "/dev")) {
    if (policy == PathPolicy::kDevice && (starts_with(p, "/dev/nvidia") || under(p, "/dev/dri")))
      return ok();
    return fail(EPERM, fmt::format("target {} is under /dev", p));
  }
  if (policy == PathPolicy::kProcfs)
    return fail(EPERM, fmt::format("target {} is outside /proc/driver/nvidia", p));
  // A device node that resolved away from /dev (a symlinked /dev in the image) is refused.
  if (policy == PathPolicy::kDevice)
    return fail(EPERM, fmt::format("device target {} is outside /dev", p));
  return ok();
}

std::string dirname_of(const std::string& clean_path) {
  auto pos = clean_path.rfind('/');
  return pos == 0 || pos == std::string::npos ? std::string("/") : clean_path.substr(0, pos);
}

std::string basename_of(const std::string& clean_path) {
  auto pos = clean_path.rfind('/');
  return pos == std::string::npos ? clean_path : clean_path.substr(pos + 1);
}

}  // namespace nvct::mount
