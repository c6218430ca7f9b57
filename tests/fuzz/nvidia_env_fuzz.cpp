// The NVIDIA_* variables of a container (each input line one process.env entry): the device
// list, swarm variables, capabilities, MIG and IMEX variables and requirements, as the hook and
// the shim read them, with and without CAP_SYS_ADMIN.
#include <nlohmann/json.hpp>

#include "fuzz_common.hpp"
#include "nvct/config/config.hpp"
#include "nvct/request/capabilities.hpp"
#include "nvct/request/mount_request.hpp"
#include "nvct/request/request.hpp"
#include "nvct/request/visible_devices.hpp"

using namespace nvct;

NVCT_FUZZ_TARGET {
  std::string_view text = fuzz::as_text(data, size);
  auto lines = fuzz::split_lines(text);
  static const config::Config cfg = [] {
    auto c = config::default_config(fuzz::fake_host());
    c.swarm_resource = "DOCKER_RESOURCE_GPU";
    return c;
  }();
  nlohmann::ordered_json env = nlohmann::ordered_json::array();
  for (const auto& line : lines) env.push_back(line);
  for (bool privileged : {false, true}) {
    nlohmann::ordered_json spec = {{"ociVersion", "1.0.2"}, {"process", {{"env", env}}}};
    if (privileged) spec["process"]["capabilities"]["bounding"] = {"CAP_SYS_ADMIN"};
    auto req = request::from_spec(spec, cfg);
    if (!req) continue;
    (void)request::driver_capabilities(*req, cfg);
    if (req->is_gpu_container()) (void)request::mount_request(*req, cfg);
  }
  // The lists on their own, as the CLI's --device and --imex-channel take them.
  for (bool legacy : {false, true}) (void)request::parse_device_list(std::string(text), legacy);
  (void)request::parse_capability_list(text);
  (void)request::imex_channel_numbers(lines);
  return 0;
}
