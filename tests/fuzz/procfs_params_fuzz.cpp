// /proc/driver/nvidia/params: device file owner and mode for --load-kmods, and the
// ModifyDeviceFiles rewrite of the container's copy (CVE-2021-1056 defence).
#include "fuzz_common.hpp"
#include "nvct/driver/device_nodes.hpp"
#include "nvct/mount/procfs.hpp"

using namespace nvct;

NVCT_FUZZ_TARGET {
  std::string_view text = fuzz::as_text(data, size);
  (void)driver::parse_device_file_params(text);
  std::string rewritten = mount::rewrite_params(std::string(text));
  if (rewritten.size() != size) __builtin_trap();  // one character changes at most
  auto first = text.find("ModifyDeviceFiles: 1");
  if (first != std::string_view::npos && rewritten.compare(first, 20, "ModifyDeviceFiles: 0") != 0)
    __builtin_trap();
  return 0;
}
