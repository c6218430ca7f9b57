// The WSL2 driver store and libdxcore.so lookups (driver.md §14; discovery rule in
// wsl_driver_store.hpp).
#include "nvct/driver/wsl_driver_store.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::driver {
namespace {

using Files = std::vector<std::string>;

constexpr const char* kStore = "usr/lib/wsl/drivers/nv_dispi.inf_amd64_0123456789abcdef";

DriverRoot open_root(const nvct::testing::TempDir& dir) {
  auto root = DriverRoot::open(dir.path());
  EXPECT_TRUE(root) << root.error().message();
  return *root;
}

TEST(WslDriverStore, StoreWithLibcudaListsThePresentFilesInMountOrder) {
  nvct::testing::TempDir dir;
  for (const char* f :
       {"nvidia-smi", "libcuda.so.1.1", "libnvidia-ml.so.1", "nvcubins.bin", "unrelated.dll"})
    dir.write(std::string(kStore) + "/" + f, "x");
  auto stores = find_wsl_driver_stores(open_root(dir));
  ASSERT_TRUE(stores) << stores.error().message();
  ASSERT_EQ(stores->size(), 1u);
  EXPECT_EQ((*stores)[0].path, std::string("/") + kStore);
  EXPECT_EQ((*stores)[0].files,
            (Files{"libcuda.so.1.1", "libnvidia-ml.so.1", "nvcubins.bin", "nvidia-smi"}));
}

TEST(WslDriverStore, OnlyNvmlIsEnoughAndOtherVendorsStoresAreIgnored) {
  nvct::testing::TempDir dir;
  dir.write("usr/lib/wsl/drivers/b_nvidia/libnvidia-ml.so.1", "x");
  dir.write("usr/lib/wsl/drivers/a_other_vendor/libd3d12core.so", "x");
  dir.write("usr/lib/wsl/drivers/c_nvidia/libcuda.so.1.1", "x");
  dir.write("usr/lib/wsl/drivers/not_a_dir", "x");
  auto stores = find_wsl_driver_stores(open_root(dir));
  ASSERT_TRUE(stores) << stores.error().message();
  ASSERT_EQ(stores->size(), 2u);
  EXPECT_EQ((*stores)[0].path, "/usr/lib/wsl/drivers/b_nvidia");
  EXPECT_EQ((*stores)[0].files, (Files{"libnvidia-ml.so.1"}));
  EXPECT_EQ((*stores)[1].path, "/usr/lib/wsl/drivers/c_nvidia");
}

TEST(WslDriverStore, NoStoreIsAnErrorNamingTheDirectoryAndTheFiles) {
  nvct::testing::TempDir dir;
  dir.write("usr/lib/wsl/drivers/empty/readme.txt", "x");
  auto stores = find_wsl_driver_stores(open_root(dir));
  ASSERT_FALSE(stores);
  EXPECT_EQ(stores.error().code(), ENOENT);
  EXPECT_NE(stores.error().message().find(dir.path() + "/usr/lib/wsl/drivers"), std::string::npos)
      << stores.error().message();
  EXPECT_NE(stores.error().message().find("libcuda.so.1.1 or libnvidia-ml.so.1"),
            std::string::npos);
  nvct::testing::TempDir bare;
  EXPECT_FALSE(find_wsl_driver_stores(open_root(bare)));
}

TEST(WslDriverStore, AStoreLinkLeadingOutOfTheRootStaysInside) {
  nvct::testing::TempDir dir;
  nvct::testing::TempDir outside;
  outside.write("libcuda.so.1.1", "x");
  dir.write("usr/lib/wsl/drivers/.keep", "");
  // An absolute target is taken inside the root, where it does not exist.
  ASSERT_EQ(::symlink(outside.path().c_str(), (dir / "usr/lib/wsl/drivers/escape").c_str()), 0);
  dir.write("store/libcuda.so.1.1", "x");
  ASSERT_EQ(::symlink("/store", (dir / "usr/lib/wsl/drivers/linked").c_str()), 0);
  auto stores = find_wsl_driver_stores(open_root(dir));
  ASSERT_TRUE(stores) << stores.error().message();
  ASSERT_EQ(stores->size(), 1u);
  EXPECT_EQ((*stores)[0].path, "/store");
}

TEST(WslDxcore, FoundInTheDefaultWslLibDirectory) {
  nvct::testing::TempDir dir;
  dir.write("usr/lib/wsl/lib/libdxcore.so", "x");
  auto found = find_dxcore(open_root(dir), {});
  ASSERT_TRUE(found) << found.error().message();
  EXPECT_EQ(*found, "/usr/lib/wsl/lib/libdxcore.so");
}

TEST(WslDxcore, SearchPathsReplaceTheDefaultInOrder) {
  nvct::testing::TempDir dir;
  dir.write("usr/lib/wsl/lib/libdxcore.so", "x");
  dir.write("opt/b/libdxcore.so", "x");
  auto found = find_dxcore(open_root(dir), {"/opt/a", "/opt/b"});
  ASSERT_TRUE(found) << found.error().message();
  EXPECT_EQ(*found, "/opt/b/libdxcore.so");
  auto missing = find_dxcore(open_root(dir), {"/opt/a"});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("libdxcore.so not found in " + dir.path() + "/opt/a"),
            std::string::npos)
      << missing.error().message();
}

TEST(WslDxcore, MissingIsAnErrorNamingTheDefaultDirectory) {
  nvct::testing::TempDir dir;
  auto found = find_dxcore(open_root(dir), {});
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error().code(), ENOENT);
  EXPECT_NE(found.error().message().find(dir.path() + "/usr/lib/wsl/lib"), std::string::npos);
}

}  // namespace
}  // namespace nvct::driver
