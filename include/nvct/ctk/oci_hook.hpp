// The oci-hooks(5) JSON file of `runtime configure --config-mode=oci-hook` (spec/ctk.md §7.2):
// a prestart hook for every container, read by CRI-O and Podman from hooks.d.
#pragma once

#include <string>

#include "nvct/base/error.hpp"

namespace nvct::ctk {

inline constexpr const char* kOciHookPath =
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// The hook file for `hook_path` (must be absolute): args[0] is its basename, and its directory
// is appended to the fixed PATH when missing. 2-space indent, trailing newline.
Result<std::string> oci_hook_json(const std::string& hook_path);

}  // namespace nvct::ctk
