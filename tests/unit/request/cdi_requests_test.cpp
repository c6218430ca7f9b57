// The CDI requestor: spec/request.md §4 and §9 rows 59-66.
#include "nvct/request/cdi_requests.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "nvct/request/request.hpp"
#include "spec_builder.hpp"

namespace nvct::request {
namespace {

using Strings = std::vector<std::string>;
using testing::SpecBuilder;

// Runs from_spec (cdi mode when `cdi_mode`) and qualifies the devices with `kind`.
Strings requested(const SpecBuilder& spec, const config::Config& cfg, std::string_view kind,
                  bool cdi_mode) {
  auto req = from_spec(spec.build(), cfg, FromSpecOptions{cdi_mode});
  EXPECT_TRUE(req) << req.error().message();
  if (!req || !req->devices) return {};
  return cdi_device_requests(*req->devices, kind);
}

TEST(CdiRequestor, R59_CdiVolumeMountsBecomeQualifiedNames) {
  config::Config cfg;
  cfg.accept_volume_mounts = true;
  SpecBuilder s{{},
                {{"/dev/null", "/var/run/nvidia-container-devices/cdi/nvidia.com/gpu/0"},
                 {"/dev/null", "/var/run/nvidia-container-devices/cdi/nvidia.com/gpu/1"}},
                {},
                false};
  EXPECT_EQ(requested(s, cfg, "nvidia.com/gpu", true),
            (Strings{"nvidia.com/gpu=0", "nvidia.com/gpu=1"}));
}

TEST(CdiRequestor, R60_BareIdsGetDefaultKindQualifiedNamesKept) {
  SpecBuilder s{{"NVIDIA_VISIBLE_DEVICES=0,example.com/class=device"}, {}, {}, false};
  EXPECT_EQ(requested(s, config::Config{}, "nvidia.com/gpu", true),
            (Strings{"nvidia.com/gpu=0", "example.com/class=device"}));
}

TEST(CdiRequestor, R61_AllWithJitKind) {
  SpecBuilder s{{"NVIDIA_VISIBLE_DEVICES=all"}, {}, {}, false};
  EXPECT_EQ(requested(s, config::Config{}, kJitCdiKind, false),
            (Strings{"runtime.nvidia.com/gpu=all"}));
}

TEST(CdiRequestor, R62_NoneWithJitKind) {
  SpecBuilder s{{"NVIDIA_VISIBLE_DEVICES=none"}, {}, {}, false};
  EXPECT_EQ(requested(s, config::Config{}, kJitCdiKind, false),
            (Strings{"runtime.nvidia.com/gpu=none"}));
}

TEST(CdiRequestor, R63_AnnotationValueGetsDefaultKind) {
  config::Config cfg;
  cfg.runtime.cdi.annotation_prefixes = {"prefix/"};
  SpecBuilder s{{}, {}, {{"prefix/foo", "device"}}, false};
  EXPECT_EQ(requested(s, cfg, "nvidia.com/gpu", true), (Strings{"nvidia.com/gpu=device"}));
}

TEST(CdiRequestor, R64_InvalidAnnotationValueIsQualifiedNotRejected) {
  config::Config cfg;
  cfg.runtime.cdi.annotation_prefixes = {"prefix/"};
  SpecBuilder s{{}, {}, {{"prefix/foo", "example.com/device"}}, false};
  EXPECT_EQ(requested(s, cfg, "nvidia.com/gpu", true),
            (Strings{"nvidia.com/gpu=example.com/device"}));
}

TEST(CdiRequestor, R65_AnnotationsAreListedTwiceAndDedupedByRequestor) {
  config::Config cfg;
  cfg.runtime.cdi.annotation_prefixes = {"prefix/", "another-prefix/"};
  SpecBuilder s{
      {},
      {},
      {{"prefix/foo", "example.com/device=bar"}, {"another-prefix/bar", "example.com/device=bar"}},
      false};
  auto req = from_spec(s.build(), cfg, FromSpecOptions{true});
  ASSERT_TRUE(req) << req.error().message();
  EXPECT_EQ(req->devices, (Strings{"example.com/device=bar", "example.com/device=bar"}));
  EXPECT_EQ(cdi_device_requests(*req->devices, "nvidia.com/gpu"),
            (Strings{"example.com/device=bar"}));
}

TEST(CdiRequestor, R66_SwarmVariableWithJitKind) {
  config::Config cfg;
  cfg.swarm_resource = "SWARM_RESOURCE";
  SpecBuilder s{{"NVIDIA_VISIBLE_DEVICES=all", "SWARM_RESOURCE=GPU1"}, {}, {}, false};
  EXPECT_EQ(requested(s, cfg, kJitCdiKind, false), (Strings{"runtime.nvidia.com/gpu=GPU1"}));
}

TEST(CdiRequestor, DuplicateSlotsBecomeNoneOnce) {
  // "0,1,0" -> {"", "1", "0"}: jit-cdi maps the empty slot to none.
  EXPECT_EQ(cdi_device_requests({"", "1", "0"}, kJitCdiKind),
            (Strings{"runtime.nvidia.com/gpu=none", "runtime.nvidia.com/gpu=1",
                     "runtime.nvidia.com/gpu=0"}));
}

TEST(CdiAnnotationKey, DeviceIdSlashesBecomeUnderscores) {
  auto key = cdi_annotation_key("nvidia-device-plugin", "GPU0/MIG1");
  ASSERT_TRUE(key) << key.error().message();
  EXPECT_EQ(*key, "cdi.k8s.io/nvidia-device-plugin_GPU0_MIG1");
}

TEST(CdiAnnotationKey, RejectsLongOrBadNames) {
  EXPECT_FALSE(cdi_annotation_key(std::string(60, 'a'), "1234"));
  EXPECT_TRUE(cdi_annotation_key(std::string(58, 'a'), "1234"));
  EXPECT_FALSE(cdi_annotation_key("plugin", "dev-"));
  EXPECT_FALSE(cdi_annotation_key("-plugin", "0"));
  EXPECT_FALSE(cdi_annotation_key("plugin", "a=b"));
}

}  // namespace
}  // namespace nvct::request
