// The runtime's cdi and jit-cdi modes (spec/runtime.md §7.2, §7.5): NVIDIA prestart hooks are
// removed, the request's devices become CDI names, and their edits are applied to config.json,
// from the CDI registry (spec files) or, for runtime.nvidia.com/gpu names, from a spec built in
// memory from driver discovery (jit_cdi.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "nvct/base/error.hpp"
#include "nvct/cdi/inject.hpp"
#include "nvct/config/config.hpp"
#include "nvct/driver/driver_info.hpp"
#include "nvct/request/request.hpp"
#include "nvct/runtime/mode.hpp"

namespace nvct::runtime {

// Removes prestart hooks whose path basename is nvidia-container-runtime-hook or
// nvidia-container-toolkit; `hooks.prestart` is removed when none is left. Only prestart is
// touched. Returns whether the spec changed.
bool remove_nvidia_prestart_hooks(nlohmann::ordered_json& spec);

// The qualified CDI names of a request: "" -> none, unqualified ids get default_kind,
// deduplicated in order. No devices -> empty.
std::vector<std::string> cdi_names_for(const request::Request& request,
                                       std::string_view default_kind);

// Applies the named devices: all runtime.nvidia.com/gpu names -> JIT edits; any mix of those with
// other names -> the reference's error; otherwise the registry over modes.cdi.spec-dirs and CDI
// injection ("failed to inject CDI devices: unresolvable CDI devices a, b").
// `nvml`: as apply_jit_cdi's.
Status apply_cdi_names(nlohmann::ordered_json& spec, const std::vector<std::string>& names,
                       const request::Request& request, const config::Config& cfg,
                       cdi::DeviceLookup& lookup, const driver::NvmlQuery& nvml = {});

// The whole mode: hook removal, then (for a GPU container) the devices. default_kind is
// modes.cdi.default-kind in cdi mode and runtime.nvidia.com/gpu in jit-cdi mode. Returns whether
// the spec changed.
Result<bool> apply_cdi_mode(nlohmann::ordered_json& spec, const request::Request& request,
                            const config::Config& cfg, std::string_view default_kind,
                            cdi::DeviceLookup& lookup, const driver::NvmlQuery& nvml = {});

// apply_cdi_mode for Mode::kCdi (default kind modes.cdi.default-kind) or Mode::kJitCdi (default
// kind runtime.nvidia.com/gpu), with host device nodes looked up by lstat().
Result<bool> apply_cdi_mode(nlohmann::ordered_json& spec, Mode mode,
                            const request::Request& request, const config::Config& cfg,
                            const driver::NvmlQuery& nvml = {});

}  // namespace nvct::runtime
