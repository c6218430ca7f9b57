#include "nvct/config/config.hpp"

#include <gtest/gtest.h>

#include "fake_host.hpp"

namespace nvct::config {
namespace {

using testing::FakeHost;

TEST(DefaultConfig, MatchesSpecKeyTable) {
  Config c = default_config(FakeHost());
  EXPECT_FALSE(c.disable_require);
  EXPECT_EQ(c.swarm_resource, "");
  EXPECT_TRUE(c.accept_envvar_unprivileged);
  EXPECT_FALSE(c.accept_volume_mounts);
  EXPECT_EQ(c.supported_driver_capabilities, "compat32,compute,display,graphics,ngx,utility,video");
  EXPECT_EQ(c.cli.root, "");
  EXPECT_EQ(c.cli.path, "");
  EXPECT_TRUE(c.cli.environment.empty());
  EXPECT_EQ(c.cli.debug, "");
  EXPECT_EQ(c.cli.ldcache, "");
  EXPECT_TRUE(c.cli.load_kmods);
  EXPECT_FALSE(c.cli.no_pivot);
  EXPECT_FALSE(c.cli.no_cgroups);
  EXPECT_EQ(c.cli.user, "");
  EXPECT_EQ(c.cli.ldconfig, "@/sbin/ldconfig");
  EXPECT_EQ(c.runtime.debug, "/dev/null");
  EXPECT_EQ(c.runtime.log_level, "info");
  EXPECT_EQ(c.runtime.runtimes, (std::vector<std::string>{"runc", "crun"}));
  EXPECT_EQ(c.runtime.mode, "auto");
  EXPECT_EQ(c.runtime.csv.mount_spec_path,
            "/etc/nvidia-container-runtime/host-files-for-container.d");
  EXPECT_EQ(c.runtime.csv.compat_container_root, "");
  EXPECT_EQ(c.runtime.cdi.spec_dirs, (std::vector<std::string>{"/etc/cdi", "/var/run/cdi"}));
  EXPECT_EQ(c.runtime.cdi.default_kind, "nvidia.com/gpu");
  EXPECT_EQ(c.runtime.cdi.annotation_prefixes, (std::vector<std::string>{"cdi.k8s.io/"}));
  EXPECT_FALSE(c.runtime.jit_cdi.nvcdi_feature_flags.has_value());
  EXPECT_FALSE(c.runtime.jit_cdi.nvcdi_disable_hooks.has_value());
  EXPECT_EQ(c.runtime.legacy.cuda_compat_mode, "ldconfig");
  EXPECT_EQ(c.hook.path, "nvidia-container-runtime-hook");
  EXPECT_FALSE(c.hook.skip_mode_detection);
  EXPECT_EQ(c.ctk.path, "nvidia-ctk");
}

TEST(DefaultConfig, FeatureFlagsAllOff) {
  Features f = default_config(FakeHost()).features;
  EXPECT_FALSE(f.allow_cuda_compat_libs_from_container);
  EXPECT_FALSE(f.allow_ldconfig_from_container);
  EXPECT_FALSE(f.allow_unknown_oci_spec_fields);
  EXPECT_FALSE(f.disable_cuda_compat_lib_hook);
  EXPECT_FALSE(f.disable_imex_channel_creation);
  EXPECT_FALSE(f.ignore_imex_channel_requests);
  EXPECT_FALSE(f.no_additional_gids_for_device_nodes);
}

TEST(DefaultConfig, LdconfigRealWhenItExists) {
  EXPECT_EQ(default_config(FakeHost({"/sbin/ldconfig.real"})).cli.ldconfig, "@/sbin/ldconfig.real");
}

TEST(DefaultConfig, SuseUserIsRootVideo) {
  EXPECT_EQ(default_config(FakeHost({}, "ID_LIKE=\"suse opensuse\"\n")).cli.user, "root:video");
}

}  // namespace
}  // namespace nvct::config
