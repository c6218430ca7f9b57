// `--device` selection (request.md §11): GPUs and MIG devices named by index, UUID, PCI bus id
// or G:M, with the reference's error text.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/driver/driver_info.hpp"

namespace nvct::driver {

struct DeviceSelection {
  // Indices into DriverInfo::gpus in the order asked for (a MIG device's parent where the MIG
  // device was asked for), each once.
  std::vector<std::size_t> gpus;
  std::vector<std::pair<std::size_t, std::size_t>> migs;  // (gpu index, position in gpu.migs)
  bool all = false;
  bool empty() const { return gpus.empty() && migs.empty(); }
};

// Parses a comma list (empty items skipped). Each item: `all`, GPU-UUID, PCI bus id
// (%x:%02x:%02x.0), decimal index, MIG-UUID, G:M. Anything else fails and nothing is selected;
// the message starts with the reference's "<item>: unknown device" (users search for it) and
// goes on with where the list came from, when `source` names it (the variable or flag), and the
// devices that would have been valid:
//   "5: unknown device (from NVIDIA_VISIBLE_DEVICES); valid devices: 0 (GPU-...), 1 (GPU-...),
//    0:0 (MIG-...), or all"
Result<DeviceSelection> select_devices(const std::vector<Gpu>& gpus, std::string_view list,
                                       std::string_view source = {});

// The devices a request may name, for error messages: "0 (GPU-...), 1 (GPU-...), 0:0 (MIG-...),
// or all" (at most 32 entries, then "and N more"), or "none: the driver reports no GPU".
std::string describe_valid_devices(const std::vector<Gpu>& gpus);

}  // namespace nvct::driver
