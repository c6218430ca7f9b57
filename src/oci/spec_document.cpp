#include "nvct/oci/spec_document.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <array>
#include <utility>

#include <fmt/format.h>

#include "nvct/base/file.hpp"
#include "nvct/oci/runtime_args.hpp"
#include "nvct/oci/strict_json.hpp"

namespace nvct::oci {

namespace {

using nlohmann::ordered_json;

constexpr std::array<std::string_view, 6> kHookStages = {
    "prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"};

// Go's encoding/json matches struct fields case-insensitively, including the Unicode folds
// U+017F (long s) -> 's' and U+212A (Kelvin sign) -> 'k'. Folding keys the same way lets us
// find keys that runc would read as a field nvct reads, but nvct (exact match) would not.
std::string go_fold(std::string_view key) {
  std::string out;
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (key.compare(i, 2, "\xC5\xBF") == 0) {
      out += 's';
      ++i;
    } else if (key.compare(i, 3, "\xE2\x84\xAA") == 0) {
      out += 'k';
      i += 2;
    } else {
      char c = key[i];
      out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
  }
  return out;
}

// Rejects keys of `object` spelled differently from a field nvct reads but equal to it under
// Go's folding ("Process", "ENV", "proceſs"): runc would use them, nvct would not see them.
Status check_spelling(const ordered_json& object, std::string_view where,
                      std::initializer_list<std::string_view> fields) {
  for (const auto& [key, value] : object.items()) {
    std::string folded = go_fold(key);
    for (std::string_view field : fields) {
      if (key != field && folded == go_fold(field))
        return fail(EINVAL, fmt::format("key \"{}\" in {} would be read by runc as \"{}\"", key,
                                        where, field));
    }
  }
  return ok();
}

bool is_absent(const ordered_json& parent, const char* key) {
  auto it = parent.find(key);
  return it == parent.end() || it->is_null();
}

Status check_string_array(const ordered_json& v, std::string_view where) {
  if (v.is_null()) return ok();
  if (!v.is_array()) return fail(EINVAL, fmt::format("{} must be an array", where));
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!v[i].is_string()) return fail(EINVAL, fmt::format("{}[{}] must be a string", where, i));
  return ok();
}

// Type checks of the fields nvct reads, so that the accessors below cannot fail. runc's typed
// decoder rejects the same wrong types. The spelling checks (like duplicate keys and floats in
// strict_json) do refuse some documents runc would run, on purpose: runc would read them
// differently from nvct.
Status validate(const ordered_json& spec) {
  if (!spec.is_object()) return fail(EINVAL, "top level must be an object");
  NVCT_TRY(
      check_spelling(spec, "the top level",
                     {"ociVersion", "process", "root", "hooks", "annotations", "mounts", "linux"}));
  if (!is_absent(spec, "process")) {
    const auto& process = spec["process"];
    if (!process.is_object()) return fail(EINVAL, "process must be an object");
    NVCT_TRY(check_spelling(process, "process", {"env", "capabilities", "args", "user"}));
    if (process.contains("env")) NVCT_TRY(check_string_array(process["env"], "process.env"));
  }
  if (!is_absent(spec, "root")) {
    const auto& root = spec["root"];
    if (!root.is_object()) return fail(EINVAL, "root must be an object");
    NVCT_TRY(check_spelling(root, "root", {"path", "readonly"}));
    if (!is_absent(root, "path") && !root["path"].is_string())
      return fail(EINVAL, "root.path must be a string");
  }
  if (!is_absent(spec, "hooks")) {
    const auto& hooks = spec["hooks"];
    if (!hooks.is_object()) return fail(EINVAL, "hooks must be an object or null");
    NVCT_TRY(check_spelling(hooks, "hooks",
                            {"prestart", "createRuntime", "createContainer", "startContainer",
                             "poststart", "poststop"}));
    for (std::string_view stage : kHookStages) {
      auto it = hooks.find(std::string(stage));
      if (it == hooks.end() || it->is_null()) continue;
      if (!it->is_array()) return fail(EINVAL, fmt::format("hooks.{} must be an array", stage));
      for (std::size_t i = 0; i < it->size(); ++i)
        if (!(*it)[i].is_object())
          return fail(EINVAL, fmt::format("hooks.{}[{}] must be an object", stage, i));
    }
  }
  if (!is_absent(spec, "annotations")) {
    const auto& annotations = spec["annotations"];
    if (!annotations.is_object()) return fail(EINVAL, "annotations must be an object");
    for (const auto& [key, value] : annotations.items())
      if (!value.is_string())
        return fail(EINVAL, fmt::format("annotation \"{}\" must be a string", key));
  }
  return ok();
}

// Reads config.json through the bundle fd. O_NONBLOCK and the regular-file check keep a FIFO
// or device planted as config.json from hanging the shim; O_NOFOLLOW refuses a symlink, which
// save() could not replace in place either.
Result<std::string> read_spec_file(int dirfd, const std::string& name) {
  unique_fd fd(::openat(dirfd, kSpecFileName, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (!fd) return fail_errno(fmt::format("load OCI spec {}: open", name));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return fail_errno(fmt::format("load OCI spec {}: stat", name));
  if (!S_ISREG(st.st_mode))
    return fail(EINVAL, fmt::format("load OCI spec {}: not a regular file", name));
  auto text = read_fd(fd.get(), kMaxSpecSize);
  if (!text && text.error().code() == EFBIG)
    return fail(EFBIG, fmt::format("load OCI spec {}: larger than {} bytes", name, kMaxSpecSize));
  return with_context(std::move(text), fmt::format("load OCI spec {}", name));
}

}  // namespace

Result<ordered_json> parse_spec(std::string_view text, std::string_view name) {
  auto parsed = parse_strict_json(text, StrictJsonLimits{kMaxSpecDepth});
  if (!parsed) return with_context(std::move(parsed), fmt::format("load OCI spec {}", name));
  auto valid = validate(*parsed);
  if (!valid)
    return tl::unexpected(std::move(valid.error()).context(fmt::format("load OCI spec {}", name)));
  return parsed;
}

SpecDocument::SpecDocument(unique_fd dir, std::string bundle_dir, ordered_json json)
    : dir_(std::move(dir)), bundle_dir_(std::move(bundle_dir)), json_(std::move(json)) {}

Result<SpecDocument> SpecDocument::load(const std::string& bundle_dir) {
  std::string name = spec_path(bundle_dir);
  const std::string dir_path = bundle_dir.empty() ? "." : bundle_dir;
  unique_fd dir(::open(dir_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir)
    return fail_errno(fmt::format("load OCI spec {}: open bundle directory {}", name, dir_path));
  NVCT_ASSIGN_OR_RETURN(std::string text, read_spec_file(dir.get(), name));
  NVCT_ASSIGN_OR_RETURN(ordered_json json, parse_spec(text, name));
  return SpecDocument(std::move(dir), bundle_dir, std::move(json));
}

std::string SpecDocument::path() const { return spec_path(bundle_dir_); }

Status SpecDocument::save() const {
  std::string text;
  try {
    // strict: a string edited in with invalid UTF-8 is an error, never written out.
    text = json_.dump(-1, ' ', false, ordered_json::error_handler_t::strict);
  } catch (const ordered_json::exception& e) {
    return fail(EINVAL, fmt::format("save OCI spec {}: {}", path(), e.what()));
  }
  text += '\n';
  // Not durable: runc reads the file at once, and after a crash the engine recreates the bundle
  // (it never starts a container from a bundle left by a create that did not finish), so the two
  // fsyncs only cost time (about 0.6 ms on a disk bundle, issue 19).
  return with_context(write_file_atomic_at(dir_.get(), kSpecFileName, text, {.durable = false}),
                      fmt::format("save OCI spec {}", path()));
}

std::optional<std::vector<std::string>> SpecDocument::env() const {
  if (is_absent(json_, "process") || is_absent(json_["process"], "env")) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& entry : json_["process"]["env"]) out.push_back(entry.get<std::string>());
  return out;
}

std::optional<std::string> SpecDocument::env_value(std::string_view name) const {
  if (is_absent(json_, "process") || is_absent(json_["process"], "env")) return std::nullopt;
  std::optional<std::string> found;
  for (const auto& entry : json_["process"]["env"]) {
    const auto& s = entry.get_ref<const std::string&>();
    // "NAME" without '=' sets nothing (execve passes it, getenv never matches it).
    if (s.size() > name.size() && s.compare(0, name.size(), name) == 0 && s[name.size()] == '=')
      found = s.substr(name.size() + 1);
  }
  return found;
}

Result<std::string> SpecDocument::rootfs_path() const {
  if (is_absent(json_, "root") || is_absent(json_["root"], "path"))
    return fail(EINVAL, fmt::format("OCI spec {}: root.path is not set", path()));
  std::string root = json_["root"]["path"].get<std::string>();
  if (root.empty()) return fail(EINVAL, fmt::format("OCI spec {}: root.path is empty", path()));
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  if (root.front() == '/') return root;
  std::string base = bundle_dir_.empty() ? "." : bundle_dir_;
  if (root == "." || root == "./") return base;
  if (root.compare(0, 2, "./") == 0) root.erase(0, 2);
  if (base.back() != '/') base += '/';
  return base + root;
}

const ordered_json* SpecDocument::hooks(std::string_view stage) const {
  if (is_absent(json_, "hooks")) return nullptr;
  const auto& hooks = json_["hooks"];
  auto it = hooks.find(std::string(stage));
  if (it == hooks.end() || it->is_null()) return nullptr;
  return &*it;
}

ordered_json& SpecDocument::mutable_hooks(std::string_view stage) {
  auto& hooks = json_["hooks"];  // appended when absent; a null keeps its position
  if (!hooks.is_object()) hooks = ordered_json::object();
  auto& list = hooks[std::string(stage)];
  if (!list.is_array()) list = ordered_json::array();
  return list;
}

}  // namespace nvct::oci
