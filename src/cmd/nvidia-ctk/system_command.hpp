// `nvidia-ctk system create-dev-char-symlinks` and `system create-device-nodes`
// (spec/ctk.md §8): the reference's flags and environment variables, mapped onto the engines in
// src/ctk/system_*.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "global_options.hpp"
#include "nvct/base/error.hpp"

namespace nvct::cmd::nvidia_ctk {

using Getenv = std::function<const char*(const char*)>;

// urfave/cli's EnvVars: when the flag was not given, the first listed variable that is set
// supplies its value. Booleans take Go's ParseBool spellings; anything else is an error naming
// the variable.
Status string_from_env(const CLI::Option* option, std::string& value,
                       const std::vector<std::string>& names, const Getenv& getenv);
Status bool_from_env(const CLI::Option* option, bool& value, const std::vector<std::string>& names,
                     const Getenv& getenv);

// Adds `system` with its two subcommands.
void add_system_command(CLI::App& parent, GlobalOptions& globals);

}  // namespace nvct::cmd::nvidia_ctk
