// Loading config.toml: lookup order, missing files, validation (spec/config.md §1, §3, §5).
#include "nvct/config/load.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/config/document.hpp"
#include "nvct/config/ldconfig.hpp"
#include "nvct/config/schema.hpp"
#include "nvct/config/unknown_keys.hpp"

namespace nvct::config {
namespace {

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

// "<file>: " before a warning about a setting, when the setting came from a file.
std::string source_prefix(std::string_view source) {
  return source.empty() ? std::string() : fmt::format("{}: ", source);
}

}  // namespace

std::string default_path() {
  std::string path = env_or_empty("NVIDIA_CTK_CONFIG_FILE_PATH");
  if (!path.empty()) return path;
  std::string base = env_or_empty("XDG_CONFIG_HOME");
  if (base.empty()) base = "/etc";
  return base + "/nvidia-container-runtime/config.toml";
}

Status finalize(Config& config, const HostFacts& host, std::string_view source) {
  config.cli.ldconfig = normalize_ldconfig(config.cli.ldconfig, host);
  NVCT_TRY(validate_ldconfig(config.cli.ldconfig, config.features.allow_ldconfig_from_container));

  if (const auto& mode = config.runtime.legacy.cuda_compat_mode) {
    NVCT_TRY(
        check_value(*find_key("nvidia-container-runtime.modes.legacy.cuda-compat-mode"), *mode));
  }

  // The reference's runtime falls back to info on a level logrus cannot parse.
  if (auto level =
          check_value(*find_key("nvidia-container-runtime.log-level"), config.runtime.log_level);
      !level) {
    log::warn("{}{}; using \"info\"", source_prefix(source), level.error().message());
    config.runtime.log_level = "info";
  }
  return ok();
}

Result<Config> load_from_string(std::string_view toml, const HostFacts& host) {
  NVCT_ASSIGN_OR_RETURN(Document document, Document::parse(toml));
  return document.to_config(host);
}

Result<Config> load_from_string(std::string_view toml) {
  return load_from_string(toml, real_host_facts());
}

Result<Config> load_file(const std::string& path, bool required, const HostFacts& host) {
  Result<std::string> text = read_file(path);
  if (!text) {
    const int code = text.error().code();
    if (code == ENOENT && !required) {
      // A file named on purpose that is not there is worth a warning: every setting in it is
      // silently replaced by a default (the driver root, the mode, the runtimes).
      if (env_or_empty("NVIDIA_CTK_CONFIG_FILE_PATH") == path) {
        log::warn("Config file {} (NVIDIA_CTK_CONFIG_FILE_PATH) does not exist; using the built-in "
                  "defaults. Create it with: nvidia-ctk config default --output {}",
                  path, path);
      } else {
        log::debug("Config file {} does not exist; using the built-in defaults", path);
      }
      return default_config(host);
    }
    // "open <path>: <reason>" / "<path>: read: <reason>", then the fix.
    const std::string fix =
        code == ENOENT
            ? fmt::format("create it with: nvidia-ctk config default --output {}", path)
            : "the config must be a readable TOML file: point NVIDIA_CTK_CONFIG_FILE_PATH (or "
              "--config) at one, or write one with: nvidia-ctk config default --output <file>";
    return fail(code, fmt::format("{}; {}", text.error().message(), fix));
  }
  log::debug("Using config file {}", path);
  // Every error and warning from here on is about a setting of this file, so it names the file.
  auto parsed = with_context(Document::parse(*text), path);
  if (!parsed) {
    return fail(parsed.error().code(),
                fmt::format("{}; fix the file there (nvidia-ctk config default prints a complete, "
                            "valid one)",
                            parsed.error().message()));
  }
  Document document = std::move(*parsed);
  warn_unknown_keys(document, path);
  return with_context(document.to_config(host, path), path);
}

Result<Config> load_file(const std::string& path, bool required) {
  return load_file(path, required, real_host_facts());
}

Result<Config> load() { return load_file(default_path()); }

}  // namespace nvct::config
