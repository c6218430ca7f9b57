#include "nvct/runtime/cuda_facts_query.hpp"

#include <fmt/format.h>

#include <optional>

#include "nvct/base/log.hpp"
#include "nvct/driver/driver_root.hpp"
#include "nvct/driver/ldcache.hpp"
#include "nvct/driver/libraries.hpp"
#include "nvct/driver/nvml_helper.hpp"

namespace nvct::runtime {

Result<std::string> find_libcuda(const std::string& driver_root) {
  NVCT_ASSIGN_OR_RETURN(auto root, driver::DriverRoot::open(driver_root));
  std::optional<driver::LdCache> cache;
  if (auto data = root.read("/etc/ld.so.cache", 64u << 20)) {
    if (auto parsed = driver::parse_ldcache(*data)) cache = std::move(*parsed);
  }
  auto path = driver::find_library(cache ? &*cache : nullptr, root, driver::native_ldcache_arch(),
                                   driver::kCudaLibrary);
  if (!path)
    return fail(ENOENT, fmt::format("{} not found under {}: {}", driver::kCudaLibrary, driver_root,
                                    path.error().message()));
  return *path;
}

CudaFactsQuery helper_cuda_facts_query(std::vector<std::string> helper_dirs) {
  return [dirs = std::move(helper_dirs)](
             const std::string& driver_root) -> Result<driver::CudaDriverFacts> {
    driver::NvmlProcessOptions o;
    o.root = driver_root;
    NVCT_ASSIGN_OR_RETURN(o.library, find_libcuda(driver_root));
    if (auto user = driver::default_nvml_user()) {
      o.user = *user;
    } else {
      log::warn("{}; querying libcuda with the caller's ids", user.error().message());
    }
    NVCT_ASSIGN_OR_RETURN(std::string helper, driver::find_nvml_helper(dirs));
    log::debug("querying {} under {} through {}", o.library, driver_root, helper);
    return driver::query_cuda_through_helper(helper, o);
  };
}

}  // namespace nvct::runtime
