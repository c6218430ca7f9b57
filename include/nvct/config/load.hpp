// Loading config.toml: lookup order, defaults, validation (spec/config.md §1, §3, §5).
#pragma once

#include <string>
#include <string_view>

#include "nvct/base/error.hpp"
#include "nvct/config/config.hpp"
#include "nvct/config/host_facts.hpp"

namespace nvct::config {

// $NVIDIA_CTK_CONFIG_FILE_PATH if non-empty, else
// ${XDG_CONFIG_HOME:-/etc}/nvidia-container-runtime/config.toml. Only the runtime and nvidia-ctk
// use this; the hook takes its path from argv (security.md §5.2).
std::string default_path();

// Parses TOML text onto the defaults. Unknown keys are ignored; a value of the wrong type or an
// invalid value is an error naming the key.
// An invalid nvidia-container-runtime.log-level becomes "info" with a warning, as the reference.
// The text has no file name, so unknown keys are not reported here (load_file does).
Result<Config> load_from_string(std::string_view toml);
Result<Config> load_from_string(std::string_view toml, const HostFacts& host);

// Loads a file. A missing file gives the defaults when `required` is false, an error otherwise.
// Every binary reads config.toml through this, so all of them behave alike: a debug line says
// which file was used (or that it does not exist), each unknown key is a warning naming the file,
// the key and the nearest valid key (unknown_keys.hpp), and errors start with the file's path:
//   /etc/nvidia-container-runtime/config.toml: disable-require: expected a boolean
Result<Config> load_file(const std::string& path, bool required = false);
Result<Config> load_file(const std::string& path, bool required, const HostFacts& host);

// load_file(default_path()).
Result<Config> load();

// Checks a merged config: ldconfig validity (§5), cuda-compat-mode, log-level (fixed up with a
// warning that starts with `source`, the file, when given). Normalises the ldconfig value.
Status finalize(Config& config, const HostFacts& host, std::string_view source = {});

}  // namespace nvct::config
