// The Tegra CSV mount specs of `cdi generate --mode csv` and the runtime's csv mode.
#include "fuzz_common.hpp"
#include "nvct/cdi/csv_mount_spec.hpp"

using namespace nvct;

NVCT_FUZZ_TARGET {
  auto specs = cdi::parse_csv_mount_specs(fuzz::as_text(data, size), "<fuzz>");
  if (!specs) return 0;
  for (const auto& s : *specs) {
    if (s.path.empty() || s.path[0] != '/') __builtin_trap();  // absolute, as documented
    (void)cdi::csv_mount_type_name(s.type);
  }
  return 0;
}
