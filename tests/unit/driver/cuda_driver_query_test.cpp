// libcuda's facts for csv mode's requirements (runtime.md §7.6): the version string and the
// helper's JSON reply.
#include "nvct/driver/cuda_driver_query.hpp"

#include <gtest/gtest.h>

namespace nvct::driver {
namespace {

TEST(CudaVersionString, MajorAndMinorOfTheDriverApiNumber) {
  EXPECT_EQ(cuda_version_string(12040), "12.4");
  EXPECT_EQ(cuda_version_string(11020), "11.2");
  EXPECT_EQ(cuda_version_string(9000), "9.0");
  EXPECT_EQ(cuda_version_string(12090), "12.9");
}

TEST(CudaWireForm, FactsRoundTrip) {
  CudaDriverFacts with_arch{12040, "8.7", ""};
  EXPECT_EQ(*decode_cuda_result(encode_cuda_result(with_arch)), with_arch);
  CudaDriverFacts without{11040, std::nullopt, "cuInit failed"};
  EXPECT_EQ(*decode_cuda_result(encode_cuda_result(without)), without);
}

TEST(CudaWireForm, ErrorRoundTripsAsEio) {
  auto r = decode_cuda_result(encode_cuda_result(fail(ENOENT, "load library failed: x")));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), EIO);
  EXPECT_EQ(r.error().message(), "load library failed: x");
}

TEST(CudaWireForm, MalformedRepliesAreEproto) {
  for (const char* text :
       {"", "[]", "{}", "{\"cuda\":{}}", "{\"cuda\":{\"driver_version\":\"1\"}}", "{\"error\":1}",
        "{\"cuda\":{\"driver_version\":1,\"device0_arch\":2}}"}) {
    auto r = decode_cuda_result(text);
    ASSERT_FALSE(r) << text;
    EXPECT_EQ(r.error().code(), EPROTO) << text;
  }
}

}  // namespace
}  // namespace nvct::driver
