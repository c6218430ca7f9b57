// The CUDA driver facts the runtime's csv mode checks NVIDIA_REQUIRE_* against (spec/runtime.md
// §7.6): the version from libcuda's cuDriverGetVersion and, when the library can give it, the
// compute capability of device 0, and their JSON wire form. Like NVML (nvml_process.hpp), libcuda
// comes from the driver root and never runs in the runtime's own process: the
// nvidia-container-runtime-nvml helper runs query_cuda_here (cuda_library.hpp, the only code that
// dlopens; kept apart so the static shim never links dlopen) under `--query cuda`
// (nvml_helper.hpp) and writes encode_cuda_result on stdout.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "nvct/base/error.hpp"

namespace nvct::driver {

inline constexpr const char* kCudaLibrary = "libcuda.so.1";

struct CudaDriverFacts {
  int driver_version = 0;  // cuDriverGetVersion: 1000 * major + 10 * minor (12040 = 12.4)
  // Compute capability of device 0; nullopt when cuInit/cuDeviceGet/cuDeviceGetAttribute are
  // missing from the library or fail (Tegra roots without a usable GPU node, the mock driver).
  std::optional<std::string> device0_arch;
  std::string arch_error;  // why device0_arch is nullopt ("" when it is set)
  friend bool operator==(const CudaDriverFacts&, const CudaDriverFacts&) = default;
};

// 12040 -> "12.4", 11020 -> "11.2", 9000 -> "9.0".
std::string cuda_version_string(int driver_version);

// JSON wire form between the helper and the runtime.
std::string encode_cuda_result(const Result<CudaDriverFacts>& result);
Result<CudaDriverFacts> decode_cuda_result(std::string_view text);

}  // namespace nvct::driver
