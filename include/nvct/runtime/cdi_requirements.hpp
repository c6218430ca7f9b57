// NVIDIA_REQUIRE_*, the legacy CUDA_VERSION rule and NVIDIA_DISABLE_REQUIRE in the cdi and jit-cdi
// modes (issue 17): the same requirements as legacy mode (request::requirements), checked against
// the same facts (the driver root's NVML through initialize_driver: driver and CUDA version, the
// compute capability and brand of each requested GPU) with the same evaluator and message, so an
// image gets one answer in every mode. The reference skips requirements in these modes (a
// cuda>=99.0 image starts and fails later inside CUDA); nvct refuses it at create, with the
// reference's line and nvct's one-line reason (compat::check_requirements_explained).
// Set NVIDIA_DISABLE_REQUIRE=true (or config disable-require) to start such an image anyway. A
// driver root that cannot be read (neither NVML nor /proc/driver/nvidia) is a warning and the
// check is skipped: a CDI spec needs no driver access at create.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/config/config.hpp"
#include "nvct/driver/driver_info.hpp"
#include "nvct/driver/nvml.hpp"
#include "nvct/request/request.hpp"
#include "nvct/request/requirement_expr.hpp"

namespace nvct::runtime {

// The GPUs a cdi/jit-cdi request names, as facts: each device id (after "<kind>=" for CDI names)
// that is "all", an index, a GPU UUID, "G:M" or a MIG UUID selects its GPU; other names (other
// vendors, gated modes) select nothing. No GPU selected: arch and brand are satisfied.
request::RequirementFacts cdi_requirement_facts(const driver::NvmlFacts& nvml, bool procfs_fallback,
                                                const std::vector<std::string>& device_names);

// Nothing to do (and no driver query) when requirements are disabled or there are none. `rootfs`
// (the spec's root.path as a host path, "" if unknown) is only read for the failure's reason.
// NVML is asked through `nvml` when set (the create's shared query), else through
// runtime_nvml_query().
Status check_cdi_requirements(const std::string& rootfs, const request::Request& request,
                              const config::Config& cfg, const driver::NvmlQuery& nvml = {});

}  // namespace nvct::runtime
