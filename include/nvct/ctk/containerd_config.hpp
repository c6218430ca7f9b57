// The containerd engine: config.toml versions 1, 2 and 3 (spec/ctk.md §6).
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>

#include "nvct/base/error.hpp"

namespace nvct::ctk {

// Version of a config that does not exist yet (or is empty): 2, which containerd 1.6+ and 2.x read.
inline constexpr int kContainerdDefaultVersion = 2;

// The CRI plugin key of a config version: 1 "cri", 2 "io.containerd.grpc.v1.cri",
// 3+ "io.containerd.cri.v1.runtime".
std::string containerd_cri_plugin(int version);

class ContainerdConfig {
 public:
  // Version: empty tree -> kContainerdDefaultVersion; no `version` key -> 1; an integer -> it;
  // anything else -> error. The tables nvct walks (plugins, the CRI plugin, containerd,
  // runtimes) must be tables.
  static Result<ContainerdConfig> parse(std::string_view text, std::string_view origin);
  static Result<ContainerdConfig> from_tree(toml::table tree, std::string_view origin);

  int version() const { return version_; }
  const std::string& cri_plugin() const { return cri_; }

  // Adds runtimes.<name> with options copied from the default runtime (unless its name starts
  // with "nvidia"), else runc, else crun, else the stock defaults; runtime_type defaults to
  // io.containerd.runc.v2; options.BinaryName = path (v1: also options.Runtime). set_as_default
  // sets containerd.default_runtime_name; otherwise a default naming this runtime is removed.
  Status add_runtime(const std::string& name, const std::string& path, bool set_as_default);
  // enable_cdi = true on the CRI plugin (v1: on its containerd table).
  Status enable_cdi();
  // Removes runtimes.<name> and prunes the tables that emptied; a default_runtime_name naming it
  // becomes "runc" (containerd's own default, spec/packaging.md §4.7).
  Status remove_runtime(const std::string& name);
  // Whether runtimes.<name> exists.
  bool has_runtime(const std::string& name) const;
  // options.BinaryName of runtimes.<name> (else the v1 options.Runtime), or "".
  std::string runtime_binary(const std::string& name) const;

  // A drop-in for this config: {version, plugins.<cri> = full copy of this CRI section}.
  // containerd 1.x replaces a whole plugin table with an imported one, so a drop-in that carried
  // only the new runtime would erase every other CRI setting of the main file (§6.2).
  ContainerdConfig drop_in_base() const;

  // Appends `pattern` to the top-level `imports` unless present (existing imports are kept).
  // `imports` of the wrong type is an error. An otherwise empty file also gets `version`.
  static Status add_import(toml::table& top_level, const std::string& pattern, int version);

  // Sets `version` and serialises (go-toml v1 layout).
  std::string serialize();
  const toml::table& tree() const { return tree_; }

 private:
  ContainerdConfig(toml::table tree, int version);
  // plugins.<cri> (v1 and v2+) and the containerd sub-table, created on demand.
  Result<toml::table*> table_at(std::initializer_list<std::string_view> path, bool create);
  const toml::table* find_table(std::initializer_list<std::string_view> path) const;

  toml::table tree_;
  int version_;
  std::string cri_;
};

}  // namespace nvct::ctk
