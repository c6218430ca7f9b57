// nvidia-container-runtime-hook: the OCI prestart hook of legacy mode and of `docker run --gpus`
// (spec/hook.md). It runs as root in the runtime's namespaces with an environment the caller
// chose, so it reads nothing security-relevant from that environment.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "container_root.hpp"
#include "hook_args.hpp"
#include "hook_logging.hpp"
#include "hook_mode.hpp"
#include "nvct/base/file.hpp"
#include "nvct/base/log_buffer.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/mount/configure.hpp"
#include "nvct/oci/state.hpp"
#include "prestart.hpp"

namespace {

using namespace nvct;

// Well below the 60 s the shim gives the hook: runc kills only the hook's pid on its timeout,
// so the hook ends itself (and its helpers see their parent die) before that happens.
constexpr unsigned kDeadlineSeconds = 50;

int run(int argc, char** argv) {
  // 1. Hygiene first: nothing below depends on the cwd (the bundle in the state is absolute),
  //    and files we might create must not inherit a caller's permissive umask.
  if (::chdir("/") != 0) {
    hook::print_stderr_line("nvidia-container-runtime-hook: chdir /: failed");
    return 1;
  }
  ::umask(022);
  ::alarm(kDeadlineSeconds);

  // 2. The command line.
  std::string program(strings::basename(argc > 0 ? argv[0] : "nvidia-container-runtime-hook"));
  auto parsed = hook::parse_hook_args(std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed.args) {
    if (!parsed.error.message.empty()) hook::print_stderr_line(parsed.error.message);
    (void)write_all(STDERR_FILENO, hook::usage_text(program));
    return 2;
  }
  const auto& args = *parsed.args;
  if (args.help) {
    (void)write_all(STDERR_FILENO, hook::usage_text(program));
    return 0;
  }
  if (args.version) {
    (void)write_all(STDOUT_FILENO, hook::version_text());
    return 0;
  }
  if (*args.command != hook::Command::kPrestart) return 0;  // poststart, poststop: no-ops

  // 3. Config, then logging (-debug: stderr; else the configured debug file). The log's place
  //    comes from the config, so what the loader says (which file, unknown keys) is kept until
  //    the log exists.
  auto early = std::make_shared<log::BufferSink>();
  log::set_sink(early);
  log::set_level(log::Level::kTrace);
  auto cfg = hook::load_hook_config(args.config_path);
  if (!cfg) {
    hook::print_stderr_line(
        fmt::format("nvidia-container-runtime-hook: {}", cfg.error().message()));
    return 1;
  }
  if (auto logging = hook::install_hook_logging(args.debug, cfg->cli.debug); !logging) {
    hook::print_stderr_line(
        fmt::format("nvidia-container-runtime-hook: warning: {}", logging.error().message()));
  }
  early->replay();

  // 4. State, request, mode, configure.
  auto state = read_fd(STDIN_FILENO, oci::kMaxStateSize);
  if (!state) {
    hook::print_stderr_line(fmt::format(
        "nvidia-container-runtime-hook: read OCI state from stdin: {}", state.error().message()));
    return 1;
  }
  auto configure = [](const mount::ConfigureOptions& options) -> Status {
    // root.path must be the root runc set up, not a plain host directory (issue 18).
    if (options.pid) NVCT_TRY(hook::check_container_root(*options.pid, options.rootfs));
    return mount::configure(options);
  };
  hook::PrestartEnv env{configure,
                        [](const std::string& root) { return hook::probe_platform(root); },
                        hook::print_stderr_line};
  return hook::run_prestart(*cfg, *state, args.debug, env);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nvidia-container-runtime-hook: unexpected error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "nvidia-container-runtime-hook: unexpected error\n");
  }
  return 1;
}
