// Loading config.toml: lookup order, missing files, validation (spec/config.md §1, §3, §5).
#include "nvct/config/load.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/config/document.hpp"
#include "nvct/config/ldconfig.hpp"

namespace nvct::config {
namespace {

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

// The levels logrus accepts (the reference's runtime parses log-level with logrus).
bool is_logrus_level(std::string_view level) {
  static constexpr std::string_view kLevels[] = {"panic",   "fatal", "error", "warn",
                                                 "warning", "info",  "debug", "trace"};
  std::string lower = strings::to_lower(level);
  return std::find(std::begin(kLevels), std::end(kLevels), lower) != std::end(kLevels);
}

}  // namespace

std::string default_path() {
  std::string path = env_or_empty("NVIDIA_CTK_CONFIG_FILE_PATH");
  if (!path.empty()) return path;
  std::string base = env_or_empty("XDG_CONFIG_HOME");
  if (base.empty()) base = "/etc";
  return base + "/nvidia-container-runtime/config.toml";
}

Status finalize(Config& config, const HostFacts& host) {
  config.cli.ldconfig = normalize_ldconfig(config.cli.ldconfig, host);
  NVCT_TRY(validate_ldconfig(config.cli.ldconfig, config.features.allow_ldconfig_from_container));

  const auto& mode = config.runtime.legacy.cuda_compat_mode;
  if (mode &&
      std::find_if(std::begin(kCudaCompatModes), std::end(kCudaCompatModes),
                   [&](const char* m) { return *mode == m; }) == std::end(kCudaCompatModes)) {
    return fail(EINVAL,
                fmt::format("nvidia-container-runtime.modes.legacy.cuda-compat-mode: invalid value "
                            "\"{}\" (expected one of ldconfig, mount, disabled, hook)",
                            *mode));
  }

  if (!is_logrus_level(config.runtime.log_level)) {
    log::warn("Invalid nvidia-container-runtime.log-level '{}'; using 'info'",
              config.runtime.log_level);
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
    if (text.error().code() == ENOENT && !required) return default_config(host);
    return tl::unexpected(std::move(text.error()).context(fmt::format("load config {}", path)));
  }
  return with_context(load_from_string(*text, host), fmt::format("load config {}", path));
}

Result<Config> load_file(const std::string& path, bool required) {
  return load_file(path, required, real_host_facts());
}

Result<Config> load() { return load_file(default_path()); }

}  // namespace nvct::config
