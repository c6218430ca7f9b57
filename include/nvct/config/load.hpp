// Loading config.toml: lookup order, defaults, validation (spec/config.md §1, §3, §5).
#pragma once

#include <string>
#include <string_view>

#include "nvct/base/error.hpp"
#include "nvct/config/config.hpp"

namespace nvct::config {

// $NVIDIA_CTK_CONFIG_FILE_PATH if non-empty, else ${XDG_CONFIG_HOME:-/etc}/nvidia-container-runtime/config.toml.
// Only the runtime and nvidia-ctk use this; the hook takes its path from argv (security.md §5.2).
std::string default_path();

// Parses TOML text onto the defaults. Unknown keys are ignored; a value of the wrong type or an
// invalid value is an error naming the key.
Result<Config> load_from_string(std::string_view toml);

// Loads a file. A missing file gives the defaults when `required` is false, an error otherwise.
Result<Config> load_file(const std::string& path, bool required = false);

// load_file(default_path()).
Result<Config> load();

}  // namespace nvct::config
