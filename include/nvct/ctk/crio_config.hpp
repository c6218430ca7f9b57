// The CRI-O engine (spec/ctk.md §7.1): the NVIDIA handler goes into a drop-in that CRI-O decodes
// on top of its main file, so the drop-in carries only what nvct sets.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <string_view>

#include "nvct/base/error.hpp"

namespace nvct::ctk {

class CrioConfig {
 public:
  // `source` is the main configuration (file or `crio status config`); edits go to `destination`,
  // which is an empty tree for a drop-in or a copy of the source for an in-place edit.
  static Result<CrioConfig> parse(std::string_view source_text, std::string_view origin,
                                  bool in_place);

  // crio.runtime.runtimes.<name> = copy of the handler named by crio.runtime.default_runtime
  // (unless it starts with "nvidia"), else runc, else crun, else {}; then runtime_path = path and
  // runtime_type = "oci". set_as_default writes crio.runtime.default_runtime = name.
  Status add_runtime(const std::string& name, const std::string& path, bool set_as_default);
  // Deletes crio.runtime.runtimes.<name> from the destination and prunes the tables that
  // emptied. A default_runtime naming it becomes "runc" when the destination declares a runc
  // handler, else it is deleted: CRI-O refuses to start when default_runtime names an undeclared
  // handler other than its built-in default (runc or crun, depending on the CRI-O version).
  Status remove_runtime(const std::string& name);
  // Whether crio.runtime.runtimes.<name> exists in the source.
  bool has_runtime(const std::string& name) const;
  // crio.runtime.runtimes.<name>.runtime_path of the source, or "".
  std::string runtime_path(const std::string& name) const;

  std::string serialize() const;
  const toml::table& destination() const { return destination_; }

 private:
  CrioConfig(toml::table source, toml::table destination)
      : source_(std::move(source)), destination_(std::move(destination)) {}

  toml::table source_;
  toml::table destination_;
};

}  // namespace nvct::ctk
