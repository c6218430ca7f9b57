// /proc/devices: the character device majors.
#include "fuzz_common.hpp"
#include "nvct/driver/procfs.hpp"

NVCT_FUZZ_TARGET {
  (void)nvct::driver::parse_proc_devices(nvct::fuzz::as_text(data, size));
  return 0;
}
