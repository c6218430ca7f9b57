// The container's GPU request, read from its OCI spec (spec/request.md). Owned by the request
// module; the names in this contract are used by the runtime shim and the hook:
//   Request::is_gpu_container(), request::from_spec(spec, config).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nvct/base/error.hpp"
#include "nvct/config/config.hpp"

namespace nvct::request {

struct Request {
  // nullopt: not a GPU container (void, unset, or ignored by the privilege gate).
  // {""}: a GPU container with no GPUs ("none": driver files, no GPU device nodes).
  // Otherwise the requested ids in order ("all", "0", "GPU-...", "MIG-...", "0:1", CDI names).
  std::optional<std::vector<std::string>> devices;

  bool is_gpu_container() const { return devices.has_value(); }
};

// Builds the request from the spec's process.env, mounts, annotations and bounding capabilities
// and the host config. A malformed spec field is an error naming it.
Result<Request> from_spec(const nlohmann::ordered_json& spec, const config::Config& cfg);

}  // namespace nvct::request
