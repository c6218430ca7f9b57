// `nvidia-ctk cdi generate` content (spec/cdi.md §6.2, §6.3): one CDI device per GPU and MIG
// device, named by the chosen strategies, a merged `all` device, and the spec-level edits, all
// built by the same edits builder legacy mode uses. The cdiVersion is the minimum the content
// needs (0.5.0 for the default content, which Debian 12's Podman 4.3 accepts).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/cdi/feature_flags.hpp"
#include "nvct/cdi/generate_hooks.hpp"
#include "nvct/cdi/inject.hpp"
#include "nvct/cdi/spec.hpp"
#include "nvct/driver/driver_info.hpp"

namespace nvct::cdi {

enum class NameStrategy { kIndex, kUuid, kTypeIndex };

// "index", "uuid", "type-index"; anything else is an error naming the value.
Result<NameStrategy> parse_name_strategy(std::string_view text);

struct GenerateOptions {
  std::string vendor = "nvidia.com";
  std::string class_name = "gpu";
  std::vector<NameStrategy> strategies = {NameStrategy::kIndex};
  // --device-id items: "all", "none", an index, a GPU/MIG UUID, a PCI bus id or "G:M".
  std::vector<std::string> device_ids = {"all"};
  bool no_all_device = false;
  // Host prefix of device nodes; "" means the driver root (info.root).
  std::string dev_root;
  HookOptions hooks;
  // IMEX channel nodes for the spec-level edits (jit-cdi requests; `cdi generate` has none).
  std::vector<unsigned> imex_channels;
  FeatureFlags features;
  // --config-search-path: root-relative directories searched for the graphics config files
  // before /etc and /usr/share.
  std::vector<std::string> config_search_paths;
  // Mode auto: on a WSL2 root (generate_wsl.hpp: is_wsl_root of info.root and dev_root)
  // build_spec returns the wsl spec, which is how jit-cdi works on WSL. `cdi generate --mode
  // nvml` turns this off.
  bool detect_wsl = true;
};

// The device names of one GPU (mig == nullptr) or MIG device under a strategy:
// index "0" / "0:1", uuid "GPU-..." / "MIG-...", type-index "gpu0" / "mig0:1".
std::string device_name(NameStrategy strategy, const driver::Gpu& gpu,
                        const driver::MigDevice* mig);

// Builds the spec without validating it (an in-memory spec may have no devices). On a WSL2 root
// with detect_wsl it is the wsl spec (device ids other than "none" select its `all` device).
Result<Spec> build_spec(const driver::DriverInfo& info, const GenerateOptions& options,
                        DeviceLookup& lookup);

// Builds and validates the spec. Unknown ids fail ("failed to get device handle from index:
// ERROR_INVALID_ARGUMENT" for an index past the last GPU, as the reference's NVML call does).
Result<Spec> generate_spec(const driver::DriverInfo& info, const GenerateOptions& options,
                           DeviceLookup& lookup);

}  // namespace nvct::cdi
