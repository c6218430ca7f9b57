// The Docker engine: daemon.json edits for `nvidia-ctk runtime configure --runtime=docker`
// (spec/ctk.md §5). Every key nvct does not own is kept with its type; wrong types of the keys it
// does own are errors reported before anything changes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "nvct/base/error.hpp"

namespace nvct::ctk {

class DockerConfig {
 public:
  // Empty (or whitespace-only) text is an empty configuration, like a missing file. The root
  // must be an object.
  static Result<DockerConfig> parse(std::string_view text, std::string_view origin);

  // runtimes.<name> = {"args": [], "path": <path>}; a runtimeArgs of an existing entry is kept.
  // With set_as_default also default-runtime = <name>.
  Status add_runtime(const std::string& name, const std::string& path, bool set_as_default);
  // features.cdi = true, merged into an existing features object.
  Status enable_cdi();
  // Deletes runtimes.<name> (and an emptied runtimes); a default-runtime naming it becomes "runc".
  Status remove_runtime(const std::string& name);
  // Whether runtimes.<name> exists.
  bool has_runtime(const std::string& name) const;
  // The path of runtimes.<name> (the shim-v2 form: its options.BinaryName), or "" when there is
  // none.
  std::string runtime_path(const std::string& name) const;

  // Go MarshalIndent layout, no trailing newline.
  std::string serialize() const;
  const nlohmann::ordered_json& document() const { return doc_; }

 private:
  explicit DockerConfig(nlohmann::ordered_json doc) : doc_(std::move(doc)) {}
  Status check_types() const;

  nlohmann::ordered_json doc_;
};

}  // namespace nvct::ctk
