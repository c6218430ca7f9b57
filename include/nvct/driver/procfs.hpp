// Parsers for the driver's procfs files (driver.md §6, §11 fallback, §12). Pure functions on the
// text so that every format rule is unit-tested; DriverRoot reads the files.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"

namespace nvct::driver {

inline constexpr std::string_view kProcDevices = "/proc/devices";
inline constexpr std::string_view kProcDriverVersion = "/proc/driver/nvidia/version";
inline constexpr std::string_view kProcGpus = "/proc/driver/nvidia/gpus";
inline constexpr std::string_view kProcCapabilities = "/proc/driver/nvidia/capabilities";
inline constexpr std::string_view kProcMigMinors = "/proc/driver/nvidia-caps/mig-minors";

// Character device majors of /proc/devices by name: the lines after "Character devices:" up to
// the first empty line, each "<major> <name>".
std::map<std::string, unsigned> parse_proc_devices(std::string_view text);

// The RM version from /proc/driver/nvidia/version ("NVRM version: NVIDIA UNIX x86_64 Kernel
// Module  550.54.14  Thu Feb 22 ...").
Result<std::string> parse_proc_driver_version(std::string_view text);

// /proc/driver/nvidia/gpus/<bus>/information.
struct ProcGpuInformation {
  std::string model;
  std::string uuid;
  std::string bus_id;  // normalised to %08x:%02x:%02x.0
  unsigned minor = 0;
};
Result<ProcGpuInformation> parse_proc_gpu_information(std::string_view text);

// "DeviceFileMinor: M" of a capability access file.
Result<unsigned> parse_device_file_minor(std::string_view text);

// /proc/driver/nvidia-caps/mig-minors (driver.md §12.3).
struct MigMinor {
  enum class Kind { kGpuInstance, kComputeInstance, kConfig, kMonitor };
  Kind kind = Kind::kConfig;
  unsigned gpu = 0, gi = 0, ci = 0;
  unsigned minor = 0;
  // The capability file below /proc/driver/nvidia/capabilities this line stands for.
  std::string proc_path;
};
// Any line that is not one of the four forms is an error naming it.
Result<std::vector<MigMinor>> parse_mig_minors(std::string_view text);

// One mig-minors line before its capability path is formatted. The file lists every possible
// instance of every GPU the driver can hold (thousands of lines on a real host), and a hook run
// needs only the few whose capability file exists: scanning allocates nothing per line, and a
// caller formats the path of a line it keeps.
struct MigMinorLine {
  MigMinor::Kind kind = MigMinor::Kind::kConfig;
  unsigned gpu = 0, gi = 0, ci = 0;
  unsigned minor = 0;
};
// The same lines, with the same errors, as parse_mig_minors.
Result<std::vector<MigMinorLine>> scan_mig_minors(std::string_view text);
// MigMinor::proc_path of a line, formatted from its numbers (the driver writes them without
// leading zeros; "gpu007/gi01/access" stands for gpu7/gi1).
std::string mig_minor_proc_path(const MigMinorLine& line);

// Parses a PCI bus id "%x:%02x:%02x.0" (domain:bus:device, function 0) into the NVML form
// "%08x:%02x:%02x.0"; nullopt when the text is not of that form (request.md §11).
std::optional<std::string> normalize_pci_bus_id(std::string_view text);

// Strict unsigned decimal (digits only, no sign, fits in unsigned).
std::optional<unsigned> parse_unsigned(std::string_view text);

// The MIG folders under /proc/driver/nvidia/capabilities (`caps`), relative to it: "gpu<N>/mig"
// for each GPU that has one (every MIG-capable GPU, MIG on or off), "gpu<N>/mig/gi<G>" for each
// GPU instance and "gpu<N>/mig/gi<G>/ci<C>" for each compute instance. `list(path)` returns the
// entry names of a folder, or std::nullopt when it cannot be listed. nullopt past `limit`
// folders (a hostile stand-in for procfs; a real host has a few hundred at most).
struct MigFolder {
  unsigned gpu = 0;
  unsigned level = 0;  // 0: gpu<N>/mig, 1: a GPU instance, 2: a compute instance
  std::string path;
};
template <typename List>
std::optional<std::vector<MigFolder>> list_mig_folders(const std::string& caps, const List& list,
                                                       std::size_t limit = 4096) {
  std::vector<MigFolder> out;
  auto gpus = list(caps);
  if (!gpus) return out;
  auto starts = [](const std::string& s, std::string_view p) { return s.rfind(p, 0) == 0; };
  for (const auto& gpu : *gpus) {
    auto index =
        starts(gpu, "gpu") ? parse_unsigned(std::string_view(gpu).substr(3)) : std::nullopt;
    if (!index) continue;
    const std::string mig = gpu + "/mig";
    auto gis = list(caps + "/" + mig);
    if (!gis) continue;
    out.push_back({*index, 0, mig});
    for (const auto& gi : *gis) {
      if (!starts(gi, "gi")) continue;
      const std::string gi_path = mig + "/" + gi;
      out.push_back({*index, 1, gi_path});
      if (auto cis = list(caps + "/" + gi_path)) {
        for (const auto& ci : *cis)
          if (starts(ci, "ci")) out.push_back({*index, 2, gi_path + "/" + ci});
      }
      if (out.size() > limit) return std::nullopt;
    }
  }
  return out;
}

}  // namespace nvct::driver
