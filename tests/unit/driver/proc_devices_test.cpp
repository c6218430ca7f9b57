#include "nvct/driver/proc_devices.hpp"

#include <gtest/gtest.h>

#include "nvct/base/file.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::driver {
namespace {

TEST(ReadProcDevices, TheRootsOwnFileWhenItHasOne) {
  nvct::testing::TempDir dir;
  dir.write("proc/devices", "Character devices:\n195 nvidia\n235 nvidia-caps\n\n");
  auto text = read_proc_devices(*DriverRoot::open(dir.path()));
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_EQ(*text, "Character devices:\n195 nvidia\n235 nvidia-caps\n\n");
}

TEST(ReadProcDevices, TheHostsWhenTheRootHasNone) {
  // Only the driver's files, as an unpacked driver package: the kernel is the host's.
  nvct::testing::TempDir dir;
  dir.write("usr/lib/x86_64-linux-gnu/libcuda.so.1", "ELF");
  auto host = read_file("/proc/devices", 64 * 1024);
  ASSERT_TRUE(host) << "this test needs the host's /proc/devices";
  auto text = read_proc_devices(*DriverRoot::open(dir.path()));
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_EQ(*text, *host);
}

TEST(ReadProcDevices, AnUnreadableFileOfTheRootIsNotReplaced) {
  // A directory where the file should be is the root's mistake, not a reason to read another.
  nvct::testing::TempDir dir;
  dir.write("proc/devices/x", "");
  EXPECT_FALSE(read_proc_devices(*DriverRoot::open(dir.path())));
}

}  // namespace
}  // namespace nvct::driver
