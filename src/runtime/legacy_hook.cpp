#include "nvct/runtime/legacy_hook.hpp"

#include <fmt/format.h>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/driver/facts_cache.hpp"
#include "nvct/runtime/runtime_lookup.hpp"

namespace nvct::runtime {

using nlohmann::ordered_json;

Result<std::string> resolve_hook_path(std::string_view configured,
                                      const std::vector<std::string>& dirs,
                                      const ExecutableProbe& probe, std::string_view setting) {
  if (!configured.empty() && configured.front() == '/') {
    std::string path(configured);
    auto info = probe.probe(path);
    if (info && info->regular && info->executable) return path;
    return fail(ENOENT, fmt::format("{} is set to {}, which is not an executable file; install "
                                    "the hook there or change {}",
                                    setting, path, setting));
  }
  auto name = configured.empty() ? kHookName : strings::basename(configured);
  auto found = find_executable(name, dirs, probe);
  if (!found.empty()) return found;
  return fail(ENOENT, fmt::format("the prestart hook {} was not found ({} is \"{}\"): looked in "
                                  "{}; install nvidia-container-toolkit or set {} to the hook's "
                                  "absolute path",
                                  name, setting, configured, strings::join(dirs, ", "), setting));
}

bool has_nvidia_prestart_hook(const ordered_json& spec) {
  if (!spec.is_object()) return false;
  auto hooks = spec.find("hooks");
  if (hooks == spec.end() || !hooks->is_object()) return false;
  auto prestart = hooks->find("prestart");
  if (prestart == hooks->end() || !prestart->is_array()) return false;
  for (const auto& hook : *prestart) {
    if (!hook.is_object()) continue;
    auto path = hook.find("path");
    if (path == hook.end() || !path->is_string()) continue;
    auto base = strings::basename(path->get_ref<const std::string&>());
    if (base == "nvidia-container-runtime-hook" || base == "nvidia-container-toolkit") return true;
  }
  return false;
}

std::vector<std::string> hook_env_from(const std::function<const char*(const char*)>& getenv) {
  std::vector<std::string> out;
  const std::string name(driver::kFactsCacheDirEnv);
  if (const char* v = getenv(name.c_str())) out.push_back(name + "=" + v);
  return out;
}

ordered_json make_prestart_hook(const std::string& hook_path, const std::string& config_path,
                                const std::vector<std::string>& extra_env) {
  ordered_json hook = ordered_json::object();
  hook["path"] = hook_path;
  ordered_json args = ordered_json::array({std::string(strings::basename(hook_path))});
  if (!config_path.empty()) {
    args.push_back("-config");
    args.push_back(config_path);
  }
  args.push_back("prestart");
  hook["args"] = std::move(args);
  // An explicit env keeps runc from handing its own (or the container's) environment to a
  // privileged process (CVE-2025-23266 class).
  hook["env"] = ordered_json::array({std::string(kHookMinimalPath)});
  for (const auto& e : extra_env) hook["env"].push_back(e);
  hook["timeout"] = kHookTimeoutSeconds;
  return hook;
}

Result<bool> add_legacy_prestart_hook(ordered_json& spec, const std::string& hook_path,
                                      const std::string& config_path,
                                      const std::vector<std::string>& extra_env) {
  if (!spec.is_object()) return fail(EINVAL, "OCI spec is not a JSON object");
  if (has_nvidia_prestart_hook(spec)) {
    log::info("prestart hook already present; not adding another");
    return false;
  }
  auto hooks = spec.find("hooks");
  if (hooks == spec.end() || hooks->is_null()) {
    spec["hooks"] = ordered_json::object();
    hooks = spec.find("hooks");
  }
  if (!hooks->is_object()) return fail(EINVAL, "OCI spec field \"hooks\" is not an object");
  auto prestart = hooks->find("prestart");
  if (prestart == hooks->end() || prestart->is_null()) {
    (*hooks)["prestart"] = ordered_json::array();
    prestart = hooks->find("prestart");
  }
  if (!prestart->is_array()) {
    return fail(EINVAL, "OCI spec field \"hooks.prestart\" is not an array");
  }
  prestart->push_back(make_prestart_hook(hook_path, config_path, extra_env));
  log::info("added prestart hook {} prestart", hook_path);
  return true;
}

}  // namespace nvct::runtime
