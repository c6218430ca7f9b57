#pragma once
// One NVML answer per driver root and library for the length of one operation. A runtime
// `create` in cdi or jit-cdi mode asks NVML twice: once to check NVIDIA_REQUIRE_* (runtime's
// cdi_requirements) and once to build the jit-cdi spec. On a host whose facts are not in the
// driver-facts cache (MIG-capable GPUs, or the cache off) each ask used to start the NVML helper
// and initialise NVML; behind this memo the second ask reuses the first answer.
//
// The memo lives in the returned function object (shared by its copies), never in a global, so a
// later operation in the same process (a test, a long-lived caller) starts empty. A failed query
// is not remembered: the next ask queries again.

#include "nvct/driver/driver_info.hpp"

namespace nvct::driver {

NvmlQuery memoized_nvml_query(NvmlQuery inner);

}  // namespace nvct::driver
