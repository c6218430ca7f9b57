// TOML text pieces shared by every TOML writer (config.toml rendering, containerd and CRI-O
// files): basic-string quoting and key formatting.
#pragma once

#include <string>
#include <string_view>

namespace nvct::toml_text {

// A TOML basic string: "...", with \b \t \n \f \r \" \\ escaped and other control characters
// as \uXXXX.
std::string quote(std::string_view s);

// A key as written in TOML: bare when it is [A-Za-z0-9_-]+, quoted otherwise.
std::string key(std::string_view key);

}  // namespace nvct::toml_text
