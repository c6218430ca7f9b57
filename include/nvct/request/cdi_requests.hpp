// The CDI device names a request stands for in the runtime's cdi and jit-cdi modes
// (spec/request.md §4, runtime.md §7.5).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"

namespace nvct::request {

inline constexpr std::string_view kJitCdiKind = "runtime.nvidia.com/gpu";

// "" (from none) -> "none"; a name that is not a qualified CDI name gets `default_kind`
// ("0" -> "nvidia.com/gpu=0", "example.com/device" -> "nvidia.com/gpu=example.com/device");
// the result is deduplicated, keeping the first occurrence.
std::vector<std::string> cdi_device_requests(const std::vector<std::string>& devices,
                                             std::string_view default_kind);

// The Kubernetes annotation key for a device: "cdi.k8s.io/<plugin>_<deviceID>" with '/' in the
// device id replaced by '_'; the part after the prefix must be at most 63 characters of
// [A-Za-z0-9_.-] starting and ending with a letter or digit.
Result<std::string> cdi_annotation_key(std::string_view plugin, std::string_view device_id);

}  // namespace nvct::request
