#include "nvct/runtime/graphics_modifier.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/driver/device_selection.hpp"
#include "nvct/driver/drm.hpp"
#include "nvct/driver/graphics_files.hpp"
#include "nvct/driver/procfs.hpp"
#include "nvct/request/capabilities.hpp"
#include "nvct/runtime/device_rules.hpp"
#include "nvct/runtime/legacy_hook.hpp"

namespace nvct::runtime {
namespace {

using nlohmann::ordered_json;

bool has_destination(const ordered_json& mounts, const std::string& destination) {
  return std::any_of(mounts.begin(), mounts.end(), [&](const ordered_json& m) {
    auto it = m.is_object() ? m.find("destination") : m.end();
    return it != m.end() && it->is_string() && it->get<std::string>() == destination;
  });
}

bool has_hook(const ordered_json& hooks, const cdi::Hook& hook) {
  return std::any_of(hooks.begin(), hooks.end(), [&](const ordered_json& h) {
    if (!h.is_object()) return false;
    auto path = h.find("path");
    auto args = h.find("args");
    return path != h.end() && *path == hook.path && args != h.end() && *args == hook.args;
  });
}

Result<bool> add_mounts(ordered_json& spec, const std::vector<GraphicsMount>& mounts) {
  if (mounts.empty()) return false;
  NVCT_ASSIGN_OR_RETURN(ordered_json * list, array_field(spec, "mounts", "mounts"));
  bool changed = false;
  for (const auto& m : mounts) {
    if (has_destination(*list, m.destination)) {
      log::info("mount {} is already in the spec; not adding {}", m.destination, m.source);
      continue;
    }
    ordered_json entry = ordered_json::object();
    entry["destination"] = m.destination;
    entry["type"] = "bind";
    entry["source"] = m.source;
    entry["options"] = kGraphicsMountOptions;
    list->push_back(std::move(entry));
    log::info("added graphics mount {} -> {} ({})", m.source, m.destination,
              strings::join(kGraphicsMountOptions, ","));
    changed = true;
  }
  return changed;
}

Result<bool> add_hook(ordered_json& spec, const std::vector<std::string>& link_args,
                      const cdi::HookOptions& options) {
  auto hook = cdi::make_hook(options, "create-symlinks", link_args);
  if (!hook) return false;
  NVCT_ASSIGN_OR_RETURN(ordered_json * hooks_obj, object_field(spec, "hooks", "hooks"));
  NVCT_ASSIGN_OR_RETURN(ordered_json * list,
                        array_field(*hooks_obj, "createContainer", "hooks.createContainer"));
  if (has_hook(*list, *hook)) return false;
  ordered_json entry = ordered_json::object();
  entry["path"] = hook->path;
  entry["args"] = hook->args;
  entry["env"] = hook->env;  // non-empty: runc does not pass the container's env (CVE-2025-23266)
  entry["timeout"] = kHookTimeoutSeconds;
  list->push_back(std::move(entry));
  log::info("added createContainer hook {} {}", hook->path, strings::join(hook->args, " "));
  return true;
}

}  // namespace

bool wants_graphics(const request::Request& request) {
  if (!request.is_gpu_container()) return false;
  bool any_device = std::any_of(request.devices->begin(), request.devices->end(),
                                [](const std::string& d) { return !d.empty(); });
  return any_device && (request::requests_capability(request, "graphics") ||
                        request::requests_capability(request, "display"));
}

std::optional<GraphicsEdits> graphics_edits(const driver::DriverRoot& root,
                                            const DeviceFacts& facts,
                                            const std::vector<std::string>& devices,
                                            std::string_view driver_version) {
  auto selection = driver::select_devices(facts.gpus, strings::join(devices, ","));
  if (!selection || !selection->migs.empty()) {
    log::info(
        "graphics devices for [{}] not added: {}", strings::join(devices, ","),
        selection ? "MIG devices have no DRM nodes of their own" : selection.error().message());
    return std::nullopt;
  }
  GraphicsEdits out;
  std::vector<driver::ContainerLink> links;
  for (std::size_t i : selection->gpus) {
    const auto& gpu = facts.gpus[i];
    auto nodes = driver::find_drm_nodes(root, gpu.bus_id);
    if (!nodes) {
      log::warn("DRM nodes of GPU {}: {}", gpu.bus_id, nodes.error().message());
      continue;
    }
    for (const auto& n : *nodes) out.nodes.push_back({n.path, n.major, n.minor});
    auto by_path = driver::drm_by_path_links(gpu.bus_id, *nodes);
    links.insert(links.end(), by_path.begin(), by_path.end());
  }
  stat_host_nodes(root, out.nodes);
  auto files = driver::find_graphics_files(root, driver_version);
  for (const auto& f : files.files)
    out.mounts.push_back({root.host_path(f.source), f.container_path});
  links.insert(links.end(), files.links.begin(), files.links.end());
  out.link_args = driver::create_symlinks_args(links);
  return out;
}

Result<bool> apply_graphics_edits(ordered_json& spec, const GraphicsEdits& edits,
                                  const cdi::HookOptions& hooks) {
  if (!spec.is_object()) return fail(EINVAL, "the spec is not a JSON object");
  bool changed = false;
  if (!edits.nodes.empty()) {
    NVCT_ASSIGN_OR_RETURN(changed, add_nodes_to_spec(spec, edits.nodes));
  }
  NVCT_ASSIGN_OR_RETURN(bool mounted, add_mounts(spec, edits.mounts));
  NVCT_ASSIGN_OR_RETURN(bool hooked, add_hook(spec, edits.link_args, hooks));
  return changed || mounted || hooked;
}

Result<bool> add_graphics(ordered_json& spec, const request::Request& request,
                          const config::Config& cfg, std::string_view path_env) {
  if (!wants_graphics(request)) return false;
  auto root = driver::DriverRoot::open(cfg.cli.root);
  if (!root) {
    log::info("graphics devices not added: driver root: {}", root.error().message());
    return false;
  }
  auto facts = read_device_facts(*root);
  if (!facts) {
    log::info("graphics devices not added: {}", facts.error().message());
    return false;
  }
  std::string version;
  if (auto text = root->read(driver::kProcDriverVersion, 64 * 1024)) {
    if (auto v = driver::parse_proc_driver_version(*text)) version = *v;
  }
  auto edits = graphics_edits(*root, *facts, *request.devices, version);
  if (!edits) return false;
  cdi::HookOptions hooks;
  NVCT_ASSIGN_OR_RETURN(hooks.binary,
                        cdi::resolve_hook_binary(cfg.ctk.path, path_env, cdi::kCtkPathSetting));
  return apply_graphics_edits(spec, *edits, hooks);
}

}  // namespace nvct::runtime
