// Device, MIG and IMEX names: a --device / NVIDIA_VISIBLE_DEVICES list against a host with two
// GPUs (one with MIG devices), --mig-config/--mig-monitor values, IMEX channel numbers, CDI
// qualified names and DRM node names.
#include "fuzz_common.hpp"
#include "nvct/driver/device_selection.hpp"
#include "nvct/driver/drm.hpp"
#include "nvct/driver/listing.hpp"
#include "nvct/request/cdi_name.hpp"
#include "nvct/request/mount_request.hpp"

using namespace nvct;

namespace {

std::vector<driver::Gpu> fuzz_gpus() {
  std::vector<driver::Gpu> gpus(2);
  gpus[0].index = 0;
  gpus[0].minor = 0;
  gpus[0].uuid = "GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c";
  gpus[0].bus_id = "00000000:3b:00.0";
  gpus[0].mig_capable = gpus[0].mig_enabled = true;
  for (unsigned m = 0; m < 2; ++m) {
    driver::MigDevice mig;
    mig.index = m;
    mig.uuid = "MIG-b7e7ff6c-1a3a-5a44-8c7e-0b0c3e8f4a1" + std::to_string(m);
    mig.gi = m + 1;
    gpus[0].migs.push_back(mig);
  }
  gpus[1].index = 1;
  gpus[1].minor = 1;
  gpus[1].uuid = "GPU-1d4d0e0b-5c4c-4f3e-9d0a-2b1c3d4e5f60";
  gpus[1].bus_id = "00000000:86:00.0";
  return gpus;
}

}  // namespace

NVCT_FUZZ_TARGET {
  std::string_view text = fuzz::as_text(data, size);
  static const std::vector<driver::Gpu> gpus = fuzz_gpus();
  auto selection = driver::select_devices(gpus, text, "NVIDIA_VISIBLE_DEVICES");
  if (selection) {
    for (auto g : selection->gpus)
      if (g >= gpus.size()) __builtin_trap();
    for (auto [g, m] : selection->migs)
      if (g >= gpus.size() || m >= gpus[g].migs.size()) __builtin_trap();
  }
  (void)driver::parse_mig_value(text, "mig-config");
  (void)request::imex_channel_numbers(fuzz::split_lines(text));
  (void)request::parse_qualified_name(text);
  (void)request::split_qualified_name(text);
  (void)driver::parse_drm_entry(text);
  return 0;
}
