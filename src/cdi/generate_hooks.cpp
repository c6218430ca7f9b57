#include "nvct/cdi/generate_hooks.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include "nvct/base/program_path.hpp"
#include "nvct/base/strings.hpp"

namespace nvct::cdi {
Result<std::string> resolve_hook_binary(std::string_view flag, std::string_view path_env,
                                        std::string_view setting) {
  return resolve_program(flag, "nvidia-cdi-hook", program_search_dirs(path_env), setting);
}

Status validate_hook_options(const HookOptions& options) {
  if (options.enabled.count("all") != 0)
    return fail(EINVAL, "enabling all hooks is not supported; name the hooks to enable");
  return ok();
}

bool hook_enabled(const HookOptions& options, std::string_view name) {
  if (options.enabled.count(name) != 0) return true;
  if (options.disabled.count("all") != 0 || options.disabled.count(name) != 0) return false;
  return kDefaultDisabledHooks.count(name) == 0;
}

std::optional<Hook> make_hook(const HookOptions& options, std::string_view name,
                              const std::vector<std::string>& args) {
  if (!hook_enabled(options, name)) return std::nullopt;
  if ((name == "create-symlinks" || name == "chmod") && args.empty()) return std::nullopt;
  Hook hook;
  hook.hook_name = "createContainer";
  hook.path = options.binary;
  std::string base(strings::basename(options.binary));
  hook.args.push_back(base);
  if (base == "nvidia-ctk") hook.args.emplace_back("hook");
  hook.args.emplace_back(name);
  hook.args.insert(hook.args.end(), args.begin(), args.end());
  // A non-empty env is what stops runc <= 1.2 from giving the hook the container's environment.
  hook.env.push_back(options.debug ? "NVIDIA_CTK_DEBUG=true" : "NVIDIA_CTK_DEBUG=false");
  return hook;
}

void add_hook(ContainerEdits& edits, const HookOptions& options, std::string_view name,
              const std::vector<std::string>& args) {
  if (auto hook = make_hook(options, name, args)) edits.hooks.push_back(std::move(*hook));
}

}  // namespace nvct::cdi
