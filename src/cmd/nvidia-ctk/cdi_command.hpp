// `nvidia-ctk cdi generate`, `cdi list` and `cdi transform root` (spec/cdi.md §6, §7). The
// engines live in src/cdi; this file maps flags onto them.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "global_options.hpp"
#include "nvct/base/error.hpp"
#include "nvct/cdi/csv_mount_spec.hpp"
#include "nvct/cdi/generate.hpp"
#include "nvct/cdi/spec_io.hpp"
#include "nvct/config/config.hpp"

namespace nvct::cmd::nvidia_ctk {

// One fully-qualified device name per line, sorted; logs "Found N CDI devices" at info and each
// registry error as a warning.
std::string run_cdi_list(const std::vector<std::string>& spec_dirs);

struct TransformRootOptions {
  std::string from;
  std::string to;
  std::string relative_to = "host";
  std::string input = "-";  // "-" = stdin
  std::string output;       // "" = stdout
};

// Reads the spec (input_text when input is "-"), rewrites the root, renders it: JSON when the
// output path ends in .json, YAML otherwise.
Result<std::string> run_cdi_transform_root(const TransformRootOptions& options,
                                           const std::string& input_text);

struct GenerateCommandOptions {
  std::string output;         // "" = stdout
  std::string format;         // "" = from the output extension, else yaml
  std::string mode = "auto";  // cdi::resolve_generate_mode (auto: wsl on WSL2)
  std::string dev_root;       // "" = the driver root
  std::vector<std::string> device_name_strategies = {"index"};
  std::string driver_root;  // "" = config nvidia-container-cli.root, else "/"
  std::string hook_path;    // --nvidia-cdi-hook-path
  std::string ldconfig_path;
  std::string vendor;  // "" = nvidia.com (management.nvidia.com in management mode)
  std::string class_name = "gpu";
  std::vector<std::string> disable_hooks;
  std::vector<std::string> enable_hooks;
  bool no_all_device = false;
  std::vector<std::string> device_ids = {"all"};
  std::vector<std::string> feature_flags;  // nvcdi flags (config.md §3)
  // Root-relative, besides the ldcache; in wsl mode where libdxcore.so is looked for.
  std::vector<std::string> library_search_paths;
  std::vector<std::string> config_search_paths;  // root-relative, before /etc and /usr/share
  std::vector<std::string> csv_files = cdi::kDefaultCsvFiles;
  std::vector<std::string> csv_ignore_patterns;
  std::string csv_compat_container_root;
};

// One file of the output: the spec, and with enable-coherent-annotations its split parts.
struct GeneratedOutput {
  std::string path;  // "" = stdout
  std::string text;
};

// The output format: --format when given, else .json -> json and .yaml/.yml (or none) -> yaml.
Result<cdi::Format> generate_output_format(const GenerateCommandOptions& options);

// Maps the flags onto cdi::GenerateOptions (hook binary from PATH, vendor default of the mode,
// feature flags; an unknown feature flag is logged as a warning and ignored). An invalid mode
// is an error.
Result<cdi::GenerateOptions> generate_options(const GenerateCommandOptions& options,
                                              const config::Config& cfg, bool debug,
                                              std::string_view path_env);

// The driver root: --driver-root, else the config's nvidia-container-cli.root, else "/".
std::string generate_driver_root(const GenerateCommandOptions& options, const config::Config& cfg);

// Builds the spec(s) of the mode from a discovered driver (nullptr for the modes that need
// none), validates and renders them.
Result<std::vector<GeneratedOutput>> render_generated(const GenerateCommandOptions& options,
                                                      const cdi::GenerateOptions& generate,
                                                      const driver::DriverInfo* info,
                                                      const std::string& driver_root,
                                                      cdi::DeviceLookup& lookup);

// Discovers the driver when the mode needs it, builds the spec(s) and renders them.
Result<std::vector<GeneratedOutput>> run_cdi_generate(const GenerateCommandOptions& options,
                                                      const config::Config& cfg, bool debug);

// Adds `cdi` with its `generate`, `list` and `transform root` subcommands.
void add_cdi_command(CLI::App& parent, GlobalOptions& globals);

}  // namespace nvct::cmd::nvidia_ctk
