#include "nvct/runtime/cdi_mode.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/cdi/registry.hpp"
#include "nvct/request/cdi_requests.hpp"
#include "nvct/runtime/jit_cdi.hpp"

namespace nvct::runtime {
namespace {

bool is_nvidia_prestart_hook(const nlohmann::ordered_json& hook) {
  if (!hook.is_object() || !hook.contains("path") || !hook["path"].is_string()) return false;
  auto base = strings::basename(hook["path"].get_ref<const std::string&>());
  return base == "nvidia-container-runtime-hook" || base == "nvidia-container-toolkit";
}

bool is_jit_name(std::string_view name) {
  return strings::starts_with(name, std::string(request::kJitCdiKind) + "=");
}

}  // namespace

bool remove_nvidia_prestart_hooks(nlohmann::ordered_json& spec) {
  if (!spec.is_object() || !spec.contains("hooks") || !spec["hooks"].is_object()) return false;
  auto& hooks = spec["hooks"];
  if (!hooks.contains("prestart") || !hooks["prestart"].is_array()) return false;
  auto& prestart = hooks["prestart"];
  nlohmann::ordered_json kept = nlohmann::ordered_json::array();
  for (const auto& h : prestart) {
    if (is_nvidia_prestart_hook(h)) {
      log::info("removing NVIDIA prestart hook {}", h["path"].get<std::string>());
      continue;
    }
    kept.push_back(h);
  }
  if (kept.size() == prestart.size()) return false;
  if (kept.empty()) {
    hooks.erase("prestart");
  } else {
    prestart = std::move(kept);
  }
  return true;
}

std::vector<std::string> cdi_names_for(const request::Request& request,
                                       std::string_view default_kind) {
  if (!request.devices) return {};
  return request::cdi_device_requests(*request.devices, default_kind);
}

Status apply_cdi_names(nlohmann::ordered_json& spec, const std::vector<std::string>& names,
                       const request::Request& request, const config::Config& cfg,
                       cdi::DeviceLookup& lookup) {
  std::size_t jit =
      static_cast<std::size_t>(std::count_if(names.begin(), names.end(), is_jit_name));
  if (jit != 0 && jit != names.size())
    return fail(EINVAL, fmt::format("requesting a CDI device with vendor '{}' is not supported "
                                    "when requesting other CDI devices",
                                    strings::split(request::kJitCdiKind, '/')[0]));
  if (jit != 0) {
    std::vector<std::string> ids;
    for (const auto& n : names) ids.push_back(n.substr(request::kJitCdiKind.size() + 1));
    return apply_jit_cdi(spec, ids, request, cfg, lookup);
  }
  cdi::Registry registry = cdi::Registry::load(cfg.runtime.cdi.spec_dirs);
  for (const auto& [path, messages] : registry.errors())
    for (const auto& m : messages) log::warn("CDI registry error in {}: {}", path, m);
  log::info("injecting CDI devices {}", strings::join(names, ", "));
  return cdi::inject_devices(spec, registry, names, lookup);
}

Result<bool> apply_cdi_mode(nlohmann::ordered_json& spec, const request::Request& request,
                            const config::Config& cfg, std::string_view default_kind,
                            cdi::DeviceLookup& lookup) {
  bool changed = remove_nvidia_prestart_hooks(spec);
  auto names = cdi_names_for(request, default_kind);
  if (names.empty()) return changed;
  NVCT_TRY(apply_cdi_names(spec, names, request, cfg, lookup));
  return true;
}

Result<bool> apply_cdi_mode(nlohmann::ordered_json& spec, Mode mode,
                            const request::Request& request, const config::Config& cfg) {
  if (mode != Mode::kCdi && mode != Mode::kJitCdi)
    return fail(EINVAL, fmt::format("mode {} is not a CDI mode", mode_name(mode)));
  cdi::HostDeviceLookup lookup;
  std::string_view kind =
      mode == Mode::kCdi ? std::string_view(cfg.runtime.cdi.default_kind) : request::kJitCdiKind;
  return apply_cdi_mode(spec, request, cfg, kind, lookup);
}

}  // namespace nvct::runtime
