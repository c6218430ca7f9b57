// `nvidia-ctk cdi generate --mode wsl` (spec/cdi.md §6.1, driver.md §14) and the WSL detection
// of mode auto. A WSL2 spec has one device, `all`, with /dev/dxg (WSL exposes every adapter
// through that one node, so there are no per-GPU devices; --device-id values other than `none`
// and --no-all-device do not change it), and spec-level edits:
//   mounts: the present files of each NVIDIA driver store (driver/wsl_driver_store.hpp: how the
//           stores are found without Windows' dxcore), then libdxcore.so from the library search
//           path (default /usr/lib/wsl/lib), each at its own path, read-only;
//   hooks:  create-symlinks (<first store with nvidia-smi>/nvidia-smi::/usr/bin/nvidia-smi, and
//           libcuda.so.1.1::<store>/libcuda.so.1 per store holding libcuda.so.1.1), then
//           update-ldcache with --folder per store and for libdxcore.so's directory; no
//           enable-cuda-compat, disable-device-node-modification or update-application-profile
//           (no procfs, no driver version, no graphics profile on WSL);
//   env:    NVIDIA_VISIBLE_DEVICES=void.
#pragma once

#include <string>
#include <string_view>

#include "nvct/base/error.hpp"
#include "nvct/cdi/generate_modes.hpp"
#include "nvct/cdi/inject.hpp"
#include "nvct/cdi/spec.hpp"

namespace nvct::cdi {

// Whether the roots are a WSL2 system: libdxcore.so in /usr/lib/wsl/lib of the driver root, or
// a char device /dev/dxg under the dev root ("" = the driver root).
bool is_wsl_root(const std::string& driver_root, const std::string& dev_root, DeviceLookup& lookup);

// parse_generate_mode, except that "auto" is kWsl on a WSL root (is_wsl_root).
Result<GenerateMode> resolve_generate_mode(std::string_view text, const std::string& driver_root,
                                           const std::string& dev_root, DeviceLookup& lookup);

// The wsl spec (not validated). Uses driver_root, dev_root, library_search_paths, vendor,
// class_name ("" = gpu), device_ids, hooks and features of `options`. No driver store, no
// libdxcore.so or no /dev/dxg is an error naming what was searched.
Result<Spec> build_wsl_spec(const ModeOptions& options, DeviceLookup& lookup);

}  // namespace nvct::cdi
