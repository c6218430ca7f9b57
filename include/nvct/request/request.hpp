// The container's GPU request, read from its OCI spec (spec/request.md). Owned by the request
// module; the names in this contract are used by the runtime shim and the hook:
//   Request::is_gpu_container(), request::from_spec(spec, config).
//
// The NVIDIA_* variables of process.env are data, not environment: they decide which GPUs a
// container gets, so they are parsed strictly from the spec and never exported to a privileged
// process (security.md §5.2).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/config/config.hpp"

namespace nvct::request {

// process.env as a map; a name that occurs several times keeps its LAST value (Docker appends
// its own value after the image's and the user's).
using Environment = std::map<std::string, std::string, std::less<>>;

struct Request {
  // nullopt: not a GPU container (void, unset, or ignored by the privilege gate).
  // {""}: a GPU container with no GPUs ("none": driver files, no GPU device nodes).
  // Otherwise the requested ids in order ("all", "0", "GPU-...", "MIG-...", "0:1", CDI names).
  // A duplicated id keeps only the slot of its last occurrence; earlier slots are "" (the
  // reference's quirk, kept so that hooks see the same --device list: "0,1,0" -> {"", "1", "0"}).
  std::optional<std::vector<std::string>> devices;
  // Where `devices` came from, for error messages: "NVIDIA_VISIBLE_DEVICES", the swarm
  // variable(s), the volume mounts or the CDI annotations.
  std::string devices_source;

  // IMEX channel requests (NVIDIA_IMEX_CHANNELS or imex/<ch> volume mounts), in order, without
  // duplicates or empty items; "all" is no request. Not validated here: see imex_channel_numbers.
  std::vector<std::string> imex_channels;

  // The bounding capability set contains CAP_SYS_ADMIN.
  bool privileged = false;

  // process.env of the spec (last occurrence wins).
  Environment env;

  bool is_gpu_container() const { return devices.has_value(); }

  // The value of an env var of the container, nullopt when unset.
  std::optional<std::string> getenv(std::string_view name) const;

  // CUDA_VERSION non-empty and NVIDIA_REQUIRE_CUDA empty or unset: an image from before
  // NVIDIA_VISIBLE_DEVICES existed, which therefore asks for every GPU and all capabilities.
  bool is_legacy_image() const;
};

struct FromSpecOptions {
  // CDI annotations (modes.cdi.annotation-prefixes) are honoured only in the runtime's `cdi`
  // mode; every other caller (hook, legacy, csv, jit-cdi) ignores them.
  bool cdi_mode = false;
};

// Builds the request from the spec's process.env, mounts, annotations and bounding capabilities
// and the host config. A malformed spec field is an error naming it.
Result<Request> from_spec(const nlohmann::ordered_json& spec, const config::Config& cfg);
Result<Request> from_spec(const nlohmann::ordered_json& spec, const config::Config& cfg,
                          const FromSpecOptions& options);

}  // namespace nvct::request
