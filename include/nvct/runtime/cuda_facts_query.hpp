// Where the csv mode's CUDA facts come from in the shim (csv_requirements.hpp): libcuda.so.1 is
// looked up in the driver root's ld.so.cache (the default library directories as fallback), then
// the nvidia-container-runtime-nvml helper (nvml_helper.hpp) is run with `--query cuda` under the
// NVML user (overflowuid:overflowgid), chrooted into the driver root. The shim is static and
// never dlopens libcuda itself.
#pragma once

#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/runtime/csv_requirements.hpp"

namespace nvct::runtime {

// The root-relative path of libcuda.so.1 under the driver root (host path). Error: "libcuda.so.1
// not found under <root>: ...".
Result<std::string> find_libcuda(const std::string& driver_root);

// A query that looks for the helper in `helper_dirs` (nvml_helper_search_dirs) at each call.
CudaFactsQuery helper_cuda_facts_query(std::vector<std::string> helper_dirs);

}  // namespace nvct::runtime
