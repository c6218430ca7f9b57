// `nvidia-ctk cdi`: flag names, defaults and environment variables of the reference.
#include "cdi_command.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/cdi/coherent_specs.hpp"
#include "nvct/cdi/generate_discovery.hpp"
#include "nvct/cdi/generate_modes.hpp"
#include "nvct/cdi/generate_wsl.hpp"
#include "nvct/cdi/registry.hpp"
#include "nvct/cdi/spec_io.hpp"
#include "nvct/cdi/transform_root.hpp"
#include "nvct/cdi/validate.hpp"
#include "nvct/config/load.hpp"
#include "output.hpp"

namespace nvct::cmd::nvidia_ctk {

std::string run_cdi_list(const std::vector<std::string>& spec_dirs) {
  cdi::Registry registry = cdi::Registry::load(spec_dirs);
  for (const auto& [path, messages] : registry.errors()) {
    for (const auto& m : messages) log::warn("The following registry errors were reported: {}", m);
  }
  std::vector<std::string> names = registry.device_names();
  log::info("Found {} CDI devices", names.size());
  std::string out;
  for (const auto& n : names) out += n + "\n";
  return out;
}

Result<std::string> run_cdi_transform_root(const TransformRootOptions& options,
                                           const std::string& input_text) {
  NVCT_ASSIGN_OR_RETURN(auto relative_to, cdi::parse_relative_to(options.relative_to));
  std::string text = input_text;
  std::string name = "<stdin>";
  if (options.input != "-") {
    name = options.input;
    NVCT_ASSIGN_OR_RETURN(text, with_context(read_file(options.input, cdi::kMaxSpecFileSize),
                                             "failed to read input spec"));
  }
  NVCT_ASSIGN_OR_RETURN(auto spec, cdi::parse_spec(text, name));
  cdi::RootTransform{options.from, options.to, relative_to}.apply(spec);
  auto format =
      strings::ends_with(options.output, ".json") ? cdi::Format::kJson : cdi::Format::kYaml;
  return cdi::render(spec, format);
}

Result<cdi::Format> generate_output_format(const GenerateCommandOptions& options) {
  if (options.format == "json") return cdi::Format::kJson;
  if (options.format == "yaml") return cdi::Format::kYaml;
  if (!options.format.empty())
    return fail(EINVAL, "invalid output format: " + options.format + " (expected json or yaml)");
  return strings::ends_with(options.output, ".json") ? cdi::Format::kJson : cdi::Format::kYaml;
}

Result<cdi::GenerateOptions> generate_options(const GenerateCommandOptions& options,
                                              const config::Config& cfg, bool debug,
                                              std::string_view path_env) {
  NVCT_ASSIGN_OR_RETURN(auto mode, cdi::parse_generate_mode(options.mode));
  cdi::GenerateOptions o;
  o.vendor = options.vendor.empty() ? std::string(cdi::default_vendor(mode)) : options.vendor;
  o.class_name = options.class_name;
  o.strategies.clear();
  for (const auto& s : options.device_name_strategies) {
    NVCT_ASSIGN_OR_RETURN(auto strategy, cdi::parse_name_strategy(s));
    o.strategies.push_back(strategy);
  }
  if (o.strategies.empty()) o.strategies.push_back(cdi::NameStrategy::kIndex);
  o.device_ids.clear();
  for (const auto& id : options.device_ids)
    for (const auto& item : strings::split_trimmed(id, ','))
      if (!item.empty()) o.device_ids.push_back(item);
  // --device-id none implies --no-all-device.
  o.no_all_device = options.no_all_device;
  o.dev_root = options.dev_root;
  NVCT_ASSIGN_OR_RETURN(o.hooks.binary, cdi::resolve_hook_binary(options.hook_path, path_env));
  o.hooks.ldconfig_path = options.ldconfig_path;
  o.hooks.debug = debug;
  o.hooks.disabled.insert(options.disable_hooks.begin(), options.disable_hooks.end());
  o.hooks.enabled.insert(options.enable_hooks.begin(), options.enable_hooks.end());
  NVCT_TRY(cdi::validate_hook_options(o.hooks));
  auto flags = cdi::parse_feature_flags(options.feature_flags);
  for (const auto& name : flags.unknown) log::warn("Ignoring unknown feature flag {}", name);
  o.features = flags.flags;
  o.config_search_paths = options.config_search_paths;
  // Only mode auto turns into wsl on a WSL2 root; run_cdi_generate resolves it before discovery.
  o.detect_wsl = options.mode == "auto";
  (void)cfg;
  return o;
}

std::string generate_driver_root(const GenerateCommandOptions& options, const config::Config& cfg) {
  if (!options.driver_root.empty()) return options.driver_root;
  return cfg.cli.root.empty() ? "/" : cfg.cli.root;
}

Result<std::vector<GeneratedOutput>> render_generated(const GenerateCommandOptions& options,
                                                      const cdi::GenerateOptions& generate,
                                                      const driver::DriverInfo* info,
                                                      const std::string& driver_root,
                                                      cdi::DeviceLookup& lookup) {
  NVCT_ASSIGN_OR_RETURN(auto format, generate_output_format(options));
  const std::string dev_root = generate.dev_root.empty() ? driver_root : generate.dev_root;
  NVCT_ASSIGN_OR_RETURN(auto mode,
                        cdi::resolve_generate_mode(options.mode, driver_root, dev_root, lookup));
  cdi::Spec spec;
  if (cdi::mode_needs_driver(mode)) {
    if (info == nullptr)
      return fail(EINVAL, fmt::format("mode {} needs the driver", cdi::generate_mode_name(mode)));
    if (mode == cdi::GenerateMode::kManagement) {
      NVCT_ASSIGN_OR_RETURN(spec, cdi::build_management_spec(*info, generate, lookup));
    } else {
      NVCT_ASSIGN_OR_RETURN(spec, cdi::build_spec(*info, generate, lookup));
    }
  } else {
    cdi::ModeOptions m;
    m.vendor = generate.vendor;
    // --class defaults to gpu; these modes name their class after themselves unless it is set.
    if (options.class_name != "gpu") m.class_name = options.class_name;
    m.driver_root = driver_root;
    m.dev_root = dev_root;
    m.device_ids = generate.device_ids;
    m.no_all_device = generate.no_all_device;
    m.features = generate.features;
    m.hooks = generate.hooks;
    m.csv_files = options.csv_files;
    m.csv_ignore_patterns = options.csv_ignore_patterns;
    m.csv_compat_container_root = options.csv_compat_container_root;
    m.library_search_paths = options.library_search_paths;
    NVCT_ASSIGN_OR_RETURN(spec, cdi::build_device_mode_spec(mode, m, lookup));
  }
  NVCT_TRY(with_context(cdi::validate_spec(spec), "generated spec is invalid"));
  log::info("Generated CDI spec with version {}", spec.cdi_version);
  std::vector<GeneratedOutput> out;
  out.push_back({options.output, cdi::render(spec, format)});
  if (generate.features.coherent_annotations) {
    // nvct's NVML query does not report the GPUs' addressing mode, so every GPU counts as
    // non-coherent.
    for (const auto& part : cdi::split_by_coherence(spec, {})) {
      NVCT_TRY(with_context(cdi::validate_spec(part.spec), "generated spec is invalid"));
      std::string path =
          options.output.empty() ? "" : cdi::suffixed_output_path(options.output, part.suffix);
      out.push_back({std::move(path), cdi::render(part.spec, format)});
    }
  }
  return out;
}

Result<std::vector<GeneratedOutput>> run_cdi_generate(const GenerateCommandOptions& options,
                                                      const config::Config& cfg, bool debug) {
  const char* path = std::getenv("PATH");
  NVCT_ASSIGN_OR_RETURN(auto o, generate_options(options, cfg, debug, path ? path : ""));
  const std::string driver_root = generate_driver_root(options, cfg);
  cdi::HostDeviceLookup lookup;
  NVCT_ASSIGN_OR_RETURN(
      auto mode, cdi::resolve_generate_mode(options.mode, driver_root,
                                            o.dev_root.empty() ? driver_root : o.dev_root, lookup));
  std::optional<driver::DriverInfo> info;
  if (cdi::mode_needs_driver(mode)) {
    cdi::CdiDiscovery discovery;
    discovery.driver_root = driver_root;
    discovery.detect_wsl = false;  // resolved above, with the dev root
    discovery.libraries.search_paths = options.library_search_paths;
    discovery.libraries.explicit_only = o.features.explicit_driver_libraries;
    NVCT_ASSIGN_OR_RETURN(info, cdi::discover_driver_for_cdi(discovery));
  }
  return with_context(render_generated(options, o, info ? &*info : nullptr, driver_root, lookup),
                      "failed to generate CDI spec");
}

namespace {

void add_generate(CLI::App& cdi, GlobalOptions& globals) {
  auto o = std::make_shared<GenerateCommandOptions>();
  CLI::App* g = cdi.add_subcommand("generate",
                                   "Generate CDI specifications for use with CDI-enabled runtimes");
  g->add_option("--output", o->output,
                "Specify the file to output the generated CDI specification to. If this is '' the "
                "specification is output to STDOUT")
      ->envname("NVIDIA_CTK_CDI_OUTPUT_FILE_PATH");
  g->add_option("--format", o->format,
                "The output format for the generated spec [json | yaml]. This overrides the format "
                "defined by the output file extension (if specified).")
      ->envname("NVIDIA_CTK_CDI_GENERATE_OUTPUT_FORMAT");
  g->add_option("--mode,--discovery-mode", o->mode,
                "The mode to use when discovering the available entities. One of [auto | csv | "
                "gdrcopy | gds | imex | management | mofed | nvml | nvswitch | wsl]; auto is wsl "
                "when the driver root has /usr/lib/wsl/lib/libdxcore.so or the dev root /dev/dxg")
      ->envname("NVIDIA_CTK_CDI_GENERATE_MODE")
      ->default_str("auto");
  g->add_option("--dev-root", o->dev_root,
                "Specify the root where `/dev` is located. If this is not specified, the "
                "driver-root is assumed.")
      ->envname("NVIDIA_CTK_DEV_ROOT");
  g->add_option(
       "--device-name-strategy", o->device_name_strategies,
       "Specify the strategy for generating device names. If this is specified multiple times, the "
       "devices will be duplicated for each strategy. One of [index | uuid | type-index]")
      ->envname("NVIDIA_CTK_CDI_GENERATE_DEVICE_NAME_STRATEGIES")
      ->delimiter(',')
      ->default_str("index");
  g->add_option("--driver-root", o->driver_root,
                "Specify the NVIDIA GPU driver root to use when discovering the entities that "
                "should be included in the CDI specification.")
      ->envname("NVIDIA_CTK_DRIVER_ROOT");
  g->add_option("--nvidia-cdi-hook-path,--nvidia-ctk-path", o->hook_path,
                "Specify the path to use for the nvidia-cdi-hook in the generated CDI "
                "specification. If not specified, the PATH will be searched for `nvidia-cdi-hook`.")
      ->envname("NVIDIA_CTK_CDI_HOOK_PATH");
  g->add_option("--ldconfig-path", o->ldconfig_path,
                "Specify the path to use for ldconfig in the generated CDI specification");
  g->add_option("--vendor,--cdi-vendor", o->vendor,
                "the vendor string to use for the generated CDI specification.")
      ->default_str("nvidia.com");
  g->add_option("--class,--cdi-class", o->class_name,
                "the class string to use for the generated CDI specification.")
      ->default_str("gpu");
  g->add_option("--disable-hook,--disable-hooks", o->disable_hooks,
                "specify a specific hook to skip when generating CDI specifications. This can be "
                "specified multiple times and the special hook name 'all' can be used to disable "
                "the generation of all hooks.")
      ->envname("NVIDIA_CTK_CDI_DISABLED_HOOKS")
      ->delimiter(',');
  g->add_option("--enable-hook,--enable-hooks", o->enable_hooks,
                "specify a specific hook to enable when generating CDI specifications. This can be "
                "specified multiple times.")
      ->envname("NVIDIA_CTK_CDI_ENABLED_HOOKS")
      ->delimiter(',');
  g->add_option(
       "--feature-flag,--feature-flags", o->feature_flags,
       "specify feature flags for CDI spec generation: enable-explicit-driver-libraries, "
       "disable-nvsandboxutils, enable-coherent-annotations, disable-multiple-csv-devices, "
       "no-additional-gids-for-device-nodes, disable-ipc-discoverer")
      ->envname("NVIDIA_CTK_CDI_FEATURE_FLAGS")
      ->delimiter(',');
  g->add_option("--library-search-path", o->library_search_paths,
                "Specify the path to search for libraries when discovering the entities that "
                "should be included in the CDI specification (relative to the driver root; "
                "wsl mode: where libdxcore.so is looked for, default /usr/lib/wsl/lib).")
      ->delimiter(',');
  g->add_option("--config-search-path", o->config_search_paths,
                "Specify the path to search for config files when discovering the entities that "
                "should be included in the CDI specification (relative to the driver root).")
      ->delimiter(',');
  g->add_option("--csv.file", o->csv_files,
                "The path to the list of CSV files to use when generating the CDI specification "
                "in CSV mode.")
      ->delimiter(',')
      ->default_str(strings::join(cdi::kDefaultCsvFiles, ","));
  g->add_option("--csv.ignore-pattern", o->csv_ignore_patterns,
                "Specify a pattern; CSV entries whose path (or file name) matches it are ignored.")
      ->delimiter(',');
  g->add_option("--csv.compat-container-root", o->csv_compat_container_root,
                "Specify the container folder to use for CUDA Forward Compatibility in "
                "non-standard containers");
  g->add_flag("--no-all-device", o->no_all_device,
              "Don't generate an `all` device for the resultant spec");
  g->add_option("--device-id,--device-ids,--device,--devices", o->device_ids,
                "Restrict generation to the specified device identifiers")
      ->delimiter(',')
      ->default_str("all");
  g->callback([&globals, o] {
    auto cfg = config::load_file(globals.effective_config_path(), !globals.config_path.empty());
    if (!cfg) {
      globals.report(
          with_context(Status(tl::unexpected(cfg.error())), "failed to load the config"));
      return;
    }
    // The refresh service's env file (cdi.md §10) spells the variable with _GENERATE_.
    if (o->feature_flags.empty())
      if (const char* env = std::getenv("NVIDIA_CTK_CDI_GENERATE_FEATURE_FLAGS"))
        o->feature_flags.emplace_back(env);
    auto files = run_cdi_generate(*o, *cfg, globals.debug);
    if (!files) {
      globals.report(tl::unexpected(files.error()));
      return;
    }
    Status written = ok();
    for (const auto& f : *files) {
      written = write_output(f.path, f.text);
      // The reference's CDI cache writes specs 0644, whatever an existing file had.
      if (written && !f.path.empty() && ::chmod(f.path.c_str(), 0644) != 0)
        written = fail_errno("chmod " + f.path);
      if (!written) break;
    }
    globals.report(written);
  });
}

void add_list(CLI::App& cdi, GlobalOptions& globals) {
  auto dirs = std::make_shared<std::vector<std::string>>(cdi::kDefaultSpecDirs);
  CLI::App* list = cdi.add_subcommand("list", "List the available CDI devices");
  list->add_option("--spec-dir", *dirs, "specify the directories to scan for CDI specifications")
      ->envname("NVIDIA_CTK_CDI_SPEC_DIRS")
      ->delimiter(',')
      ->default_str("/etc/cdi,/var/run/cdi");
  list->callback([&globals, dirs] { globals.report(write_output("", run_cdi_list(*dirs))); });
}

void add_transform(CLI::App& cdi, GlobalOptions& globals) {
  CLI::App* transform = cdi.add_subcommand("transform", "Apply a transform to a CDI specification");
  transform->callback([transform] {
    if (transform->get_subcommands().empty()) std::cout << transform->help();
  });
  auto options = std::make_shared<TransformRootOptions>();
  CLI::App* root =
      transform->add_subcommand("root", "Apply a root transform to a CDI specification");
  root->add_option("--from", options->from, "specify the root to be transformed");
  root->add_option("--to", options->to, "specify the replacement root");
  root->add_option("--relative-to", options->relative_to,
                   "specify whether the transform is relative to the host or to the container; "
                   "one of [host, container]")
      ->default_str("host");
  root->add_option("--input", options->input,
                   "specify the file to read the CDI specification "
                   "from; - reads stdin")
      ->default_str("-");
  root->add_option("--output", options->output,
                   "specify the file to output the transformed CDI specification to; empty "
                   "writes to stdout");
  root->callback([&globals, options] {
    std::string stdin_text;
    if (options->input == "-") {
      auto text = read_fd(STDIN_FILENO, cdi::kMaxSpecFileSize);
      if (!text) {
        globals.report(with_context(Status(tl::unexpected(text.error())), "failed to read stdin"));
        return;
      }
      stdin_text = std::move(*text);
    }
    auto rendered = run_cdi_transform_root(*options, stdin_text);
    if (!rendered) {
      globals.report(tl::unexpected(rendered.error()));
      return;
    }
    globals.report(write_output(options->output, *rendered));
  });
}

}  // namespace

void add_cdi_command(CLI::App& parent, GlobalOptions& globals) {
  CLI::App* cdi =
      parent.add_subcommand("cdi", "Provide tools for interacting with CDI specifications");
  cdi->callback([cdi] {
    if (cdi->get_subcommands().empty()) std::cout << cdi->help();
  });
  add_generate(*cdi, globals);
  add_list(*cdi, globals);
  add_transform(*cdi, globals);
}

}  // namespace nvct::cmd::nvidia_ctk
