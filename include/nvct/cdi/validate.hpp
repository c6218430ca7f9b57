// Spec and container-edits validation (spec/cdi.md §1 field rules, §4 examples).
#pragma once

#include <string_view>

#include "nvct/base/error.hpp"
#include "nvct/cdi/spec.hpp"

namespace nvct::cdi {

// The six OCI hook stages a CDI hook may name.
bool is_valid_hook_name(std::string_view name);

// "NAME=VALUE" with '=' at an index > 0.
Status validate_env(std::string_view entry);
Status validate_device_node(const DeviceNode& node);
Status validate_mount(const Mount& mount);
Status validate_hook(const Hook& hook);
Status validate_intel_rdt(const IntelRdt& rdt);
Status validate_edits(const ContainerEdits& edits);

// Version (known and >= the minimum the content needs), kind, spec-level edits, and each device
// (name, non-empty edits, unique names, at least one device).
Status validate_spec(const Spec& spec);

}  // namespace nvct::cdi
