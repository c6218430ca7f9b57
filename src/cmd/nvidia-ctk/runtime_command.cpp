// `nvidia-ctk runtime configure`: the reference's flag names and aliases, mapped onto
// ctk::ConfigureOptions.
#include "runtime_command.hpp"

#include <cstdlib>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "nvct/base/log.hpp"
#include "nvct/ctk/configured_program.hpp"

namespace nvct::cmd::nvidia_ctk {

Status run_runtime_configure(const ctk::ConfigureOptions& options, ctk::CommandRunner& runner,
                             std::ostream& out) {
  NVCT_ASSIGN_OR_RETURN(auto normalized, ctk::normalize_options(options));
  if (!normalized.remove) {
    const char* path_env = std::getenv("PATH");
    auto checked = ctk::check_configured_program(normalized, path_env ? path_env : "");
    if (!checked && !normalized.dry_run)
      return tl::unexpected(checked.error().context(
          fmt::format("unable to configure {}; nothing was written", normalized.runtime)));
    if (!checked) log::warn("{}", checked.error().message());
  }
  NVCT_ASSIGN_OR_RETURN(auto text, ctk::configure_runtime(normalized, runner));
  out << text;
  out.flush();
  return ok();
}

void add_runtime_command(CLI::App& parent, GlobalOptions& globals) {
  auto options = std::make_shared<ctk::ConfigureOptions>();
  auto drop_in = std::make_shared<std::string>();

  CLI::App* runtime = parent.add_subcommand("runtime",
                                            "A collection of runtime-related utilities "
                                            "for the NVIDIA Container Toolkit");
  runtime->callback([runtime] {
    if (runtime->get_subcommands().empty()) std::cout << runtime->help();
  });

  CLI::App* cmd = runtime->add_subcommand(
      "configure",
      "Add a runtime to the specified container engine (with --remove: remove it again)");
  cmd->add_option("--runtime", options->runtime,
                  "the target runtime engine; one of [containerd, crio, docker]")
      ->default_str("docker");
  cmd->add_option("--config", options->config_path,
                  "path to the config file for the target runtime (default: "
                  "/etc/docker/daemon.json, /etc/containerd/config.toml or /etc/crio/crio.conf)");
  CLI::Option* drop_in_flag = cmd->add_option(
      "--drop-in-config", *drop_in,
      "path to the NVIDIA-specific drop-in config file; empty edits the main file in place "
      "(default: /etc/containerd/conf.d/99-nvidia.toml, /etc/crio/crio.conf.d/99-nvidia.toml; "
      "docker has none)");
  cmd->add_option("--executable-path", options->executable_path,
                  "the path to the runtime executable, used for --config-source=command");
  cmd->add_option("--config-mode", options->config_mode,
                  "the config mode for runtimes that support multiple modes: config-file or "
                  "oci-hook")
      ->default_str("config-file");
  cmd->add_option("--config-source", options->config_source,
                  "where the runtime's current configuration is read from: file or command")
      ->default_str("file");
  cmd->add_option("--oci-hook-path", options->oci_hook_path,
                  "the path to the OCI runtime hook to create if --config-mode=oci-hook is "
                  "specified; stdout if empty");
  cmd->add_option("--nvidia-runtime-name", options->runtime_name,
                  "specify the name of the NVIDIA runtime that will be added")
      ->default_str(ctk::kDefaultRuntimeName);
  cmd->add_option("--nvidia-runtime-path,--runtime-path", options->runtime_path,
                  "specify the path to the NVIDIA runtime executable")
      ->default_str(ctk::kDefaultRuntimeExecutable);
  cmd->add_option("--nvidia-runtime-hook-path", options->hook_path,
                  "specify the path to the NVIDIA Container Runtime hook executable")
      ->default_str(ctk::default_hook_path());
  cmd->add_flag("--nvidia-set-as-default,--set-as-default", options->set_as_default,
                "set the NVIDIA runtime as the default runtime");
  cmd->add_flag("--cdi.enabled,--cdi.enable,--enable-cdi", options->enable_cdi,
                "Enable CDI in the configured runtime");
  cmd->add_flag("--dry-run", options->dry_run,
                "update the config in-memory and print it to stdout; write nothing");
  cmd->add_flag("--backup", options->backup,
                "keep the replaced file as <file>.bak (nvct extension)");
  cmd->add_flag("--remove", options->remove,
                "remove what configure added instead (nvct extension): docker: the "
                "<name>, <name>-cdi and <name>-legacy runtimes (a default-runtime naming one "
                "becomes runc); containerd and crio: delete the drop-in (the main file and its "
                "imports stay), or with --drop-in-config=\"\" remove the runtime tables in place; "
                "oci-hook: delete --oci-hook-path if it runs the NVIDIA hook. Only entries whose "
                "executable is nvidia-container-runtime[.cdi|.legacy] (or --nvidia-runtime-path) "
                "are touched; missing files are no-ops; the engine is not restarted");

  cmd->callback([&globals, options, drop_in, drop_in_flag] {
    ctk::ConfigureOptions effective = *options;
    if (drop_in_flag->count() > 0) effective.drop_in_path = *drop_in;
    ctk::ProcessRunner runner;
    globals.report(run_runtime_configure(effective, runner, std::cout));
  });
}

}  // namespace nvct::cmd::nvidia_ctk
