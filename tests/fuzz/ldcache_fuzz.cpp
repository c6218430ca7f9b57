// ld.so.cache of a driver root (untrusted: every offset is bounds-checked).
#include "fuzz_common.hpp"
#include "nvct/driver/ldcache.hpp"

using namespace nvct;

NVCT_FUZZ_TARGET {
  auto cache = driver::parse_ldcache(fuzz::as_text(data, size));
  if (!cache) return 0;
  for (const auto& entry : cache->entries) {
    (void)driver::describe_ldcache_flags(entry.flags);
    (void)driver::ldcache_entry_matches(entry.flags, driver::native_ldcache_arch());
  }
  return 0;
}
