// config.json of an OCI bundle, edited as an ordered JSON document so that key order, unknown
// fields and exact 64-bit integers survive a rewrite (spec/runtime.md §5, §9; security.md #33).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "nvct/base/error.hpp"
#include "nvct/base/unique_fd.hpp"

namespace nvct::oci {

inline constexpr std::size_t kMaxSpecSize = 16u << 20;
inline constexpr std::size_t kMaxSpecDepth = 64;
inline constexpr const char* kSpecFileName = "config.json";

class SpecDocument {
 public:
  // Opens the bundle directory ("" = the cwd) and reads config.json through that directory fd.
  // Fails, with one error naming the file, on: a missing/unreadable file, a config.json that is a
  // symlink, FIFO or anything but a regular file, more than kMaxSpecSize
  // bytes, anything parse_strict_json() rejects (depth cap kMaxSpecDepth), a top level that is
  // not an object, or a wrong type in a field nvct reads (process, process.env, root,
  // root.path, hooks and its stage lists, annotations). Nothing is ever written by load().
  static Result<SpecDocument> load(const std::string& bundle_dir);

  SpecDocument(SpecDocument&&) noexcept = default;
  SpecDocument& operator=(SpecDocument&&) noexcept = default;

  const nlohmann::ordered_json& json() const { return json_; }
  nlohmann::ordered_json& json() { return json_; }
  const std::string& bundle_dir() const { return bundle_dir_; }
  // The path of config.json as given (for messages): spec_path(bundle_dir()).
  std::string path() const;

  // Atomically replaces config.json in the bundle directory (temp file, fsync, rename; the
  // original mode and owner are kept). Output is compact JSON + "\n", non-ASCII kept as UTF-8.
  Status save() const;

  // process.env, or nullopt when process or process.env is absent or null.
  std::optional<std::vector<std::string>> env() const;
  // The value of the LAST "name=value" entry of process.env (Docker appends its own values
  // after the image's, and runc's execve gives the last one to the process' getenv).
  std::optional<std::string> env_value(std::string_view name) const;
  // root.path as a host path: absolute as is, relative joined to the bundle dir ("." and ""
  // mean the bundle itself). Fails when root or root.path is absent or empty.
  Result<std::string> rootfs_path() const;

  // The hook list of a stage ("prestart", "createRuntime", ...), or nullptr when "hooks",
  // or that stage, is absent or null (ctr writes "hooks": null).
  const nlohmann::ordered_json* hooks(std::string_view stage) const;
  // The hook list of a stage for appending: "hooks" and the list are created when absent or
  // null, in place, so that the position of an existing "hooks" key is kept.
  nlohmann::ordered_json& mutable_hooks(std::string_view stage);

 private:
  SpecDocument(unique_fd dir, std::string bundle_dir, nlohmann::ordered_json json);

  unique_fd dir_;
  std::string bundle_dir_;
  nlohmann::ordered_json json_;
};

// Parses config.json text with the same rules as SpecDocument::load() (for tests, and for
// specs that do not live in a bundle directory). `name` is used in messages.
Result<nlohmann::ordered_json> parse_spec(std::string_view text, std::string_view name);

}  // namespace nvct::oci
