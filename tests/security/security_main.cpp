// main() of the security suite. Environment:
//   NVCT_FORCE_FALLBACK=1        force the userspace walker and the classic mount(2) path
//   NVCT_EXPECT_WALKER=1         fail unless the walker actually resolved paths
//   NVCT_EXPECT_CLASSIC=1        fail unless the classic mount path actually ran
//   NVCT_EXPECT_OPENAT2_ENOSYS=1 (under no_openat2) checked by the SeccompWrapper test
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "nvct/mount/bind.hpp"
#include "nvct/mount/in_root.hpp"

namespace {
bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, "1") == 0;
}
}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (env_on("NVCT_FORCE_FALLBACK")) {
    nvct::mount::force_openat2_fallback(true);
    nvct::mount::force_classic_mount_api(true);
  }
  int rc = RUN_ALL_TESTS();
  if (env_on("NVCT_EXPECT_WALKER") && nvct::mount::fallback_resolution_count() == 0) {
    std::fprintf(stderr, "FAIL: expected the userspace walker to run, it never did\n");
    rc = 1;
  }
  if (env_on("NVCT_EXPECT_CLASSIC") && nvct::mount::classic_mount_count() == 0) {
    std::fprintf(stderr, "FAIL: expected the classic mount(2) path to run, it never did\n");
    rc = 1;
  }
  return rc;
}
