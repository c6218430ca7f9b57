#include "nvct/cdi_hooks/cli.hpp"

#include <fmt/format.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nvct/base/log.hpp"
#include "nvct/cdi_hooks/application_profile.hpp"
#include "nvct/cdi_hooks/chmod_paths.hpp"
#include "nvct/cdi_hooks/create_symlinks.hpp"
#include "nvct/cdi_hooks/cuda_compat.hpp"
#include "nvct/cdi_hooks/device_node_modification.hpp"
#include "nvct/cdi_hooks/hook_target.hpp"
#include "nvct/cdi_hooks/update_ldcache.hpp"
#include "nvct/oci/spec_document.hpp"

namespace nvct::cdi_hooks {
namespace {

// Option values live as long as the app: the callbacks run after parsing.
struct HookFlags {
  std::string container_spec;
  std::vector<std::string> folders;
  std::string ldconfig_path = "/sbin/ldconfig";
  std::vector<std::string> links;
  CudaCompatOptions compat;
  std::string mode;
  std::vector<std::string> paths;
};

using Action = std::function<Status(const HookTarget&, const mount::Root&)>;

void report(int& exit_code, const Status& s) {
  if (s) return;
  log::error("{}", s.error().message());
  exit_code = 1;
}

CLI::App* add_hook(CLI::App& parent, const std::string& name, const std::string& help,
                   HookFlags& flags, int& exit_code, Action action) {
  CLI::App* sub = parent.add_subcommand(name, help);
  sub->add_option("--container-spec", flags.container_spec,
                  "Path to the OCI container state; empty or '-' reads it from stdin")
      ->group("");  // hidden, for testing
  sub->callback([&flags, &exit_code, action] {
    auto run = [&]() -> Status {
      NVCT_ASSIGN_OR_RETURN(HookTarget target, load_hook_target(flags.container_spec));
      NVCT_ASSIGN_OR_RETURN(mount::Root root, open_container_root(target.container_root));
      return action(target, root);
    };
    report(exit_code, run());
  });
  return sub;
}

}  // namespace

void add_hook_subcommands(CLI::App& parent, int& exit_code) {
  auto flags_owner = std::make_shared<HookFlags>();
  HookFlags& flags = *flags_owner;
  // The app owns its callbacks; the shared_ptr in one of them keeps the flags alive.
  parent.allow_extras();
  parent.callback([&parent, flags_owner] {
    if (!parent.get_subcommands().empty()) return;
    const auto& extras = parent.remaining();
    // Compatibility with specs from other toolkit versions: an unknown hook is not an error.
    if (extras.empty())
      log::warn("No CDI hook specified");
    else
      log::warn("Unsupported CDI hook: {}", extras.front());
  });

  CLI::App* ldcache =
      add_hook(parent, "update-ldcache", "Update ldcache in a container by running ldconfig", flags,
               exit_code, [&flags](const HookTarget&, const mount::Root& root) -> Status {
                 UpdateLdcacheOptions o;
                 o.folders = flags.folders;
                 o.ldconfig_path = flags.ldconfig_path;
                 NVCT_TRY(update_ldcache(root, o));
                 return ok();
               });
  ldcache->add_option("--folder", flags.folders, "Specify a folder to add to /etc/ld.so.conf");
  ldcache
      ->add_option("--ldconfig-path", flags.ldconfig_path,
                   "Specify the path to ldconfig on the host")
      ->capture_default_str();

  CLI::App* links =
      add_hook(parent, "create-symlinks", "A hook to create symlinks in the container", flags,
               exit_code, [&flags](const HookTarget&, const mount::Root& root) {
                 return create_symlinks(root, flags.links);
               });
  links->add_option("--link", flags.links,
                    "Specify a link to create: '<target>::<link>' (repeatable)");

  CLI::App* compat =
      add_hook(parent, "enable-cuda-compat", "Enable CUDA Forward Compatibility in a container",
               flags, exit_code, [&flags](const HookTarget&, const mount::Root& root) -> Status {
                 NVCT_TRY(enable_cuda_compat(root, flags.compat));
                 return ok();
               });
  compat->add_option("--host-driver-version", flags.compat.host_driver_version,
                     "The host driver version");
  compat->add_option("--host-cuda-version", flags.compat.host_cuda_version,
                     "The CUDA version supported by the host driver");
  compat
      ->add_option("--cuda-compat-container-root", flags.compat.compat_container_root,
                   "The folder in the container holding the CUDA compat libraries")
      ->capture_default_str();

  add_hook(parent, "disable-device-node-modification",
           "Ensure that the driver does not create device nodes in the container", flags, exit_code,
           [](const HookTarget&, const mount::Root& root) -> Status {
             NVCT_ASSIGN_OR_RETURN(mount::Root host, mount::Root::open_allow_host_root("/"));
             NVCT_TRY(disable_device_node_modification(host, kParamsPath, root));
             return ok();
           });

  add_hook(parent, "update-application-profile",
           "Restrict the EGL application profile to the container's GPUs", flags, exit_code,
           [](const HookTarget& target, const mount::Root& root) -> Status {
             NVCT_ASSIGN_OR_RETURN(oci::SpecDocument spec,
                                   oci::SpecDocument::load(target.state.bundle));
             NVCT_TRY(update_application_profile(root, spec.json()));
             return ok();
           });

  CLI::App* chmod =
      add_hook(parent, "chmod", "Set the mode of paths in the container", flags, exit_code,
               [&flags](const HookTarget&, const mount::Root& root) -> Status {
                 NVCT_ASSIGN_OR_RETURN(mode_t mode, parse_octal_mode(flags.mode));
                 NVCT_TRY(chmod_paths(root, mode, flags.paths));
                 return ok();
               });
  chmod->add_option("--mode", flags.mode, "The octal mode to set")->required();
  chmod->add_option("--path", flags.paths, "A path in the container (repeatable)");

  CLI::App* noop = parent.add_subcommand("noop", "Does nothing");
  noop->group("");
  noop->allow_extras();
  noop->callback([] { log::debug("noop hook"); });
}

}  // namespace nvct::cdi_hooks
