#include "nvct/driver/nvml_process.hpp"

#include <gtest/gtest.h>

#include "fake_nvml.hpp"

namespace nvct::driver {
namespace {

TEST(NvmlProcess, WireFormatRoundTrips) {
  auto api = testing::mig_topology();
  auto facts = query_nvml(api);
  ASSERT_TRUE(facts);
  auto back = decode_nvml_result(encode_nvml_result(facts));
  ASSERT_TRUE(back) << back.error().message();
  ASSERT_EQ(back->gpus.size(), 2u);
  EXPECT_EQ(back->cuda_version, "12.4");
  EXPECT_EQ(back->gpus[0].migs[1].gi, 2u);
  EXPECT_EQ(back->gpus[0].bus_id, "00000000:17:00.0");
  EXPECT_EQ(back->gpus[1].brand, 2);
}

TEST(NvmlProcess, ErrorsCrossTheWireVerbatim) {
  Result<NvmlFacts> err = fail(EIO, "nvml error: driver/library version mismatch");
  auto back = decode_nvml_result(encode_nvml_result(err));
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().message(), "nvml error: driver/library version mismatch");
}

TEST(NvmlProcess, MalformedRepliesAreRejectedWithoutThrowing) {
  for (const char* bad :
       {"", "{", "[]", "{\"facts\":1}", "{\"facts\":{\"driver_version\":1}}",
        "{\"facts\":{\"driver_version\":\"1\",\"cuda_version\":\"1\",\"gpus\":[{}]}}"}) {
    auto r = decode_nvml_result(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().message(), "malformed reply from the NVML process");
  }
}

TEST(NvmlProcess, ChildReportsALibraryThatCannotBeLoaded) {
  NvmlProcessOptions o;
  o.library = "/nonexistent/libnvidia-ml.so.1";
  auto r = query_nvml_in_child(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("load library failed: /nonexistent/libnvidia-ml.so.1"),
            std::string::npos)
      << r.error().message();
}

TEST(NvmlProcess, AnInstalledRunnerReplacesTheForkUntilReset) {
  NvmlProcessOptions seen;
  set_nvml_process_runner([&seen](const NvmlProcessOptions& o) -> Result<NvmlFacts> {
    seen = o;
    return fail(EIO, "from the runner");
  });
  NvmlProcessOptions o;
  o.root = "/driver";
  o.library = "/nonexistent/libnvidia-ml.so.1";
  auto r = query_nvml_in_child(o);
  set_nvml_process_runner(nullptr);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "from the runner");
  EXPECT_EQ(seen.root, "/driver");
  EXPECT_EQ(seen.library, "/nonexistent/libnvidia-ml.so.1");
  o.root = "/";
  r = query_nvml_in_child(o);  // forked again: the child's own error
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("load library failed"), std::string::npos)
      << r.error().message();
}

TEST(NvmlProcess, DefaultUserIsTheOverflowIds) {
  auto u = default_nvml_user();
  ASSERT_TRUE(u) << u.error().message();
  EXPECT_EQ(u->uid, 65534u);
  EXPECT_EQ(u->gid, 65534u);
}

}  // namespace
}  // namespace nvct::driver
