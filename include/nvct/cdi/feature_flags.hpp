// The nvcdi feature flags (spec/config.md §3): `nvidia-ctk cdi generate --feature-flag` and the
// runtime's `modes.jit-cdi.nvcdi-feature-flags`. Unknown names are reported to the caller, which
// logs and ignores them, so a config written for a newer toolkit keeps working.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nvct::cdi {

struct FeatureFlags {
  // Only the per-capability driver library list, not every *.so.<version> of the ldcache.
  bool explicit_driver_libraries = false;
  // The reference discovers files through libnvidia-sandboxutils when present; nvct never does,
  // so the flag is accepted and changes nothing.
  bool disable_nvsandboxutils = false;
  // Also produce <class>.coherent / <class>.noncoherent specs (spec/cdi.md §6.2).
  bool coherent_annotations = false;
  // csv mode: one device for all Tegra GPUs (nvct has no csv mode; accepted for configs).
  bool disable_multiple_csv_devices = false;
  // Leave a not-world-rw device node's GID out of additionalGids (spec/cdi.md §6.3).
  bool no_additional_gids_for_device_nodes = false;
  // No persistenced / fabricmanager / MPS socket mounts.
  bool disable_ipc_discoverer = false;
};

inline constexpr std::string_view kKnownFeatureFlags[] = {
    "enable-explicit-driver-libraries",    "disable-nvsandboxutils",
    "enable-coherent-annotations",         "disable-multiple-csv-devices",
    "no-additional-gids-for-device-nodes", "disable-ipc-discoverer"};

struct ParsedFeatureFlags {
  FeatureFlags flags;
  std::vector<std::string> unknown;  // in the order given, for a warning each
};

// Items may also be comma-separated lists; blanks are skipped, names are exact (case-sensitive).
ParsedFeatureFlags parse_feature_flags(const std::vector<std::string>& items);

}  // namespace nvct::cdi
