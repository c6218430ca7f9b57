// nvidia-container-runtime: the OCI runtime shim in front of runc/crun (spec/runtime.md).
// On create/run it adds the GPU prestart hook to <bundle>/config.json; every invocation ends by
// execve-ing the low-level runtime with the caller's argv, so PID, fds, signals, stdio and the
// exit code are the runtime's. Nothing is ever written to stdout except the --version block.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/base/file.hpp"
#include "nvct/base/install_dirs.hpp"
#include "nvct/base/log.hpp"
#include "nvct/base/program_path.hpp"
#include "nvct/base/version_info.hpp"
#include "nvct/config/load.hpp"
#include "nvct/driver/nvml_helper.hpp"
#include "nvct/oci/runtime_args.hpp"
#include "nvct/runtime/cuda_facts_query.hpp"
#include "nvct/runtime/exec.hpp"
#include "nvct/runtime/executable_probe.hpp"
#include "nvct/runtime/legacy_hook.hpp"
#include "nvct/runtime/log_file_sink.hpp"
#include "nvct/runtime/mode.hpp"
#include "nvct/runtime/runtime_lookup.hpp"
#include "nvct/runtime/spec_modifier.hpp"

namespace {

using namespace nvct;

std::string path_env() {
  const char* p = std::getenv("PATH");
  return p ? p : "";
}

// The reference's banner, so tools that parse `<runtime> --version` see the same shape.
void print_version() {
  auto text = fmt::format("NVIDIA Container Runtime version {}\ncommit: {}\nspec: {}\n\n", kVersion,
                          kGitCommit, kOciSpecVersion);
  (void)write_all(STDOUT_FILENO, text);
}

// runc's --log file (JSON lines with --log-format json, which containerd decodes to show the
// last error) and the config's debug file. A log that cannot be opened is reported in the other
// log, never fatal.
struct Logging {
  std::shared_ptr<runtime::LogFileSink> sink;
  std::string runc_log_error;  // why runc's --log file could not be opened, if it could not
};

Logging install_log_sink(const oci::RuntimeArgs& args) {
  Logging logging{std::make_shared<runtime::LogFileSink>(), ""};
  auto format = runtime::parse_log_format(args.log_format);
  auto fd = runtime::open_log_file(args.log_file);
  if (fd) {
    logging.sink->add(std::move(*fd), format);
  } else {
    logging.runc_log_error = fd.error().message();
  }
  log::set_sink(logging.sink);
  log::set_level(args.debug ? log::Level::kDebug : log::Level::kInfo);
  return logging;
}

void configure_logging(Logging& logging, const config::Config& cfg, const oci::RuntimeArgs& args) {
  auto debug_fd = runtime::open_log_file(cfg.runtime.debug);
  if (debug_fd) logging.sink->add(std::move(*debug_fd), runtime::LogFormat::kText);
  // config::load_file() has already replaced an invalid level by "info" (with a warning).
  log::Level level = log::Level::kInfo;
  if (!log::parse_level(cfg.runtime.log_level, level)) level = log::Level::kInfo;
  if (args.debug) level = log::Level::kDebug;
  log::set_level(level);
  // What was kept while loading the config now meets the level the config asked for.
  logging.sink->flush_deferred(level);
  // A refused log never fails the container (security.md §8 "Logging"); it is named on stderr
  // too, since the other log may be refused as well (stdout stays untouched).
  auto warn_log = [](const std::string& message) {
    log::warn("{}; continuing without it", message);
    (void)write_all(STDERR_FILENO, fmt::format("nvidia-container-runtime: warning: {}; "
                                               "continuing without it\n",
                                               message));
  };
  if (!debug_fd) warn_log(debug_fd.error().message());
  if (!logging.runc_log_error.empty()) warn_log(logging.runc_log_error);
  // No file takes the lines (no debug file, no --log): stop formatting them. The modifiers log
  // each device and rule they add, about 0.05 ms of formatting per GPU container for nobody.
  if (logging.sink->empty()) log::set_level(log::Level::kOff);
}

// One clear message on stderr and in the logs, exit 1 (spec/runtime.md §11).
int fail_before_exec(const Error& error) {
  log::error("{}", error.message());
  auto text = fmt::format("nvidia-container-runtime: {}\n", error.message());
  (void)write_all(STDERR_FILENO, text);
  return 1;
}

// "<key> in <file>" (or "<key> (default; no <file>)"): where a setting's value came from, for
// the errors it causes.
std::string setting_source(std::string_view key, const std::string& config_path) {
  if (::access(config_path.c_str(), F_OK) == 0) return fmt::format("{} in {}", key, config_path);
  return fmt::format("{} (default; no {})", key, config_path);
}

Result<std::string> find_low_level_runtime(const config::Config& cfg,
                                           const std::string& config_path) {
  runtime::SystemExecutableProbe probe;
  auto path = runtime::find_runtime(cfg.runtime.runtimes, path_env(), probe);
  if (!path) {
    path.error().context(
        fmt::format("find the low-level runtime ({})",
                    setting_source("nvidia-container-runtime.runtimes", config_path)));
  }
  return path;
}

int exec_low_level_runtime(const std::string& runtime_path, int argc, char** argv) {
  auto runtime_args = runtime::runtime_argv(runtime_path, argc, argv);
  log::debug("exec {}", fmt::join(runtime_args, " "));
  auto status = runtime::exec_runtime(runtime_path, runtime_args);
  return fail_before_exec(status.error());
}

// This binary is static and cannot dlopen libnvidia-ml.so.1 in a fork of itself, so NVML
// (jit-cdi mode) runs in the dynamically linked nvidia-container-runtime-nvml helper, looked up
// next to this binary, then in libexecdir/nvct; without it, /proc/driver/nvidia with a warning.
// csv mode's requirement check asks libcuda through the same helper.
Status modify_spec(const config::Config& cfg, const std::string& config_path,
                   const oci::RuntimeArgs& args, const char* argv0) {
  // One readlink of /proc/self/exe per create serves both lookups below.
  const std::string self_dir = self_exe_dir();
  auto helper_dirs = driver::nvml_helper_search_dirs(install_helper_dir(), self_dir);
  driver::set_nvml_process_runner(driver::nvml_helper_runner(helper_dirs));
  auto mode_name = runtime::effective_mode_name(cfg.runtime.mode, argv0);
  auto resolved = runtime::resolve_mode(mode_name);
  if (!resolved) {
    return tl::unexpected(
        std::move(resolved.error())
            .context(setting_source("nvidia-container-runtime.mode", config_path)));
  }
  const runtime::Mode mode = *resolved;
  if (mode_name != runtime::mode_name(mode)) {
    log::debug("mode \"{}\" resolved to \"{}\"", mode_name, runtime::mode_name(mode));
  }
  runtime::SystemExecutableProbe probe;
  runtime::ModifierOptions options;
  options.mode = mode;
  options.cuda_facts = runtime::helper_cuda_facts_query(std::move(helper_dirs));
  // The hook reads the file the shim read; a missing file means defaults for both.
  std::string setting = setting_source(runtime::kHookPathSetting, config_path);
  if (::access(config_path.c_str(), F_OK) == 0) options.config_path = config_path;
  options.hook_env = runtime::hook_env_from([](const char* n) { return std::getenv(n); });
  options.hook_path = runtime::resolve_hook_path(
      cfg.hook.path, program_search_dirs(self_dir, path_env(), install_bindir()), probe, setting);
  log::debug("{} in bundle \"{}\": mode {}, hook {}", args.subcommand, args.bundle,
             runtime::mode_name(mode),
             options.hook_path ? *options.hook_path : options.hook_path.error().message());
  NVCT_TRY(runtime::modify_bundle(args.bundle, cfg, options));
  return ok();
}

int run(int argc, char** argv) {
  // 1. Read the argv the caller meant for runc.
  std::vector<std::string> args(argv + 1, argv + argc);
  auto parsed = oci::parse_runtime_args(args);
  if (!parsed) return fail_before_exec(parsed.error());

  // The config file: $NVIDIA_CTK_CONFIG_FILE_PATH, else ${XDG_CONFIG_HOME:-/etc}/... (config.md
  // §1). The hook is told the same path, so both read one file.
  const std::string config_path = config::default_path();

  // 2. --version: our banner, then runc's own (no log files are opened).
  if (parsed->version) {
    print_version();
    auto cfg = config::load_file(config_path);
    if (!cfg) return fail_before_exec(with_context(cfg, "load config").error());
    auto runtime_path = find_low_level_runtime(*cfg, config_path);
    if (!runtime_path) return fail_before_exec(runtime_path.error());
    return exec_low_level_runtime(*runtime_path, argc, argv);
  }

  // 3. Logging, then the config. Until the config names its debug file and level, messages are
  //    kept at every level (the loader's debug line says which file it read) and filtered later.
  auto logging = install_log_sink(*parsed);
  logging.sink->defer();
  const log::Level flag_level = log::level();
  log::set_level(log::Level::kTrace);
  auto cfg = config::load_file(config_path);
  if (!cfg) {
    log::set_level(flag_level);
    logging.sink->flush_deferred(flag_level);
    return fail_before_exec(with_context(cfg, "load config").error());
  }
  configure_logging(logging, *cfg, *parsed);
  log::debug("invoked as: {}", fmt::join(args, " "));

  // 4. The low-level runtime, found before config.json is touched: a missing runtime must not
  //    leave a modified spec behind.
  auto runtime_path = find_low_level_runtime(*cfg, config_path);
  if (!runtime_path) return fail_before_exec(runtime_path.error());

  // 5. create/run: add what the GPU request needs to config.json.
  if (parsed->modifies_spec) {
    auto status = modify_spec(*cfg, config_path, *parsed, argv[0]);
    if (!status) return fail_before_exec(status.error());
  }

  // 6. Become the low-level runtime.
  return exec_low_level_runtime(*runtime_path, argc, argv);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nvidia-container-runtime: unexpected error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "nvidia-container-runtime: unexpected error\n");
  }
  return 1;
}
