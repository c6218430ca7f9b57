// Compute capability families and forward-compatibility support (spec/compat.md §5.3). Forward
// compatibility (a newer libcuda from the image's cuda-compat package over an older driver) runs
// only on data-center GPUs, select RTX server SKUs and Jetson; elsewhere the CUDA runtime fails
// with cudaErrorCompatNotSupportedOnDevice (804). Decided from the NVML brand ("Tesla" yes,
// "GeForce"/"Titan" no) and, since current data-center parts report brand "Nvidia", from a model
// list; anything else is unknown, never yes.
#pragma once

#include <string>
#include <string_view>

namespace nvct::compat {

enum class Support { yes, no, unknown };
std::string_view to_string(Support s);  // "yes", "no", "unknown"

Support forward_compat_support(std::string_view brand, std::string_view model);

// "Hopper", "Ampere", ... for a compute capability "M.m" (or "sm_XY"); "" when unknown.
std::string_view family_of(std::string_view arch);

}  // namespace nvct::compat
