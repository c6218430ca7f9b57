#include "nvct/request/request.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/request/spec_fields.hpp"
#include "nvct/request/visible_devices.hpp"
#include "nvct/request/volume_mounts.hpp"

namespace nvct::request {

std::optional<std::string> Request::getenv(std::string_view name) const {
  auto it = env.find(name);
  if (it == env.end()) return std::nullopt;
  return it->second;
}

bool Request::is_legacy_image() const {
  auto cuda_version = getenv("CUDA_VERSION");
  auto require_cuda = getenv("NVIDIA_REQUIRE_CUDA");
  return cuda_version && !cuda_version->empty() && (!require_cuda || require_cuda->empty());
}

Result<Request> from_spec(const nlohmann::ordered_json& spec, const config::Config& cfg) {
  return from_spec(spec, cfg, FromSpecOptions{});
}

Result<Request> from_spec(const nlohmann::ordered_json& spec, const config::Config& cfg,
                          const FromSpecOptions& options) {
  NVCT_ASSIGN_OR_RETURN(SpecFields fields, with_context(read_spec_fields(spec), "read OCI spec"));
  Request req;
  req.env = std::move(fields.env);
  req.privileged = fields.privileged;
  const bool legacy = req.is_legacy_image();
  // An unprivileged pod can set any env var, so an operator can restrict GPU requests to the
  // volume mounts that only the device plugin creates (clients.md §6).
  const bool env_allowed = req.privileged || cfg.accept_envvar_unprivileged;

  MountRequests mount_requests;
  if (cfg.accept_volume_mounts) mount_requests = requests_from_mounts(fields.mounts);

  if (options.cdi_mode) {
    auto annotated =
        requests_from_annotations(fields.annotations, cfg.runtime.cdi.annotation_prefixes);
    if (!annotated.empty()) {
      req.devices = std::move(annotated);
      req.devices_source = "the container's CDI annotations";
    }
  }
  if (!req.devices && !mount_requests.devices.empty()) {
    req.devices = mount_requests.devices;
    req.devices_source = fmt::format("the volume mounts under {}", kDeviceListMountRoot);
  }
  if (!req.devices) {
    auto from_env = visible_devices_from_env(req.env, cfg, legacy);
    if (env_allowed) {
      req.devices = std::move(from_env);
      if (req.devices) req.devices_source = device_list_source(req.env, cfg);
    } else if (from_env) {
      log::warn(
          "Ignoring devices requested through the environment of an unprivileged "
          "container ({}): accept-nvidia-visible-devices-envvar-when-unprivileged is false",
          strings::join(*from_env, ","));
    }
  }

  if (!cfg.features.ignore_imex_channel_requests) {
    if (!mount_requests.imex_channels.empty()) {
      for (auto& ch : mount_requests.imex_channels) {
        if (std::find(req.imex_channels.begin(), req.imex_channels.end(), ch) ==
            req.imex_channels.end()) {
          req.imex_channels.push_back(ch);
        }
      }
    } else if (env_allowed) {
      req.imex_channels = imex_channels_from_env(req.env, legacy);
    } else if (!imex_channels_from_env(req.env, legacy).empty()) {
      log::warn(
          "Ignoring {} of an unprivileged container: "
          "accept-nvidia-visible-devices-envvar-when-unprivileged is false",
          kImexChannelsEnv);
    }
  }
  return req;
}

}  // namespace nvct::request
