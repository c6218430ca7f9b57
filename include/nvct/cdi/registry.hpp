// The CDI registry (spec/cdi.md §3 "Spec dirs and priority"): every *.json / *.yaml spec in the
// spec dirs, indexed by fully-qualified device name. The priority of a spec is the index of its
// directory, so later dirs win; a device defined twice at the same priority is a conflict and is
// dropped entirely. Bad files are recorded per file and never stop the other files loading.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/cdi/spec.hpp"

namespace nvct::cdi {

inline const std::vector<std::string> kDefaultSpecDirs = {"/etc/cdi", "/var/run/cdi"};

struct LoadedSpec {
  Spec spec;
  std::string path;
  int priority = 0;
};

class Registry {
 public:
  // Never fails: unreadable dirs and bad files land in errors(). A missing dir is not an error.
  static Registry load(const std::vector<std::string>& spec_dirs);
  // For tests and in-memory specs: adds a spec as if it were read from `path` at `priority`.
  // Must be called in non-decreasing priority order, before finish().
  void add_spec(Spec spec, std::string path, int priority);
  // Drops conflicting devices; load() calls it.
  void finish();

  // Fully-qualified names ("vendor/class=name"), sorted.
  std::vector<std::string> device_names() const;
  const Device* find_device(const std::string& qualified) const;
  const LoadedSpec* spec_of(const std::string& qualified) const;

  // Errors by file (or dir) path, in the order they were met.
  const std::map<std::string, std::vector<std::string>>& errors() const { return errors_; }

  // Collects the edits of the named devices: each spec's own containerEdits once, on first use,
  // then the device's. Unknown names -> "unresolvable CDI devices a, b".
  Result<ContainerEdits> collect_edits(const std::vector<std::string>& qualified_names) const;

 private:
  struct Entry {
    const LoadedSpec* spec = nullptr;
    std::size_t device_index = 0;
  };
  void add_error(const std::string& path, std::string message);
  void scan_dir(const std::string& dir, int priority);

  std::vector<std::unique_ptr<LoadedSpec>> specs_;
  std::map<std::string, Entry> devices_;
  std::map<std::string, bool> conflicts_;
  std::map<std::string, std::vector<std::string>> errors_;
};

}  // namespace nvct::cdi
