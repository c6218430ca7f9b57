#include "nvct/runtime/gated_modes.hpp"

#include <fmt/format.h>

#include "nvct/base/log.hpp"
#include "nvct/cdi/feature_flags.hpp"
#include "nvct/cdi/generate_edits.hpp"

namespace nvct::runtime {
namespace {

// "none" (and an empty list) requests no device, so nothing is gated in.
bool requests_devices(const request::Request& request) {
  if (!request.devices) return false;
  for (const auto& d : *request.devices)
    if (!d.empty() && d != "none" && d != "void") return true;
  return false;
}

}  // namespace

std::vector<std::string> gated_mode_ids(const request::Request& request) {
  std::vector<std::string> out;
  if (!requests_devices(request)) return out;
  for (const auto& g : kGatedModes)
    if (request.getenv(g.env) == "enabled")
      out.push_back("mode=" + std::string(cdi::generate_mode_name(g.mode)));
  return out;
}

Result<cdi::Spec> gated_mode_spec(cdi::GenerateMode mode, const config::Config& cfg,
                                  cdi::DeviceLookup& lookup) {
  cdi::ModeOptions o;
  o.vendor = std::string(kGatedModeVendor);
  o.class_name = std::string(cdi::generate_mode_name(mode));
  o.driver_root = cfg.cli.root.empty() ? "/" : cfg.cli.root;
  o.dev_root = o.driver_root;
  if (cfg.runtime.jit_cdi.nvcdi_feature_flags)
    o.features = cdi::parse_feature_flags(*cfg.runtime.jit_cdi.nvcdi_feature_flags).flags;
  NVCT_ASSIGN_OR_RETURN(auto spec, cdi::build_device_mode_spec(mode, o, lookup));
  if (spec.devices.empty())
    return fail(ENODEV,
                fmt::format("no {} devices found under {} for {}/{}", cdi::generate_mode_name(mode),
                            o.dev_root, o.vendor, o.class_name));
  return spec;
}

Result<bool> apply_gated_modes(nlohmann::ordered_json& spec,
                               const std::vector<cdi::GenerateMode>& modes,
                               const config::Config& cfg, cdi::DeviceLookup& lookup) {
  bool changed = false;
  for (auto mode : modes) {
    NVCT_ASSIGN_OR_RETURN(auto gated, with_context(gated_mode_spec(mode, cfg, lookup),
                                                   "failed to construct the gated CDI spec"));
    for (const auto& d : gated.devices) {
      log::info("applying CDI edits of {}={}", gated.kind, d.name);
      NVCT_TRY(cdi::apply_edits(spec, d.container_edits, lookup));
    }
    if (!gated.container_edits.empty())
      NVCT_TRY(cdi::apply_edits(spec, gated.container_edits, lookup));
    changed = true;
  }
  return changed;
}

Result<bool> apply_legacy_gated_modes(nlohmann::ordered_json& spec, const request::Request& request,
                                      const config::Config& cfg, cdi::DeviceLookup& lookup) {
  std::vector<cdi::GenerateMode> modes;
  for (const auto& g : kGatedModes)
    if (requests_devices(request) && request.getenv(g.env) == "enabled") modes.push_back(g.mode);
  return with_context(apply_gated_modes(spec, modes, cfg, lookup),
                      "failed to apply the feature-gated devices");
}

}  // namespace nvct::runtime
