#include "nvct/ctk/docker_config.hpp"

#include <fmt/format.h>

#include "nvct/base/strings.hpp"
#include "nvct/ctk/go_json.hpp"

namespace nvct::ctk {

using nlohmann::ordered_json;

Result<DockerConfig> DockerConfig::parse(std::string_view text, std::string_view origin) {
  if (strings::trim(text).empty()) return DockerConfig(ordered_json::object());
  NVCT_ASSIGN_OR_RETURN(auto doc, parse_json(text, origin));
  if (!doc.is_object())
    return fail(EINVAL, fmt::format("{}: the top level must be a JSON object, not {}", origin,
                                    doc.type_name()));
  DockerConfig config(std::move(doc));
  NVCT_TRY(with_context(config.check_types(), origin));
  return config;
}

// The keys nvct edits are type-checked up front so that a bad file fails before any change.
Status DockerConfig::check_types() const {
  if (doc_.contains("runtimes")) {
    const auto& runtimes = doc_.at("runtimes");
    if (!runtimes.is_object())
      return fail(EINVAL,
                  fmt::format("\"runtimes\" must be an object, not {}", runtimes.type_name()));
    for (const auto& [name, entry] : runtimes.items())
      if (!entry.is_object())
        return fail(EINVAL, fmt::format("\"runtimes.{}\" must be an object, not {}", name,
                                        entry.type_name()));
  }
  if (doc_.contains("default-runtime") && !doc_.at("default-runtime").is_string())
    return fail(EINVAL, fmt::format("\"default-runtime\" must be a string, not {}",
                                    doc_.at("default-runtime").type_name()));
  if (doc_.contains("features") && !doc_.at("features").is_object())
    return fail(EINVAL, fmt::format("\"features\" must be an object, not {}",
                                    doc_.at("features").type_name()));
  return ok();
}

Status DockerConfig::add_runtime(const std::string& name, const std::string& path,
                                 bool set_as_default) {
  if (name.empty()) return fail(EINVAL, "add runtime: the runtime name is empty");
  if (path.empty())
    return fail(EINVAL, fmt::format("add runtime {}: the runtime path is empty", name));
  ordered_json entry = {{"args", ordered_json::array()}, {"path", path}};
  if (doc_.contains("runtimes") && doc_["runtimes"].contains(name)) {
    const auto& old = doc_["runtimes"][name];
    if (old.contains("runtimeArgs")) entry["runtimeArgs"] = old["runtimeArgs"];
  }
  if (!doc_.contains("runtimes")) doc_["runtimes"] = ordered_json::object();
  doc_["runtimes"][name] = std::move(entry);
  if (set_as_default) doc_["default-runtime"] = name;
  return ok();
}

Status DockerConfig::enable_cdi() {
  if (!doc_.contains("features")) doc_["features"] = ordered_json::object();
  doc_["features"]["cdi"] = true;
  return ok();
}

Status DockerConfig::remove_runtime(const std::string& name) {
  if (doc_.contains("runtimes")) {
    auto& runtimes = doc_["runtimes"];
    runtimes.erase(name);
    if (runtimes.empty()) doc_.erase("runtimes");
  }
  if (doc_.contains("default-runtime") && doc_["default-runtime"] == name)
    doc_["default-runtime"] = "runc";
  return ok();
}

bool DockerConfig::has_runtime(const std::string& name) const {
  return doc_.contains("runtimes") && doc_.at("runtimes").contains(name);
}

std::string DockerConfig::runtime_path(const std::string& name) const {
  if (!has_runtime(name)) return "";
  const auto& entry = doc_.at("runtimes").at(name);
  if (entry.contains("path") && entry.at("path").is_string())
    return entry.at("path").get<std::string>();
  // Docker >= 24 also takes {"runtimeType": ..., "options": {"BinaryName": ...}} (spec §5.2).
  if (entry.contains("options") && entry.at("options").is_object()) {
    const auto& options = entry.at("options");
    if (options.contains("BinaryName") && options.at("BinaryName").is_string())
      return options.at("BinaryName").get<std::string>();
  }
  return "";
}

std::string DockerConfig::serialize() const { return write_go_json(doc_); }

}  // namespace nvct::ctk
