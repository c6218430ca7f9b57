// The few OCI spec fields the request is built from, read strictly from config.json (runtime.md
// §5.1). A field of the wrong type is an error naming it; absent fields are empty.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/request/request.hpp"

namespace nvct::request {

struct SpecMount {
  std::string source;
  std::string destination;
};

struct SpecFields {
  Environment env;
  bool privileged = false;
  std::vector<SpecMount> mounts;
  // Sorted by key (the reference sorts annotation keys before reading CDI requests).
  std::vector<std::pair<std::string, std::string>> annotations;
};

Result<SpecFields> read_spec_fields(const nlohmann::ordered_json& spec);

// process.env ("NAME=VALUE" strings) as a map; the last occurrence of a name wins. An entry
// without '=' names no variable and is skipped.
Result<Environment> parse_env(const nlohmann::ordered_json& env);

// Privileged = the bounding set contains CAP_SYS_ADMIN. `capabilities` is process.capabilities:
// an object with "bounding", or (runtime-spec 1.0.0-rc1 up to rc5) a flat list of names.
Result<bool> is_privileged(const nlohmann::ordered_json& capabilities);

// Lexical path cleaning with Go's filepath.Clean rules ("" -> ".", "/a//b/../c/" -> "/a/c").
std::string clean_path(const std::string& path);

}  // namespace nvct::request
