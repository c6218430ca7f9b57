#include "nvct/runtime/runtime_lookup.hpp"

#include <algorithm>
#include <array>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"

namespace nvct::runtime {

namespace {

constexpr std::array<std::string_view, 6> kDefaultDirs = {
    "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"};

std::string join_path(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (out.empty() || out.back() != '/') out += '/';
  out += name;
  return out;
}

// Why a path that exists cannot be used, or "" when it can.
std::string refusal(const std::string& path, const ExecutableProbe& probe) {
  auto info = probe.probe(path);
  if (!info) return "does not exist";
  if (!info->regular) return "not a regular file";
  if (!info->executable) return "not executable";
  auto self = probe.self();
  // A runtime entry that resolves to the shim itself (a symlink runc -> nvidia-container-runtime,
  // or the shim installed under a candidate's name) would exec in a loop.
  if (self && *self == info->id) return "is this shim itself";
  return "";
}

}  // namespace

std::vector<std::string> search_dirs(std::string_view path_env) {
  std::vector<std::string> dirs;
  auto add = [&dirs](std::string_view dir) {
    if (dir.empty()) return;
    std::string d(dir);
    if (std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(std::move(d));
  };
  for (const auto& dir : strings::split(path_env, ':')) add(dir);
  for (auto dir : kDefaultDirs) add(dir);
  return dirs;
}

namespace {

// Like find_executable, but records the reason each existing match was refused.
std::string find_with_reasons(std::string_view name, const std::vector<std::string>& dirs,
                              const ExecutableProbe& probe, std::vector<std::string>& reasons) {
  if (name.empty()) return "";
  if (name.front() == '/') {
    std::string path(name);
    auto why = refusal(path, probe);
    if (why.empty()) return path;
    reasons.push_back(path + ": " + why);
    return "";
  }
  // A relative name with a slash would depend on the cwd (the bundle): not a runtime name.
  if (name.find('/') != std::string_view::npos) {
    reasons.push_back(std::string(name) + ": relative paths are not searched");
    return "";
  }
  for (const auto& dir : dirs) {
    auto path = join_path(dir, name);
    auto why = refusal(path, probe);
    if (why.empty()) return path;
    if (why != "does not exist") reasons.push_back(path + ": " + why);
  }
  return "";
}

}  // namespace

std::string find_executable(std::string_view name, const std::vector<std::string>& dirs,
                            const ExecutableProbe& probe) {
  std::vector<std::string> ignored;
  return find_with_reasons(name, dirs, probe, ignored);
}

Result<std::string> find_runtime(const std::vector<std::string>& candidates,
                                 std::string_view path_env, const ExecutableProbe& probe) {
  if (candidates.empty()) return fail(EINVAL, "at least one runtime candidate must be specified");
  auto dirs = search_dirs(path_env);
  std::vector<std::string> reasons;
  for (const auto& candidate : candidates) {
    auto path = find_with_reasons(candidate, dirs, probe, reasons);
    if (!path.empty()) {
      log::debug("using low-level runtime {} (candidate {})", path, candidate);
      return path;
    }
  }
  std::string message =
      "no runtime binary found from candidate list: [" + strings::join(candidates, " ") + "]";
  if (!reasons.empty()) message += " (refused: " + strings::join(reasons, "; ") + ")";
  return fail(ENOENT, std::move(message));
}

}  // namespace nvct::runtime
