// The real NvmlApi: libnvidia-ml.so.1 opened with dlopen and its 18 symbols (driver.md §11.3).
// Only ever used inside the NVML child process (nvml_process.hpp).
#pragma once

#include <memory>
#include <string>

#include "nvct/base/error.hpp"
#include "nvct/driver/nvml.hpp"

namespace nvct::driver {

inline constexpr const char* kNvmlLibrary = "libnvidia-ml.so.1";

// dlopen(path, RTLD_NOW). Errors read "load library failed: <dlerror>". A symbol the library
// lacks makes its method return NVML_ERROR_FUNCTION_NOT_FOUND, as NVML itself does.
Result<std::unique_ptr<NvmlApi>> open_nvml_library(const std::string& path);

}  // namespace nvct::driver
