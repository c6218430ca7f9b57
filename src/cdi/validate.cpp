// Validation with the reference library's rules. Annotation keys are not checked: the
// reference's own check never runs (cdi.md §1), and rejecting what it accepts would break specs
// other tools wrote.
#include "nvct/cdi/validate.hpp"

#include <set>

#include <fmt/format.h>

#include "nvct/cdi/qualified_name.hpp"
#include "nvct/cdi/version.hpp"

namespace nvct::cdi {
namespace {

constexpr std::size_t kMaxClosIdSize = 4096;

}  // namespace

bool is_valid_hook_name(std::string_view name) {
  return name == "prestart" || name == "createRuntime" || name == "createContainer" ||
         name == "startContainer" || name == "poststart" || name == "poststop";
}

Status validate_env(std::string_view entry) {
  auto eq = entry.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return fail(fmt::format("invalid environment variable \"{}\"", entry));
  }
  return ok();
}

Status validate_device_node(const DeviceNode& node) {
  if (node.path.empty()) return fail("invalid (empty) device path");
  const std::string& t = node.type;
  if (!(t.empty() || t == "b" || t == "c" || t == "u" || t == "p")) {
    return fail(fmt::format("device \"{}\": invalid type \"{}\"", node.path, t));
  }
  if (node.permissions != "none") {
    for (char c : node.permissions) {
      if (c != 'r' && c != 'w' && c != 'm') {
        return fail(
            fmt::format("device \"{}\": invalid permissions \"{}\"", node.path, node.permissions));
      }
    }
  }
  return ok();
}

Status validate_mount(const Mount& mount) {
  if (mount.host_path.empty()) return fail("invalid mount, empty host path");
  if (mount.container_path.empty()) return fail("invalid mount, empty container path");
  return ok();
}

Status validate_hook(const Hook& hook) {
  if (!is_valid_hook_name(hook.hook_name)) {
    return fail(fmt::format("invalid hook name \"{}\"", hook.hook_name));
  }
  if (hook.path.empty()) {
    return fail(fmt::format("invalid hook \"{}\" with empty path", hook.hook_name));
  }
  for (const auto& e : hook.env) {
    NVCT_TRY(with_context(validate_env(e), fmt::format("hook \"{}\"", hook.hook_name)));
  }
  return ok();
}

Status validate_intel_rdt(const IntelRdt& rdt) {
  const std::string& id = rdt.clos_id;
  if (id == "/") return ok();
  if (id == "." || id == ".." || id.find('/') != std::string::npos ||
      id.find('\n') != std::string::npos || id.size() >= kMaxClosIdSize) {
    return fail(fmt::format("invalid intelRdt closID \"{}\"", id));
  }
  return ok();
}

Status validate_edits(const ContainerEdits& edits) {
  for (const auto& e : edits.env) NVCT_TRY(validate_env(e));
  for (const auto& d : edits.device_nodes) NVCT_TRY(validate_device_node(d));
  std::set<std::string> host_names;
  std::set<std::string> names;
  for (const auto& n : edits.net_devices) {
    if (n.host_interface_name.empty()) return fail("invalid netDevice, empty hostInterfaceName");
    if (n.name.empty()) return fail("invalid netDevice, empty name");
    if (!host_names.insert(n.host_interface_name).second) {
      return fail(fmt::format("invalid netDevices, duplicate hostInterfaceName \"{}\"",
                              n.host_interface_name));
    }
    if (!names.insert(n.name).second) {
      return fail(fmt::format("invalid netDevices, duplicate name \"{}\"", n.name));
    }
  }
  for (const auto& h : edits.hooks) NVCT_TRY(validate_hook(h));
  for (const auto& m : edits.mounts) NVCT_TRY(validate_mount(m));
  if (edits.intel_rdt) NVCT_TRY(validate_intel_rdt(*edits.intel_rdt));
  return ok();
}

Status validate_spec(const Spec& spec) {
  NVCT_TRY(validate_version(spec));
  NVCT_TRY(validate_kind(spec.kind));
  NVCT_TRY(with_context(validate_edits(spec.container_edits), "invalid spec"));
  if (spec.devices.empty()) return fail("invalid spec, no devices");
  std::set<std::string> seen;
  for (const auto& d : spec.devices) {
    NVCT_TRY(with_context(validate_device_name(d.name), "invalid device"));
    if (d.container_edits.empty()) {
      return fail(fmt::format("invalid device \"{}\": empty device edits", d.name));
    }
    NVCT_TRY(with_context(validate_edits(d.container_edits),
                          fmt::format("invalid device \"{}\"", d.name)));
    if (!seen.insert(d.name).second) {
      return fail(fmt::format("invalid spec, multiple device \"{}\"", d.name));
    }
  }
  return ok();
}

}  // namespace nvct::cdi
