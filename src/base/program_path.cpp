#include "nvct/base/program_path.hpp"

#include <fmt/format.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "nvct/base/install_dirs.hpp"
#include "nvct/base/strings.hpp"

namespace nvct {

std::string self_exe_dir() {
  char exe[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return "";
  std::string self(exe, static_cast<std::size_t>(n));
  auto slash = self.rfind('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : self.substr(0, slash);
}

std::vector<std::string> program_search_dirs(std::string_view self_dir, std::string_view path_env,
                                             std::string_view install_bindir) {
  std::vector<std::string> dirs;
  auto add = [&](std::string_view raw) {
    std::string dir(raw);
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    // Relative PATH entries would depend on the cwd of whoever started us.
    if (!strings::starts_with(dir, "/")) return;
    if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(std::move(dir));
  };
  add(self_dir);
  for (const auto& dir : strings::split(path_env, ':')) add(dir);
  add(install_bindir);
  return dirs;
}

std::vector<std::string> program_search_dirs(std::string_view path_env) {
  return program_search_dirs(self_exe_dir(), path_env, install_bindir());
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

Result<std::string> resolve_program(std::string_view value, std::string_view default_name,
                                    const std::vector<std::string>& dirs,
                                    std::string_view setting) {
  if (!value.empty() && value.front() == '/') {
    std::string path(value);
    if (is_executable_file(path)) return path;
    return fail(ENOENT, fmt::format("{} is set to {}, which is not an executable file; install "
                                    "it there or change {}",
                                    setting, path, setting));
  }
  std::string_view name = value.empty() ? default_name : strings::basename(value);
  for (const auto& dir : dirs) {
    std::string candidate = (dir == "/" ? "" : dir) + "/" + std::string(name);
    if (is_executable_file(candidate)) return candidate;
  }
  return fail(ENOENT, fmt::format("{} not found ({} is \"{}\"): looked in {}; install it or set "
                                  "{} to its absolute path",
                                  name, setting, value, strings::join(dirs, ", "), setting));
}

}  // namespace nvct
