// Applying CDI edits to an OCI spec (spec/cdi.md §3: InjectDevices + ContainerEdits.Apply). The
// spec is an ordered JSON document so that every field we do not touch survives unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nvct/base/error.hpp"
#include "nvct/cdi/registry.hpp"
#include "nvct/cdi/spec.hpp"

namespace nvct::cdi {

// What lstat() says about a host device node.
struct HostDeviceInfo {
  std::string type;  // "b", "c", "p"
  std::int64_t major = 0;
  std::int64_t minor = 0;
  std::uint32_t file_mode = 0;  // permission bits (incl. setuid/setgid/sticky)
  std::uint32_t gid = 0;        // owning group (additionalGids of generated specs)
};

// The host lookup, behind an interface so that tests need no real /dev nodes.
class DeviceLookup {
 public:
  virtual ~DeviceLookup() = default;
  virtual Result<HostDeviceInfo> lstat(const std::string& path) = 0;
};

// lstat(2); fails for anything that is not a block, char or FIFO node.
class HostDeviceLookup : public DeviceLookup {
 public:
  Result<HostDeviceInfo> lstat(const std::string& path) override;
};

// Fills type, major, minor and fileMode from the host where the node leaves them unset.
Status fill_missing_device_info(DeviceNode& node, DeviceLookup& lookup);

// Applies edits to an OCI spec document in the reference's order: env, device nodes (with
// linux.devices and linux.resources.devices rules), netDevices, mounts (then all mounts sorted),
// hooks, intelRdt, additionalGids.
Status apply_edits(nlohmann::ordered_json& oci_spec, const ContainerEdits& edits,
                   DeviceLookup& lookup);

// Resolves the names in the registry and applies their edits. Errors start with
// "failed to inject CDI devices" (the NVIDIA runtime's wording).
Status inject_devices(nlohmann::ordered_json& oci_spec, const Registry& registry,
                      const std::vector<std::string>& qualified_names, DeviceLookup& lookup);

// filepath.Clean semantics for slash paths ("" -> ".").
std::string clean_path(std::string_view path);

}  // namespace nvct::cdi
