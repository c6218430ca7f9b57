// `nvidia-ctk doctor`: a read-only diagnosis of the GPU container host (spec/doctor.md).
#include "doctor_command.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "nvct/base/log.hpp"
#include "nvct/diagnose/render.hpp"

namespace nvct::cmd::nvidia_ctk {
namespace {

constexpr int kCannotRun = 2;

int cannot_run(std::ostream& err, std::string_view message) {
  err << "nvidia-ctk doctor: " << message << "\n";
  return kCannotRun;
}

void set_if(std::optional<std::string>& field, const std::string& value) {
  if (!value.empty()) field = value;
}

}  // namespace

int run_doctor_command(DoctorFlags flags, std::ostream& out, std::ostream& err,
                       bool stdout_is_tty) {
  if (flags.format != "text" && flags.format != "json") {
    return cannot_run(err, fmt::format("--format {}: expected text or json", flags.format));
  }
  auto fail_on = diagnose::parse_severity(flags.fail_on);
  if (!fail_on ||
      (*fail_on != diagnose::Severity::kError && *fail_on != diagnose::Severity::kWarn)) {
    return cannot_run(err, fmt::format("--fail-on {}: expected error or warn", flags.fail_on));
  }
  if (flags.color != "auto" && flags.color != "always" && flags.color != "never") {
    return cannot_run(err, fmt::format("--color {}: expected auto, always or never", flags.color));
  }
  diagnose::Options& options = flags.options;
  options.root = flags.root.empty() ? "/" : flags.root;
  set_if(options.driver_root, flags.driver_root);
  set_if(options.config, flags.config);
  set_if(options.docker_config, flags.docker_config);
  set_if(options.containerd_config, flags.containerd_config);
  set_if(options.crio_config, flags.crio_config);
  set_if(options.crio_drop_in_dir, flags.crio_drop_in_dir);

  // The loaders doctor reuses log what they find (an unknown key, an invalid log-level) as
  // warnings; doctor reports each as a finding, so only errors may reach stderr while it runs.
  const log::Level saved = log::level();
  if (saved < log::Level::kError) log::set_level(log::Level::kError);
  auto report = diagnose::run_doctor(options);
  log::set_level(saved);
  if (!report) return cannot_run(err, report.error().message());
  int code = diagnose::exit_code(*report, *fail_on);
  if (flags.format == "json") {
    out << diagnose::render_json(*report, code);
  } else {
    bool color = flags.color == "always" ||
                 (flags.color == "auto" && stdout_is_tty && std::getenv("NO_COLOR") == nullptr);
    out << diagnose::render_text(*report, {color, flags.verbose, true});
  }
  out.flush();
  return code;
}

void add_doctor_command(CLI::App& parent, GlobalOptions& globals) {
  auto flags = std::make_shared<DoctorFlags>();
  CLI::App* doctor = parent.add_subcommand(
      "doctor", "Check the GPU container set-up of this host (read-only) and say how to fix it");
  doctor
      ->add_option("--root", flags->root,
                   "Host root: /proc, /dev, /sys, /etc, /run and /usr are read below it")
      ->default_str("/");
  doctor->add_option("--driver-root", flags->driver_root,
                     "Driver root (default: config nvidia-container-cli.root, else --root)");
  doctor->add_option("--config", flags->config,
                     "Toolkit config (default: <root>/etc/nvidia-container-runtime/config.toml)");
  doctor->add_option("--docker-config", flags->docker_config,
                     "Docker daemon.json (default: <root>/etc/docker/daemon.json)");
  doctor->add_option("--containerd-config", flags->containerd_config,
                     "containerd config (default: <root>/etc/containerd/config.toml)");
  doctor->add_option("--crio-config", flags->crio_config,
                     "CRI-O config (default: <root>/etc/crio/crio.conf)");
  doctor->add_option("--crio-drop-in-dir", flags->crio_drop_in_dir,
                     "CRI-O drop-in folder (default: <root>/etc/crio/crio.conf.d)");
  doctor->add_option("--cdi-spec-dir", flags->options.cdi_spec_dirs,
                     "CDI spec folder (repeat; default: config modes.cdi.spec-dirs)");
  doctor->add_option("--format", flags->format, "Output format: text or json")->default_str("text");
  doctor->add_option("--only", flags->options.only, "Run only this check family (repeat)");
  doctor->add_option("--skip", flags->options.skip, "Skip this check family (repeat)");
  doctor->add_flag("--no-nvml", flags->options.no_nvml, "Never start the NVML child process");
  doctor
      ->add_option("--fail-on", flags->fail_on,
                   "Severity that makes the exit code 1: error "
                   "or warn")
      ->default_str("error");
  doctor->add_flag("--verbose", flags->verbose, "Show the evidence of ok and info findings too");
  doctor->add_option("--color", flags->color, "Colour: auto, always or never")->default_str("auto");
  doctor->callback([flags, &globals] {
    globals.exit_code = run_doctor_command(*flags, std::cout, std::cerr, ::isatty(1) == 1);
  });
}

bool is_doctor_invocation(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.empty() || arg[0] == '-') continue;
    return arg == "doctor";
  }
  return false;
}

}  // namespace nvct::cmd::nvidia_ctk
