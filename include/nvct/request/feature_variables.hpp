// The request variables of spec/request.md §8 that select extra device sets or Jetson mounts.
#pragma once

#include <string>
#include <vector>

#include "nvct/request/request.hpp"

namespace nvct::request {

// NVIDIA_GDS, NVIDIA_MOFED, NVIDIA_GDRCOPY, NVIDIA_NVSWITCH set to exactly "enabled" -> the modes
// "gds", "mofed", "gdrcopy", "nvswitch", in that order (runtime.md §7.4).
std::vector<std::string> gated_device_modes(const Request& req);

// NVIDIA_REQUIRE_JETPACK=csv-mounts=all: csv mode mounts every CSV file, not only the base ones.
bool csv_mounts_all(const Request& req);

}  // namespace nvct::request
