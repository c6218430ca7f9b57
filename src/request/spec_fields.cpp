#include "nvct/request/spec_fields.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "nvct/base/strings.hpp"

namespace nvct::request {
namespace {

using Json = nlohmann::ordered_json;

const char* type_name(const Json& j) { return j.type_name(); }

Result<std::vector<std::string>> string_list(const Json& list, std::string_view field) {
  if (!list.is_array())
    return fail(fmt::format("{}: expected a list, got {}", field, type_name(list)));
  std::vector<std::string> out;
  out.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Json& item = list[i];
    if (!item.is_string()) {
      return fail(fmt::format("{}[{}]: expected a string, got {}", field, i, type_name(item)));
    }
    out.push_back(item.get_ref<const std::string&>());
  }
  return out;
}

// An optional string member: absent or null reads as "".
Result<std::string> optional_string(const Json& object, const char* key, std::string_view field) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::string();
  if (!it->is_string()) {
    return fail(fmt::format("{}.{}: expected a string, got {}", field, key, type_name(*it)));
  }
  return it->get_ref<const std::string&>();
}

Result<std::vector<SpecMount>> read_mounts(const Json& mounts) {
  if (mounts.is_null()) return std::vector<SpecMount>{};
  if (!mounts.is_array())
    return fail(fmt::format("mounts: expected a list, got {}", type_name(mounts)));
  std::vector<SpecMount> out;
  out.reserve(mounts.size());
  for (std::size_t i = 0; i < mounts.size(); ++i) {
    const Json& m = mounts[i];
    std::string field = fmt::format("mounts[{}]", i);
    if (!m.is_object())
      return fail(fmt::format("{}: expected an object, got {}", field, type_name(m)));
    NVCT_ASSIGN_OR_RETURN(std::string source, optional_string(m, "source", field));
    NVCT_ASSIGN_OR_RETURN(std::string destination, optional_string(m, "destination", field));
    out.push_back(SpecMount{std::move(source), std::move(destination)});
  }
  return out;
}

Result<std::vector<std::pair<std::string, std::string>>> read_annotations(const Json& annotations) {
  std::vector<std::pair<std::string, std::string>> out;
  if (annotations.is_null()) return out;
  if (!annotations.is_object()) {
    return fail(fmt::format("annotations: expected an object, got {}", type_name(annotations)));
  }
  for (auto it = annotations.begin(); it != annotations.end(); ++it) {
    if (!it->is_string()) {
      return fail(
          fmt::format("annotations.{}: expected a string, got {}", it.key(), type_name(*it)));
    }
    out.emplace_back(it.key(), it->get_ref<const std::string&>());
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

}  // namespace

Result<Environment> parse_env(const Json& env) {
  Environment out;
  if (env.is_null()) return out;
  NVCT_ASSIGN_OR_RETURN(auto entries, string_list(env, "process.env"));
  for (auto& entry : entries) {
    auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    out.insert_or_assign(entry.substr(0, eq), entry.substr(eq + 1));
  }
  return out;
}

Result<bool> is_privileged(const Json& capabilities) {
  constexpr std::string_view kSysAdmin = "CAP_SYS_ADMIN";
  if (capabilities.is_null()) return false;
  // runtime-spec 1.0.0-rc1..rc4 wrote the capabilities as one flat list; every later version
  // uses per-set lists. A flat list is unambiguous, so it is accepted whatever ociVersion says.
  if (capabilities.is_array()) {
    NVCT_ASSIGN_OR_RETURN(auto caps, string_list(capabilities, "process.capabilities"));
    return std::find(caps.begin(), caps.end(), kSysAdmin) != caps.end();
  }
  if (!capabilities.is_object()) {
    return fail(
        fmt::format("process.capabilities: expected an object, got {}", type_name(capabilities)));
  }
  auto bounding = capabilities.find("bounding");
  if (bounding == capabilities.end() || bounding->is_null()) return false;
  NVCT_ASSIGN_OR_RETURN(auto caps, string_list(*bounding, "process.capabilities.bounding"));
  return std::find(caps.begin(), caps.end(), kSysAdmin) != caps.end();
}

Result<SpecFields> read_spec_fields(const Json& spec) {
  if (!spec.is_object())
    return fail(fmt::format("spec: expected an object, got {}", type_name(spec)));
  SpecFields fields;
  if (auto process = spec.find("process"); process != spec.end() && !process->is_null()) {
    if (!process->is_object()) {
      return fail(fmt::format("process: expected an object, got {}", type_name(*process)));
    }
    if (auto env = process->find("env"); env != process->end()) {
      NVCT_ASSIGN_OR_RETURN(fields.env, parse_env(*env));
    }
    if (auto caps = process->find("capabilities"); caps != process->end()) {
      NVCT_ASSIGN_OR_RETURN(fields.privileged, is_privileged(*caps));
    }
  }
  if (auto mounts = spec.find("mounts"); mounts != spec.end()) {
    NVCT_ASSIGN_OR_RETURN(fields.mounts, read_mounts(*mounts));
  }
  if (auto annotations = spec.find("annotations"); annotations != spec.end()) {
    NVCT_ASSIGN_OR_RETURN(fields.annotations, read_annotations(*annotations));
  }
  return fields;
}

std::string clean_path(const std::string& path) {
  if (path.empty()) return ".";
  const bool rooted = path.front() == '/';
  std::vector<std::string> parts;
  for (auto& part : strings::split(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..") {
        parts.pop_back();
      } else if (!rooted) {
        parts.push_back(part);
      }
      continue;
    }
    parts.push_back(part);
  }
  std::string out = (rooted ? "/" : "") + strings::join(parts, "/");
  return out.empty() ? "." : out;
}

}  // namespace nvct::request
