// Volume-mount and annotation requests: spec/request.md §1.1 and §3.
#include "nvct/request/volume_mounts.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::request {
namespace {

using Strings = std::vector<std::string>;

SpecMount dev(const std::string& rest) {
  return SpecMount{"/dev/null", "/var/run/nvidia-container-devices/" + rest};
}

TEST(VolumeMounts, SourceAndDestinationAreCleaned) {
  auto r = requests_from_mounts(
      {SpecMount{"/dev/../dev//null", "/var/run/x/../nvidia-container-devices//GPU0/"}});
  EXPECT_EQ(r.devices, (Strings{"GPU0"}));
}

TEST(VolumeMounts, RepeatedDestinationIsIgnored) {
  auto r = requests_from_mounts({dev("GPU0"), dev("GPU1"), dev("./GPU0")});
  EXPECT_EQ(r.devices, (Strings{"GPU0", "GPU1"}));
}

TEST(VolumeMounts, RemainderMayContainSlashes) {
  auto r = requests_from_mounts({dev("GPU0-MIG0/0/1")});
  EXPECT_EQ(r.devices, (Strings{"GPU0-MIG0/0/1"}));
}

TEST(VolumeMounts, OtherSourcesAndPrefixesAreNotRequests) {
  auto r = requests_from_mounts({SpecMount{"/dev/zero", "/var/run/nvidia-container-devices/0"},
                                 SpecMount{"/dev/null", "/run/nvidia-container-devices/0"},
                                 SpecMount{"/dev/null", "/var/run/nvidia-container-devices"},
                                 SpecMount{"/dev/null", "/var/run/nvidia-container-devices/"}});
  EXPECT_TRUE(r.devices.empty());
  EXPECT_TRUE(r.imex_channels.empty());
}

TEST(VolumeMounts, CdiBothFormsBecomeQualifiedNames) {
  auto r = requests_from_mounts({dev("cdi/nvidia.com/gpu/0"), dev("cdi/nvidia.com/gpu=1"),
                                 dev("cdi/example.com/class/dev:0")});
  EXPECT_EQ(r.devices,
            (Strings{"nvidia.com/gpu=0", "nvidia.com/gpu=1", "example.com/class=dev:0"}));
}

TEST(VolumeMounts, InvalidCdiRequestIsSkippedWithWarning) {
  auto sink = std::make_shared<nvct::testing::MemorySink>();
  log::set_sink(sink);
  auto r = requests_from_mounts({dev("cdi/nvidia.com/gpu"), dev("cdi/-bad/gpu/0"), dev("GPU1")});
  log::set_sink(nullptr);
  EXPECT_EQ(r.devices, (Strings{"GPU1"}));
  EXPECT_TRUE(sink->contains("invalid CDI device request")) << "no warning logged";
}

TEST(VolumeMounts, ImexChannelsAreSeparate) {
  auto r = requests_from_mounts({dev("imex/3"), dev("GPU0"), dev("imex/4")});
  EXPECT_EQ(r.devices, (Strings{"GPU0"}));
  EXPECT_EQ(r.imex_channels, (Strings{"3", "4"}));
}

TEST(Annotations, MatchingPrefixesInKeyOrderCommaSplit) {
  std::vector<std::pair<std::string, std::string>> sorted = {
      {"cdi.k8s.io/a", "nvidia.com/gpu=0,nvidia.com/gpu=1"},
      {"cdi.k8s.io/b", "nvidia.com/gpu=0"},
      {"other/c", "nvidia.com/gpu=2"}};
  EXPECT_EQ(requests_from_annotations(sorted, {"cdi.k8s.io/"}),
            (Strings{"nvidia.com/gpu=0", "nvidia.com/gpu=1", "nvidia.com/gpu=0"}));
  EXPECT_TRUE(requests_from_annotations(sorted, {}).empty());
  EXPECT_TRUE(requests_from_annotations(sorted, {""}).empty()) << "an empty prefix matches nothing";
}

}  // namespace
}  // namespace nvct::request
