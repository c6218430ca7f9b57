// The OCI state a runtime writes to the hook's stdin.
#include "fuzz_common.hpp"
#include "nvct/oci/state.hpp"

NVCT_FUZZ_TARGET {
  if (size > nvct::oci::kMaxStateSize) return 0;  // the hook's read is capped there
  (void)nvct::oci::parse_state(nvct::fuzz::as_text(data, size));
  return 0;
}
