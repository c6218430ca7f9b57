// /proc/driver/nvidia: gpus/<bus>/information, version, nvidia-caps/mig-minors and the
// capability files' DeviceFileMinor (the NVML-less fallback of driver.md §11, §12).
#include "fuzz_common.hpp"
#include "nvct/driver/procfs.hpp"

using namespace nvct;

NVCT_FUZZ_TARGET {
  std::string_view text = fuzz::as_text(data, size);
  auto info = driver::parse_proc_gpu_information(text);
  if (info && !driver::normalize_pci_bus_id(info->bus_id)) __builtin_trap();
  (void)driver::parse_proc_driver_version(text);
  (void)driver::parse_mig_minors(text);
  (void)driver::parse_device_file_minor(text);
  (void)driver::normalize_pci_bus_id(text);
  return 0;
}
