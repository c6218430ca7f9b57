// `nvidia-ctk config` and `nvidia-ctk config default` (spec/config.md §6).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "global_options.hpp"
#include "nvct/base/error.hpp"
#include "nvct/config/host_facts.hpp"
#include "nvct/config/set_option.hpp"

namespace nvct::cmd::nvidia_ctk {

struct ConfigOptions {
  // "" = config::default_path(); the command line fills in nvidia-ctk's --config when -c is absent.
  std::string config_file;
  std::vector<std::string> sets;
  std::string list_separator = std::string(config::kDefaultListSeparator);
  bool in_place = false;
  std::string output;  // "" = stdout
};

struct ConfigDefaultOptions {
  std::string output;  // "" = stdout
};

// The new text of a config file: `current` (nullopt: the file does not exist, start from the
// defaults) with the --set options applied. The result must load, so a --set cannot leave behind
// a file that the runtime and the hook would refuse. `source` (the file's path) names the file in
// the warnings about unknown keys and a fixed-up log-level; "" logs none about unknown keys.
Result<std::string> edit_config_text(const std::optional<std::string>& current,
                                     const std::vector<config::SetOption>& sets,
                                     const config::HostFacts& host, std::string_view source = {});

Status run_config(const ConfigOptions& options, const config::HostFacts& host);
Status run_config_default(const ConfigDefaultOptions& options, const config::HostFacts& host);

void add_config_command(CLI::App& parent, GlobalOptions& globals);

}  // namespace nvct::cmd::nvidia_ctk
