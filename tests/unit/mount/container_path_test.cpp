#include "nvct/mount/container_path.hpp"

#include <gtest/gtest.h>

namespace nvct::mount {
namespace {

struct Row {
  const char* path;
  PathPolicy policy;
  const char* clean;  // nullptr: refused
};

class ContainerPath : public ::testing::TestWithParam<Row> {};

TEST_P(ContainerPath, CleansOrRefuses) {
  const Row& row = GetParam();
  auto r = clean_container_path(row.path, row.policy);
  if (row.clean) {
    ASSERT_TRUE(r) << row.path << ": " << r.error().message();
    EXPECT_EQ(*r, row.clean);
  } else {
    EXPECT_FALSE(r) << row.path << " was accepted as " << *r;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, ContainerPath,
    ::testing::Values(
        Row{"/usr/lib/x86_64-linux-gnu/libcuda.so.1", PathPolicy::kDefault,
            "/usr/lib/x86_64-linux-gnu/libcuda.so.1"},
        Row{"//usr/./lib//libcuda.so.1", PathPolicy::kDefault, "/usr/lib/libcuda.so.1"},
        Row{"/usr/lib/../../../../etc/x", PathPolicy::kDefault, "/etc/x"},
        Row{"relative/path", PathPolicy::kDefault, nullptr}, Row{"", PathPolicy::kDefault, nullptr},
        Row{"/", PathPolicy::kDefault, nullptr}, Row{"/usr/..", PathPolicy::kDefault, nullptr},
        Row{"/proc/self/root/x", PathPolicy::kDefault, nullptr},
        Row{"/usr/../proc/1/cwd", PathPolicy::kDefault, nullptr},
        Row{"/sys/fs/cgroup", PathPolicy::kDefault, nullptr},
        Row{"/sys/x", PathPolicy::kDevice, nullptr},
        Row{"/dev/nvidia0", PathPolicy::kDefault, nullptr},
        Row{"/dev/nvidia0", PathPolicy::kDevice, "/dev/nvidia0"},
        Row{"/dev/nvidia-caps/nvidia-cap1", PathPolicy::kDevice, "/dev/nvidia-caps/nvidia-cap1"},
        Row{"/dev/dri/card0", PathPolicy::kDevice, "/dev/dri/card0"},
        Row{"/dev/sda", PathPolicy::kDevice, nullptr},
        Row{"/usr/lib/nvidia0", PathPolicy::kDevice, nullptr},
        Row{"/proc/driver/nvidia", PathPolicy::kProcfs, "/proc/driver/nvidia"},
        Row{"/proc/driver/nvidia/gpus/0000:17:00.0", PathPolicy::kProcfs,
            "/proc/driver/nvidia/gpus/0000:17:00.0"},
        Row{"/proc/sys/kernel", PathPolicy::kProcfs, nullptr},
        Row{"/etc/x", PathPolicy::kProcfs, nullptr}));

TEST(ContainerPathNul, EmbeddedNulIsRefused) {
  EXPECT_FALSE(clean_container_path(std::string("/usr/lib\0/x", 11), PathPolicy::kDefault));
}

TEST(ContainerPathParts, DirnameAndBasename) {
  EXPECT_EQ(dirname_of("/usr/lib/x"), "/usr/lib");
  EXPECT_EQ(dirname_of("/x"), "/");
  EXPECT_EQ(basename_of("/usr/lib/x"), "x");
}

}  // namespace
}  // namespace nvct::mount
