// `nvidia-ctk config [--set k=v]... [-i | -o file]` and `nvidia-ctk config default`.
#include "config_command.hpp"

#include <fmt/format.h>

#include <memory>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/config/document.hpp"
#include "nvct/config/load.hpp"
#include "nvct/config/unknown_keys.hpp"
#include "nvct/ctk/host_file.hpp"
#include "output.hpp"

namespace nvct::cmd::nvidia_ctk {
namespace {

Result<std::vector<config::SetOption>> parse_sets(const ConfigOptions& options) {
  std::vector<config::SetOption> sets;
  for (const std::string& text : options.sets) {
    auto set = config::parse_set_option(text, options.list_separator);
    if (!set) {
      return tl::unexpected(
          std::move(set.error()).context(fmt::format("invalid --set option {}", text)));
    }
    sets.push_back(std::move(*set));
  }
  return sets;
}

Result<std::optional<std::string>> read_if_exists(const std::string& path) {
  auto text = read_file(path);
  if (text) return std::optional<std::string>(std::move(*text));
  if (text.error().code() == ENOENT) return std::optional<std::string>();
  return tl::unexpected(std::move(text.error()).context(fmt::format("read config {}", path)));
}

}  // namespace

Result<std::string> edit_config_text(const std::optional<std::string>& current,
                                     const std::vector<config::SetOption>& sets,
                                     const config::HostFacts& host, std::string_view source) {
  if (!source.empty()) {
    // The same debug line as config::load_file(), so every binary says which file it used.
    if (current) {
      log::debug("Using config file {}", source);
    } else {
      log::debug("Config file {} does not exist; using the built-in defaults", source);
    }
  }
  std::optional<config::Document> document;
  if (current) {
    NVCT_ASSIGN_OR_RETURN(config::Document parsed, config::Document::parse(*current));
    // Kept as they are, as the reference does, but a typo should not go unnoticed.
    if (!source.empty()) config::warn_unknown_keys(parsed, source);
    document.emplace(std::move(parsed));
  } else {
    document.emplace(config::Document::from_config(config::default_config(host)));
  }
  for (const config::SetOption& set : sets) {
    NVCT_TRY(with_context(config::apply(*document, set), fmt::format("set {}", set.key)));
  }
  NVCT_TRY(with_context(document->to_config(host, source), "invalid resulting config"));
  return document->render(host);
}

Status run_config(const ConfigOptions& options, const config::HostFacts& host) {
  if (options.in_place && !options.output.empty()) {
    return fail(EINVAL, "--in-place and --output cannot be used together");
  }
  NVCT_ASSIGN_OR_RETURN(std::vector<config::SetOption> sets, parse_sets(options));
  std::string path = options.config_file.empty() ? config::default_path() : options.config_file;

  if (options.in_place) {
    NVCT_TRY(ctk::edit_host_file(
        path, [&](const std::optional<std::string>& current) -> Result<std::string> {
          return with_context(edit_config_text(current, sets, host, path),
                              fmt::format("config {}", path));
        }));
    log::info("Wrote updated config to {}", path);
    return ok();
  }
  NVCT_ASSIGN_OR_RETURN(std::optional<std::string> current, read_if_exists(path));
  NVCT_ASSIGN_OR_RETURN(std::string text, with_context(edit_config_text(current, sets, host, path),
                                                       fmt::format("config {}", path)));
  return write_output(options.output, text);
}

Status run_config_default(const ConfigDefaultOptions& options, const config::HostFacts& host) {
  return write_output(options.output, config::render_default(host));
}

void add_config_command(CLI::App& parent, GlobalOptions& globals) {
  auto options = std::make_shared<ConfigOptions>();
  auto default_options = std::make_shared<ConfigDefaultOptions>();

  CLI::App* cmd =
      parent.add_subcommand("config", "Interact with the NVIDIA Container Toolkit configuration");
  cmd->add_option("-c,--config,--config-file", options->config_file,
                  "Specify the config file to modify (default: the config.toml search path)");
  cmd->add_option("--set", options->sets,
                  "Set a config value using the pattern key[=value]; repeatable. A bool key "
                  "alone means true")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  cmd->add_option("--set-list-separator", options->list_separator,
                  "The separator of list items in --set values")
      ->group("");  // hidden, as in the reference
  cmd->add_flag("-i,--in-place", options->in_place, "Modify the config file in-place");
  cmd->add_option("-o,--output", options->output,
                  "Specify the output file to write to; stdout when not given");

  CLI::App* def = cmd->add_subcommand(
      "default", "Generate the default NVIDIA Container Toolkit configuration file");
  def->alias("create-default");
  def->alias("generate-default");
  def->add_option("-o,--output", default_options->output,
                  "Specify the output file to write to; stdout when not given");

  def->callback([&globals, default_options] {
    globals.report(run_config_default(*default_options, config::real_host_facts()));
  });
  cmd->callback([&globals, options, cmd, def] {
    if (cmd->got_subcommand(def)) return;
    // -c wins; else nvidia-ctk's global --config / $NVIDIA_CTK_CONFIG, else the search path.
    if (options->config_file.empty()) options->config_file = globals.effective_config_path();
    globals.report(run_config(*options, config::real_host_facts()));
  });
}

}  // namespace nvct::cmd::nvidia_ctk
