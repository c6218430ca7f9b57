#include "nvct/oci/state.hpp"

#include <climits>
#include <utility>

#include <fmt/format.h>

#include "nvct/oci/strict_json.hpp"

namespace nvct::oci {

namespace {

using nlohmann::ordered_json;

// The state's nesting is shallow (annotations are flat); a small cap keeps a hostile stdin cheap.
constexpr std::size_t kMaxStateDepth = 16;

Result<std::string> required_string(const ordered_json& doc, const char* key) {
  auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return fail(EINVAL, fmt::format("\"{}\" is missing", key));
  if (!it->is_string()) return fail(EINVAL, fmt::format("\"{}\" must be a string", key));
  return it->get<std::string>();
}

Result<int> parse_pid(const ordered_json& doc) {
  auto it = doc.find("pid");
  if (it == doc.end() || it->is_null()) return 0;
  if (it->is_number_unsigned()) {
    auto v = it->get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(INT_MAX))
      return fail(EINVAL, fmt::format("\"pid\" {} is out of range", v));
    return static_cast<int>(v);
  }
  if (it->is_number_integer())
    return fail(EINVAL, fmt::format("\"pid\" {} must not be negative", it->get<std::int64_t>()));
  return fail(EINVAL, "\"pid\" must be an integer");
}

Result<std::optional<std::string>> parse_root(const ordered_json& doc) {
  auto it = doc.find("root");
  if (it == doc.end() || it->is_null()) return std::optional<std::string>();
  if (it->is_string()) return std::optional<std::string>(it->get<std::string>());
  if (it->is_object()) {
    auto path = it->find("path");
    if (path != it->end() && path->is_string())
      return std::optional<std::string>(path->get<std::string>());
  }
  return fail(EINVAL, "\"root\" must be a string or an object with a string \"path\"");
}

Result<State> from_document(const ordered_json& doc) {
  if (!doc.is_object()) return fail(EINVAL, "top level must be an object");
  State state;
  NVCT_ASSIGN_OR_RETURN(state.oci_version, required_string(doc, "ociVersion"));
  NVCT_ASSIGN_OR_RETURN(state.id, required_string(doc, "id"));
  NVCT_ASSIGN_OR_RETURN(state.status, required_string(doc, "status"));
  // Old runtimes wrote "bundlePath"; the current key wins when both are present.
  const char* bundle_key = doc.contains("bundle") ? "bundle" : "bundlePath";
  if (!doc.contains("bundle") && !doc.contains("bundlePath"))
    return fail(EINVAL, "\"bundle\" is missing");
  NVCT_ASSIGN_OR_RETURN(state.bundle, required_string(doc, bundle_key));
  // The runtime spec defines the bundle as an absolute path; consumers resolve root.path and
  // config.json against it after chdir("/"), so a relative one is refused here, once.
  if (state.bundle.empty() || state.bundle.front() != '/')
    return fail(EINVAL, fmt::format("\"{}\" must be an absolute path, got \"{}\"", bundle_key,
                                    state.bundle));
  NVCT_ASSIGN_OR_RETURN(state.pid, parse_pid(doc));
  auto annotations = doc.find("annotations");
  if (annotations != doc.end() && !annotations->is_null()) {
    if (!annotations->is_object()) return fail(EINVAL, "\"annotations\" must be an object");
    for (const auto& [key, value] : annotations->items())
      if (!value.is_string())
        return fail(EINVAL, fmt::format("annotation \"{}\" must be a string", key));
    state.annotations = *annotations;
  }
  NVCT_ASSIGN_OR_RETURN(state.root, parse_root(doc));
  return state;
}

}  // namespace

Result<State> parse_state(std::string_view json) {
  auto doc = parse_strict_json(json, StrictJsonLimits{kMaxStateDepth});
  if (!doc) return tl::unexpected(std::move(doc).error().context("parse OCI state"));
  return with_context(from_document(*doc), "parse OCI state");
}

}  // namespace nvct::oci
