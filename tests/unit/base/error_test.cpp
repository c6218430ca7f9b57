#include "nvct/base/error.hpp"

#include <gtest/gtest.h>

namespace nvct {
namespace {

Result<int> inner() { return fail(ELOOP, "too many levels of symbolic links"); }
Result<int> outer() {
  NVCT_ASSIGN_OR_RETURN(int v, with_context(inner(), "open target in rootfs"));
  return v + 1;
}
Status outermost() {
  NVCT_TRY(with_context(outer(), "mount /usr/lib/libcuda.so.1"));
  return ok();
}

TEST(Error, ContextIsPrependedOutermostFirst) {
  auto st = outermost();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message(),
            "mount /usr/lib/libcuda.so.1: open target in rootfs: too many levels of symbolic links");
  EXPECT_EQ(st.error().code(), ELOOP);
}

TEST(Error, FailErrnoNamesTheOperation) {
  auto e = fail_errno("open /x", ENOENT);
  EXPECT_EQ(e.value().message(), "open /x: No such file or directory");
}

}  // namespace
}  // namespace nvct
