#include "nvct/runtime/cdi_mode.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

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

namespace {

// Appended to "unresolvable CDI devices ...": where the names came from and what exists.
std::string unresolved_hint(const cdi::Registry& registry, const request::Request& request,
                            const std::vector<std::string>& spec_dirs) {
  constexpr std::size_t kMaxListed = 32;
  std::string out;
  if (!request.devices_source.empty()) out += fmt::format(" (from {})", request.devices_source);
  auto known = registry.device_names();
  std::string dirs = strings::join(spec_dirs, ", ");
  if (known.empty()) {
    return out + fmt::format(
                     "; no CDI spec in {} defines a device: generate one with "
                     "`nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml`",
                     dirs);
  }
  std::size_t more = known.size() > kMaxListed ? known.size() - kMaxListed : 0;
  known.resize(known.size() - more);
  out += fmt::format("; known CDI devices: {}", strings::join(known, ", "));
  if (more) out += fmt::format(" and {} more", more);
  return out + fmt::format(" (specs in {}; `nvidia-ctk cdi list` shows them)", dirs);
}

bool is_bind(const cdi::Mount& m) {
  return std::find(m.options.begin(), m.options.end(), "bind") != m.options.end() ||
         std::find(m.options.begin(), m.options.end(), "rbind") != m.options.end() ||
         m.type == "bind";
}

// A spec written before a driver upgrade still names the old driver's files; runc would fail on
// the first of them with a bare "no such file or directory" from deep in its mount code. Said
// here, the message names the spec and how to regenerate it.
Status check_not_stale(const cdi::Registry& registry, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    const cdi::LoadedSpec* ls = registry.spec_of(name);
    const cdi::Device* device = registry.find_device(name);
    if (!ls || !device) continue;
    for (const auto* edits : {&ls->spec.container_edits, &device->container_edits}) {
      for (const auto& m : edits->mounts) {
        if (!is_bind(m) || m.host_path.empty() || m.host_path.front() != '/') continue;
        struct stat st {};
        if (::stat(m.host_path.c_str(), &st) == 0 || errno != ENOENT) continue;
        return fail(ENOENT,
                    fmt::format("CDI spec {} is stale: {} (mounted at {} for {}) does not exist; "
                                "the driver changed after the spec was generated: regenerate it "
                                "with `nvidia-ctk cdi generate --output={}`",
                                ls->path, m.host_path, m.container_path, name, ls->path));
      }
    }
  }
  return ok();
}

}  // namespace

Status apply_cdi_names(nlohmann::ordered_json& spec, const std::vector<std::string>& names,
                       const request::Request& request, const config::Config& cfg,
                       cdi::DeviceLookup& lookup, const driver::NvmlQuery& nvml) {
  std::size_t jit =
      static_cast<std::size_t>(std::count_if(names.begin(), names.end(), is_jit_name));
  if (jit != 0 && jit != names.size())
    return fail(EINVAL, fmt::format("requesting a CDI device with vendor '{}' is not supported "
                                    "when requesting other CDI devices",
                                    strings::split(request::kJitCdiKind, '/')[0]));
  if (jit != 0) {
    std::vector<std::string> ids;
    for (const auto& n : names) ids.push_back(n.substr(request::kJitCdiKind.size() + 1));
    return apply_jit_cdi(spec, ids, request, cfg, lookup, nvml);
  }
  cdi::Registry registry = cdi::Registry::load(cfg.runtime.cdi.spec_dirs);
  for (const auto& [path, messages] : registry.errors())
    for (const auto& m : messages) log::warn("CDI registry error in {}: {}", path, m);
  log::info("injecting CDI devices {}", strings::join(names, ", "));
  NVCT_TRY(check_not_stale(registry, names));
  auto injected = cdi::inject_devices(spec, registry, names, lookup);
  if (!injected && std::any_of(names.begin(), names.end(), [&](const std::string& n) {
        return registry.find_device(n) == nullptr;
      })) {
    return tl::unexpected(Error(injected.error().code(),
                                injected.error().message() +
                                    unresolved_hint(registry, request, cfg.runtime.cdi.spec_dirs)));
  }
  return injected;
}

Result<bool> apply_cdi_mode(nlohmann::ordered_json& spec, const request::Request& request,
                            const config::Config& cfg, std::string_view default_kind,
                            cdi::DeviceLookup& lookup, const driver::NvmlQuery& nvml) {
  bool changed = remove_nvidia_prestart_hooks(spec);
  auto names = cdi_names_for(request, default_kind);
  if (names.empty()) return changed;
  NVCT_TRY(apply_cdi_names(spec, names, request, cfg, lookup, nvml));
  return true;
}

Result<bool> apply_cdi_mode(nlohmann::ordered_json& spec, Mode mode,
                            const request::Request& request, const config::Config& cfg,
                            const driver::NvmlQuery& nvml) {
  if (mode != Mode::kCdi && mode != Mode::kJitCdi)
    return fail(EINVAL, fmt::format("mode {} is not a CDI mode", mode_name(mode)));
  cdi::HostDeviceLookup lookup;
  std::string_view kind =
      mode == Mode::kCdi ? std::string_view(cfg.runtime.cdi.default_kind) : request::kJitCdiKind;
  return apply_cdi_mode(spec, request, cfg, kind, lookup, nvml);
}

}  // namespace nvct::runtime
