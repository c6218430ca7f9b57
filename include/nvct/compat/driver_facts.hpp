// The driver facts the explainer judges against (spec/compat.md §2): from the driver root (mock
// or real, through driver::initialize_driver: NVML in its child process, /proc/driver/nvidia as
// fallback) or from flags. Explicit flags win over the driver root and mix with it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/compat/gpu_table.hpp"
#include "nvct/driver/nvml.hpp"

namespace nvct::compat {

struct GpuFacts {
  std::optional<unsigned> index;  // nullopt for --gpu-arch GPUs
  std::string uuid, model, brand;
  std::string arch;  // compute capability "8.0"
  Support forward_compat = Support::unknown;
  // "GPU 0" or "sm_80" (flag GPUs): how messages name it.
  std::string label() const;
};

struct DriverFacts {
  std::string source = "flags";  // driver-root | flags | device
  std::string root;              // the driver root when read from one
  std::optional<std::string> version;       // RM version "550.54.14"
  std::optional<std::string> cuda_version;  // "12.4"
  bool cuda_version_derived = false;        // from the branch table (§5.2), not NVML
  std::vector<GpuFacts> gpus;
};

// Facts from NVML (or its procfs fallback) as initialize_driver returns them.
DriverFacts facts_from_nvml(const driver::NvmlFacts& nvml, bool procfs_fallback,
                            const std::string& root);

// Reads the driver root (NVML in a child process as everywhere else in nvct). Errors name the root.
Result<DriverFacts> facts_from_driver_root(const std::string& root);

// "sm_80", "8.0", "compute_80", "sm_90a" -> "8.0" / "9.0"; error naming the value and the forms.
Result<std::string> parse_gpu_arch(const std::string& text);

// Sets the CUDA version from the driver version when only that is known (§5.2, flagged derived).
void derive_cuda_version(DriverFacts& facts);

}  // namespace nvct::compat
