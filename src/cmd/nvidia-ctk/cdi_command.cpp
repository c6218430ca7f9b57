// `nvidia-ctk cdi`: flag names, defaults and environment variables of the reference.
#include "cdi_command.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include <iostream>
#include <memory>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/cdi/generate_discovery.hpp"
#include "nvct/cdi/registry.hpp"
#include "nvct/cdi/spec_io.hpp"
#include "nvct/cdi/transform_root.hpp"
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
  // nvct builds the content of the nvml discovery mode; the other modes need discoverers
  // (CSV, WSL, management, gds/mofed/...) nvct does not have.
  if (options.mode != "auto" && options.mode != "nvml")
    return fail(ENOTSUP, "discovery mode \"" + options.mode +
                             "\" is not supported by nvct (supported: auto, nvml)");
  cdi::GenerateOptions o;
  o.vendor = options.vendor;
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
  o.hooks.binary = cdi::resolve_hook_binary(options.hook_path, path_env);
  o.hooks.ldconfig_path = options.ldconfig_path;
  o.hooks.debug = debug;
  o.hooks.disabled.insert(options.disable_hooks.begin(), options.disable_hooks.end());
  o.hooks.enabled.insert(options.enable_hooks.begin(), options.enable_hooks.end());
  NVCT_TRY(cdi::validate_hook_options(o.hooks));
  (void)cfg;
  return o;
}

Result<std::string> run_cdi_generate(const GenerateCommandOptions& options,
                                     const config::Config& cfg, bool debug) {
  NVCT_ASSIGN_OR_RETURN(auto format, generate_output_format(options));
  const char* path = std::getenv("PATH");
  NVCT_ASSIGN_OR_RETURN(auto o, generate_options(options, cfg, debug, path ? path : ""));
  std::string driver_root = options.driver_root;
  if (driver_root.empty()) driver_root = cfg.cli.root.empty() ? "/" : cfg.cli.root;
  NVCT_ASSIGN_OR_RETURN(auto info, cdi::discover_driver_for_cdi(driver_root));
  cdi::HostDeviceLookup lookup;
  NVCT_ASSIGN_OR_RETURN(
      auto spec, with_context(cdi::generate_spec(info, o, lookup), "failed to generate CDI spec"));
  log::info("Generated CDI spec with version {}", spec.cdi_version);
  return cdi::render(spec, format);
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
                "The mode to use when discovering the available entities. One of [auto | nvml]")
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
    auto text = run_cdi_generate(*o, *cfg, globals.debug);
    if (!text) {
      globals.report(tl::unexpected(text.error()));
      return;
    }
    auto written = write_output(o->output, *text);
    // The reference's CDI cache writes specs 0644, whatever an existing file had.
    if (written && !o->output.empty() && ::chmod(o->output.c_str(), 0644) != 0)
      written = fail_errno("chmod " + o->output);
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
