// Spec directory scanning and the device index. Only regular files (symlinks followed) named
// *.json or *.yaml directly in a spec dir are read; subdirectories are not descended into. Any
// other object with such a name (a FIFO, a directory, a symlink loop) is an error of its own path.
#include "nvct/cdi/registry.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/cdi/spec_io.hpp"

namespace nvct::cdi {

Registry Registry::load(const std::vector<std::string>& spec_dirs) {
  Registry r;
  for (std::size_t i = 0; i < spec_dirs.size(); ++i) r.scan_dir(spec_dirs[i], static_cast<int>(i));
  r.finish();
  return r;
}

void Registry::add_error(const std::string& path, std::string message) {
  errors_[path].push_back(std::move(message));
}

void Registry::scan_dir(const std::string& dir, int priority) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    if (errno != ENOENT && errno != ENOTDIR) {
      add_error(dir, fmt::format("failed to read CDI spec dir {}: {}", dir, std::strerror(errno)));
    }
    return;
  }
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (strings::ends_with(name, ".json") || strings::ends_with(name, ".yaml")) {
      names.push_back(std::move(name));
    }
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());

  for (const auto& name : names) {
    std::string path = dir + "/" + name;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
      add_error(path, fmt::format("failed to stat CDI spec {}: {}", path, std::strerror(errno)));
      continue;
    }
    // Never opened (a FIFO would block the read, a device would run its driver), but named:
    // a spec that silently does not load is a device that silently does not exist (issue 18).
    if (!S_ISREG(st.st_mode)) {
      add_error(path, fmt::format("CDI spec {} is a {}, not a regular file; it is not read: "
                                  "remove it or replace it with a spec file",
                                  path, file_type_name(st.st_mode)));
      continue;
    }
    auto spec = load_spec_file(path);
    if (!spec) {
      add_error(path, spec.error().message());
      continue;
    }
    add_spec(std::move(*spec), path, priority);
  }
}

void Registry::add_spec(Spec spec, std::string path, int priority) {
  auto loaded =
      std::make_unique<LoadedSpec>(LoadedSpec{std::move(spec), std::move(path), priority});
  const LoadedSpec* ls = loaded.get();
  specs_.push_back(std::move(loaded));
  for (std::size_t i = 0; i < ls->spec.devices.size(); ++i) {
    std::string qualified = ls->spec.kind + "=" + ls->spec.devices[i].name;
    auto it = devices_.find(qualified);
    if (it != devices_.end()) {
      const LoadedSpec* old = it->second.spec;
      if (old->priority > ls->priority) continue;
      if (old->priority == ls->priority) {
        add_error(ls->path, fmt::format("conflicting device \"{}\" (specs \"{}\", \"{}\")",
                                        qualified, ls->path, old->path));
        conflicts_[qualified] = true;
        continue;
      }
    }
    devices_[qualified] = Entry{ls, i};
  }
}

void Registry::finish() {
  for (const auto& [name, unused] : conflicts_) {
    log::warn("CDI device {} is defined more than once at the same priority; ignoring it", name);
    devices_.erase(name);
  }
}

std::vector<std::string> Registry::device_names() const {
  std::vector<std::string> out;
  out.reserve(devices_.size());
  for (const auto& [name, entry] : devices_) out.push_back(name);
  return out;
}

const Device* Registry::find_device(const std::string& qualified) const {
  auto it = devices_.find(qualified);
  if (it == devices_.end()) return nullptr;
  return &it->second.spec->spec.devices[it->second.device_index];
}

const LoadedSpec* Registry::spec_of(const std::string& qualified) const {
  auto it = devices_.find(qualified);
  return it == devices_.end() ? nullptr : it->second.spec;
}

Result<ContainerEdits> Registry::collect_edits(
    const std::vector<std::string>& qualified_names) const {
  ContainerEdits edits;
  std::vector<const LoadedSpec*> used;
  std::vector<std::string> unresolved;
  for (const auto& name : qualified_names) {
    auto it = devices_.find(name);
    if (it == devices_.end()) {
      unresolved.push_back(name);
      continue;
    }
    const LoadedSpec* ls = it->second.spec;
    if (std::find(used.begin(), used.end(), ls) == used.end()) {
      used.push_back(ls);
      edits.append(ls->spec.container_edits);
    }
    edits.append(ls->spec.devices[it->second.device_index].container_edits);
  }
  if (!unresolved.empty()) {
    return fail(ENOENT,
                fmt::format("unresolvable CDI devices {}", strings::join(unresolved, ", ")));
  }
  return edits;
}

}  // namespace nvct::cdi
