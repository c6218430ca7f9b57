// libcuda itself, for the nvidia-container-runtime-nvml helper's `--query cuda` (the facts and
// their wire form are in cuda_driver_query.hpp). Only the helper links this: the static runtime
// shim must not contain dlopen.
#pragma once

#include <string>

#include "nvct/base/error.hpp"
#include "nvct/driver/cuda_driver_query.hpp"
#include "nvct/driver/nvml_process.hpp"

namespace nvct::driver {

// dlopen(path) in this process and ask it: cuDriverGetVersion, then cuInit(0), cuDeviceGet(0) and
// cuDeviceGetAttribute(compute capability) when the library has them. Errors: "load library
// failed: <dlerror>", "cuDriverGetVersion not found in <path>", "cuDriverGetVersion failed: CUDA
// error <n>".
Result<CudaDriverFacts> query_cuda_library(const std::string& path);

// The helper's steps, irreversibly: the isolation of query_nvml_here (chroot into options.root,
// or the host path without CAP_SYS_CHROOT; drop to options.user; clear capabilities;
// no_new_privs), then query_cuda_library(options.library). timeout_ms is not used.
Result<CudaDriverFacts> query_cuda_here(const NvmlProcessOptions& options);

}  // namespace nvct::driver
