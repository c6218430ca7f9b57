#include "nvct/runtime/spec_modifier.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/driver/nvml_memo.hpp"
#include "nvct/oci/spec_document.hpp"
#include "nvct/runtime/cdi_mode.hpp"
#include "nvct/runtime/cdi_mode_auto.hpp"
#include "nvct/runtime/cdi_requirements.hpp"
#include "nvct/runtime/csv_mode.hpp"
#include "nvct/runtime/device_rules.hpp"
#include "nvct/runtime/gated_modes.hpp"
#include "nvct/runtime/graphics_modifier.hpp"
#include "nvct/runtime/jit_cdi.hpp"
#include "nvct/runtime/legacy_hook.hpp"

namespace nvct::runtime {

Result<bool> apply_modifiers(nlohmann::ordered_json& spec, const request::Request& request,
                             const ModifierOptions& options) {
  if (!request.is_gpu_container()) {
    log::debug("no GPU requested; the spec is left unmodified");
    return false;
  }
  log::info("GPU container requesting devices [{}]; applying {} mode modifiers",
            strings::join(*request.devices, ","), mode_name(options.mode));
  if (options.mode != Mode::kLegacy)  // the CDI modes need the config: modify_bundle
    return fail(EINVAL,
                fmt::format("mode {} is applied by modify_bundle", mode_name(options.mode)));
  if (!options.hook_path) return tl::unexpected(options.hook_path.error());
  return add_legacy_prestart_hook(spec, *options.hook_path, options.config_path,
                                  options.hook_env);
}

Result<BundleOutcome> modify_bundle(const std::string& bundle, const config::Config& cfg,
                                    const ModifierOptions& options) {
  NVCT_ASSIGN_OR_RETURN(auto doc, oci::SpecDocument::load(bundle));
  Mode mode = options.mode;
  if (mode == Mode::kAuto) {
    NVCT_ASSIGN_OR_RETURN(mode, resolve_auto_mode_for_spec(doc.json(), cfg));
  }
  // CDI annotations are requests only in cdi mode (request.md §1).
  NVCT_ASSIGN_OR_RETURN(
      auto req, with_context(request::from_spec(doc.json(), cfg, {.cdi_mode = mode == Mode::kCdi}),
                             "read the GPU request from " + doc.path()));
  bool changed = false;
  if (mode == Mode::kLegacy) {
    NVCT_ASSIGN_OR_RETURN(
        changed, with_context(apply_modifiers(doc.json(), req, options), "modify " + doc.path()));
  } else if (mode == Mode::kCsv) {
    cdi::HostDeviceLookup lookup;
    const char* path_env = std::getenv("PATH");
    NVCT_ASSIGN_OR_RETURN(
        changed, with_context(apply_csv_mode(doc.json(), req, cfg, options.cuda_facts, lookup,
                                             path_env ? path_env : ""),
                              "modify " + doc.path()));
  } else {
    // One NVML answer for the whole create: the requirement check and the jit-cdi spec share it.
    driver::NvmlQuery nvml = driver::memoized_nvml_query(runtime_nvml_query());
    // Requirements hold in every mode (issue 17): checked before anything is injected.
    if (mode == Mode::kCdi || mode == Mode::kJitCdi)
      NVCT_TRY(check_cdi_requirements(doc.rootfs_path().value_or(""), req, cfg, nvml));
    NVCT_ASSIGN_OR_RETURN(changed, with_context(apply_cdi_mode(doc.json(), mode, req, cfg, nvml),
                                                "modify " + doc.path()));
  }
  // Legacy mode: device access also goes into the spec so it survives `systemctl daemon-reload`.
  if (mode == Mode::kLegacy && req.is_gpu_container()) {
    NVCT_ASSIGN_OR_RETURN(bool rules, with_context(add_device_rules(doc.json(), req, cfg),
                                                   "add device rules to " + doc.path()));
    changed = changed || rules;
    // runtime.md §7.4: NVIDIA_GDS/MOFED/GDRCOPY/NVSWITCH=enabled add those devices in legacy too.
    cdi::HostDeviceLookup lookup;
    NVCT_ASSIGN_OR_RETURN(bool gated, apply_legacy_gated_modes(doc.json(), req, cfg, lookup));
    changed = changed || gated;
    // runtime.md §7.3, the graphics modifier: DRM nodes, by-path links, graphics configs.
    const char* path_env = std::getenv("PATH");
    NVCT_ASSIGN_OR_RETURN(bool graphics,
                          with_context(add_graphics(doc.json(), req, cfg, path_env ? path_env : ""),
                                       "add graphics devices to " + doc.path()));
    changed = changed || graphics;
  }
  if (!changed) return BundleOutcome::kUnchanged;
  NVCT_TRY(with_context(doc.save(), "write " + doc.path()));
  log::info("updated {}", doc.path());
  return BundleOutcome::kRewritten;
}

}  // namespace nvct::runtime
