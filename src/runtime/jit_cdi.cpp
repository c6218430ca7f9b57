#include "nvct/runtime/jit_cdi.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/cdi/generate_discovery.hpp"
#include "nvct/config/load.hpp"
#include "nvct/driver/facts_cache.hpp"
#include "nvct/driver/nvml_process.hpp"
#include "nvct/runtime/gated_modes.hpp"

namespace nvct::runtime {
namespace {

Result<unsigned> parse_channel(std::string_view text) {
  unsigned value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    return fail(EINVAL, fmt::format("invalid IMEX channel: {}", text));
  return value;
}

void add_unique(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

}  // namespace

Result<JitRequest> group_jit_ids(const std::vector<std::string>& ids,
                                 const std::vector<std::string>& request_imex_channels) {
  JitRequest out;
  std::vector<std::string> channels;
  for (const auto& id : ids) {
    if (!strings::starts_with(id, "mode=")) {
      out.gpu_spec = true;
      if (id != "none") add_unique(out.device_ids, id);
      continue;
    }
    std::string mode, value;
    for (const auto& part : strings::split(id, ',')) {
      if (strings::starts_with(part, "mode=")) mode = part.substr(5);
      if (strings::starts_with(part, "id=")) value = part.substr(3);
    }
    auto gated = cdi::parse_generate_mode(mode);
    // wsl is what auto detects on a WSL2 root (cdi::build_spec); asked for by name it is the GPU
    // spec too, so that it gets the configured hooks like any auto request.
    if (mode == "auto" || mode == "nvml" || mode == "wsl") {
      out.gpu_spec = true;
      if (!value.empty() && value != "none") add_unique(out.device_ids, value);
    } else if (mode == "imex") {
      out.gpu_spec = true;
      if (!value.empty()) add_unique(channels, value);
    } else if (gated && !cdi::mode_needs_driver(*gated) && *gated != cdi::GenerateMode::kImex &&
               *gated != cdi::GenerateMode::kCsv) {  // csv is the runtime's csv mode (Tegra)
      if (std::find(out.gated_modes.begin(), out.gated_modes.end(), *gated) ==
          out.gated_modes.end())
        out.gated_modes.push_back(*gated);
    } else {
      return fail(ENOTSUP, fmt::format("CDI device mode \"{}\" is not supported by nvct's jit-cdi "
                                       "mode",
                                       mode));
    }
  }
  for (const auto& ch : request_imex_channels) add_unique(channels, ch);
  if (!channels.empty()) out.gpu_spec = true;
  for (const auto& ch : channels) {
    NVCT_ASSIGN_OR_RETURN(unsigned n, parse_channel(ch));
    out.imex_channels.push_back(n);
  }
  return out;
}

Result<cdi::GenerateOptions> jit_generate_options(const JitRequest& request,
                                                  const config::Config& cfg,
                                                  std::string_view path_env) {
  cdi::GenerateOptions o;
  o.vendor = "runtime.nvidia.com";
  o.class_name = "gpu";
  o.device_ids = request.device_ids;
  o.no_all_device = true;
  o.imex_channels = request.imex_channels;
  NVCT_ASSIGN_OR_RETURN(o.hooks.binary,
                        cdi::resolve_hook_binary(cfg.ctk.path, path_env, cdi::kCtkPathSetting));
  if (cfg.runtime.jit_cdi.nvcdi_feature_flags) {
    auto flags = cdi::parse_feature_flags(*cfg.runtime.jit_cdi.nvcdi_feature_flags);
    for (const auto& name : flags.unknown) log::warn("Ignoring unknown feature flag {}", name);
    o.features = flags.flags;
  }
  if (cfg.runtime.jit_cdi.nvcdi_disable_hooks)
    o.hooks.disabled.insert(cfg.runtime.jit_cdi.nvcdi_disable_hooks->begin(),
                            cfg.runtime.jit_cdi.nvcdi_disable_hooks->end());
  return o;
}

driver::NvmlQuery runtime_nvml_query() {
  std::optional<driver::NvmlUser> user;
  if (auto u = driver::default_nvml_user()) user = *u;
  // No NVML init per create while the driver stays the same.
  return driver::cached_nvml_query(driver::isolated_nvml_query(user));
}

cdi::ContainerEdits jit_edits(const cdi::Spec& spec) {
  cdi::ContainerEdits out;
  for (const auto& d : spec.devices) {
    for (const auto& n : d.container_edits.device_nodes)
      if (std::find(out.device_nodes.begin(), out.device_nodes.end(), n) == out.device_nodes.end())
        out.device_nodes.push_back(n);
    // Per-device hooks: the DRM by-path create-symlinks of each GPU (cdi.md §6.3).
    for (const auto& h : d.container_edits.hooks)
      if (std::find(out.hooks.begin(), out.hooks.end(), h) == out.hooks.end())
        out.hooks.push_back(h);
  }
  out.append(spec.container_edits);
  return out;
}

Status apply_jit_cdi(nlohmann::ordered_json& spec, const std::vector<std::string>& ids,
                     const request::Request& request, const config::Config& cfg,
                     cdi::DeviceLookup& lookup, const driver::NvmlQuery& nvml) {
  std::vector<std::string> all_ids = ids;
  for (const auto& gated : gated_mode_ids(request)) all_ids.push_back(gated);
  NVCT_ASSIGN_OR_RETURN(auto jit, group_jit_ids(all_ids, request.imex_channels));
  if (!jit.gpu_spec) return apply_gated_modes(spec, jit.gated_modes, cfg, lookup).map([](bool) {});
  const char* path = std::getenv("PATH");
  NVCT_ASSIGN_OR_RETURN(auto options, jit_generate_options(jit, cfg, path ? path : ""));
  cdi::CdiDiscovery discovery;
  discovery.driver_root = cfg.cli.root;
  discovery.libraries.explicit_only = options.features.explicit_driver_libraries;
  discovery.nvml = nvml ? nvml : runtime_nvml_query();
  auto discovered = cdi::discover_driver_for_cdi(discovery);
  if (!discovered) {
    // Where the root came from and what to do: the driver is missing, or lives elsewhere.
    return fail(discovered.error().code(),
                fmt::format("{}; is the NVIDIA driver installed (nvidia-smi)? The driver root is "
                            "nvidia-container-cli.root in {} ({}); nvidia-ctk doctor checks the host",
                            discovered.error().message(), config::default_path(),
                            cfg.cli.root.empty() ? "unset: /" : cfg.cli.root));
  }
  auto& info = *discovered;
  std::string what = "failed to construct the JIT CDI spec";
  if (!request.devices_source.empty())
    what += fmt::format(" (devices from {})", request.devices_source);
  NVCT_ASSIGN_OR_RETURN(auto jit_spec, with_context(cdi::build_spec(info, options, lookup), what));
  log::info("applying JIT CDI edits for devices [{}] from driver {}",
            strings::join(jit.device_ids, ","), info.nvrm_version);
  NVCT_TRY(with_context(cdi::apply_edits(spec, jit_edits(jit_spec), lookup),
                        "failed to apply the JIT CDI edits"));
  return apply_gated_modes(spec, jit.gated_modes, cfg, lookup).map([](bool) {});
}

}  // namespace nvct::runtime
