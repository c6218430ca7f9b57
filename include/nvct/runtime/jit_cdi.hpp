// jit-cdi device edits (spec/runtime.md §7.5 "JIT"): the requested ids are resolved against the
// driver discovered at create time, their edits built in memory by the `cdi generate` builder
// (vendor runtime.nvidia.com, class gpu; no spec file), and applied device by device, then the
// spec-level edits.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nvct/base/error.hpp"
#include "nvct/cdi/generate.hpp"
#include "nvct/cdi/generate_modes.hpp"
#include "nvct/cdi/inject.hpp"
#include "nvct/config/config.hpp"
#include "nvct/driver/driver_info.hpp"
#include "nvct/request/request.hpp"

namespace nvct::runtime {

struct JitRequest {
  std::vector<std::string> device_ids;  // "all", index, UUID, "G:M"; "none" dropped
  std::vector<unsigned> imex_channels;
  // gds, mofed, gdrcopy, nvswitch (from mode=X ids), each applied from its own in-memory spec.
  std::vector<cdi::GenerateMode> gated_modes = {};
  // Whether the auto (nvml) spec is wanted: a GPU id, mode=auto, "none" or an IMEX channel.
  bool gpu_spec = false;
};

// Groups ids by mode: "X" and "mode=auto,id=X" are GPU ids, "mode=imex,id=N" (and the request's
// IMEX channels) are IMEX channels, mode=gds/mofed/gdrcopy/nvswitch are gated modes
// (runtime/gated_modes.hpp); any other mode is refused.
Result<JitRequest> group_jit_ids(const std::vector<std::string>& ids,
                                 const std::vector<std::string>& request_imex_channels);

// The generator options of a JIT spec for the config (hook binary = nvidia-ctk.path,
// modes.jit-cdi.nvcdi-disable-hooks).
// Fails when the hook binary cannot be found (resolve_hook_binary).
Result<cdi::GenerateOptions> jit_generate_options(const JitRequest& request,
                                                  const config::Config& cfg,
                                                  std::string_view path_env);

// The edits of a built JIT spec in application order: each device's, then the spec-level ones.
cdi::ContainerEdits jit_edits(const cdi::Spec& spec);

// Discovers the driver under nvidia-container-cli.root and applies the edits for `ids`, plus
// the gated modes the request's NVIDIA_GDS/MOFED/GDRCOPY/NVSWITCH enable. NVML is asked through
// `nvml` when set (the create's shared query), else through runtime_nvml_query().
Status apply_jit_cdi(nlohmann::ordered_json& spec, const std::vector<std::string>& ids,
                     const request::Request& request, const config::Config& cfg,
                     cdi::DeviceLookup& lookup, const driver::NvmlQuery& nvml = {});

// How a create asks NVML: the NVML helper as the reference's unprivileged user, behind the
// driver-facts cache.
driver::NvmlQuery runtime_nvml_query();

}  // namespace nvct::runtime
