// CDI-only driver libraries (cdi.md §6.3): every *.so.<version> of the ldcache unless
// enable-explicit-driver-libraries, --library-search-path directories, vdpau next to the driver
// libraries, libnvidia-nvvm70.so.*.
#include "nvct/cdi/generate_libraries.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::cdi {
namespace {

constexpr const char* kLib = "lib/x86_64-linux-gnu";
constexpr const char* kVersion = "999.88.77";

class GenerateLibraries : public ::testing::Test {
 protected:
  void SetUp() override {
    elf(std::string(kLib) + "/libcuda.so.999.88.77");
    elf(std::string(kLib) + "/libnvidia-gtk3.so.999.88.77");  // not in the explicit list
    elf(std::string(kLib) + "/libnvidia-nvvm70.so.4");        // not driver-versioned
    elf(std::string(kLib) + "/vdpau/libvdpau_nvidia.so.999.88.77");
    elf(std::string(kLib) + "/libother.so.1.2.3");  // another version: never
    dir_.write(std::string(kLib) + "/libnvidia-text.so.999.88.77", "not an ELF file");
    elf("opt/extra/libnvidia-extra.so.999.88.77");
    elf("opt/extra/libnvidia-nvvm70.so.4.0.0");
    auto root = driver::DriverRoot::open(dir_.path());
    ASSERT_TRUE(root) << root.error().message();
    root_.emplace(std::move(*root));
    info_.nvrm_version = kVersion;
    info_.libs.push_back({"libcuda.so", driver::Capability::kCompute,
                          "/" + std::string(kLib) + "/libcuda.so.999.88.77"});
    for (const char* f :
         {"libcuda.so.999.88.77", "libnvidia-gtk3.so.999.88.77", "libnvidia-nvvm70.so.4",
          "libother.so.1.2.3", "libnvidia-text.so.999.88.77"})
      entry(f);
  }

  void elf(const std::string& rel) {
    dir_.write(rel, std::string("\x7f"
                                "ELF\x02\x01\x01",
                                7));
  }

  void entry(const std::string& file) {
    std::string key = file.substr(0, file.find(".so.") + 5);  // a soname-like key
    if (file.find("nvvm70") != std::string::npos) key = file;
    cache_.entries.push_back(driver::LdCacheEntry{
        static_cast<std::int32_t>(driver::kLdTypeElf | driver::native_ldcache_arch()), key,
        "/" + std::string(kLib) + "/" + file});
  }

  std::vector<std::string> paths() const {
    std::vector<std::string> out;
    for (const auto& l : info_.libs) out.push_back(l.path);
    return out;
  }

  nvct::testing::TempDir dir_;
  std::optional<driver::DriverRoot> root_;
  driver::LdCache cache_;
  driver::DriverInfo info_;
};

TEST_F(GenerateLibraries, VersionedLdcacheLibrariesVdpauAndNvvm70) {
  add_cdi_libraries(info_, *root_, &cache_, {});
  EXPECT_EQ(paths(),
            (std::vector<std::string>{"/lib/x86_64-linux-gnu/libcuda.so.999.88.77",
                                      "/lib/x86_64-linux-gnu/libnvidia-gtk3.so.999.88.77",
                                      "/lib/x86_64-linux-gnu/libnvidia-nvvm70.so.4",
                                      "/lib/x86_64-linux-gnu/vdpau/libvdpau_nvidia.so.999.88.77"}));
}

TEST_F(GenerateLibraries, ExplicitDriverLibrariesKeepOnlyTheListButStillNvvm70AndVdpau) {
  add_cdi_libraries(info_, *root_, &cache_, {.search_paths = {}, .explicit_only = true});
  EXPECT_EQ(paths(),
            (std::vector<std::string>{"/lib/x86_64-linux-gnu/libcuda.so.999.88.77",
                                      "/lib/x86_64-linux-gnu/libnvidia-nvvm70.so.4",
                                      "/lib/x86_64-linux-gnu/vdpau/libvdpau_nvidia.so.999.88.77"}));
}

TEST_F(GenerateLibraries, LibrarySearchPathsAddTheirVersionedLibrariesAndNvvm70) {
  add_cdi_libraries(info_, *root_, &cache_,
                    {.search_paths = {"/opt/extra"}, .explicit_only = false});
  auto p = paths();
  EXPECT_NE(std::find(p.begin(), p.end(), "/opt/extra/libnvidia-extra.so.999.88.77"), p.end());
  EXPECT_NE(std::find(p.begin(), p.end(), "/opt/extra/libnvidia-nvvm70.so.4.0.0"), p.end());
}

// The cache names a soname link (libGL.so.1); the version filter looks at the file it resolves
// to, as the reference: libGL.so.<driver version> is a driver library, libGL.so.1.7.0 is not.
TEST_F(GenerateLibraries, SonameEntriesAreFilteredByTheFileTheyResolveTo) {
  elf(std::string(kLib) + "/libGL.so.999.88.77");
  ASSERT_EQ(::symlink("libGL.so.999.88.77", (dir_ / (std::string(kLib) + "/libGL.so.1")).c_str()),
            0);
  elf(std::string(kLib) + "/libEGL.so.1.1.0");  // glvnd's, not the driver's
  ASSERT_EQ(::symlink("libEGL.so.1.1.0", (dir_ / (std::string(kLib) + "/libEGL.so.1")).c_str()), 0);
  for (const char* soname : {"libGL.so.1", "libEGL.so.1"})
    cache_.entries.push_back(driver::LdCacheEntry{
        static_cast<std::int32_t>(driver::kLdTypeElf | driver::native_ldcache_arch()), soname,
        "/" + std::string(kLib) + "/" + soname});
  add_cdi_libraries(info_, *root_, &cache_, {});
  auto p = paths();
  EXPECT_EQ(std::count(p.begin(), p.end(), "/lib/x86_64-linux-gnu/libGL.so.999.88.77"), 1);
  EXPECT_EQ(std::count(p.begin(), p.end(), "/lib/x86_64-linux-gnu/libEGL.so.1.1.0"), 0);
}

TEST_F(GenerateLibraries, WithoutSearchPathTheDirectoryIsNotLookedAt) {
  add_cdi_libraries(info_, *root_, &cache_, {});
  for (const auto& p : paths()) EXPECT_EQ(p.find("/opt/extra"), std::string::npos) << p;
}

TEST_F(GenerateLibraries, MissingSearchPathIsSkipped) {
  add_cdi_libraries(info_, *root_, &cache_,
                    {.search_paths = {"/nonexistent"}, .explicit_only = false});
  EXPECT_EQ(paths().size(), 4u);
}

TEST_F(GenerateLibraries, NoLdcacheStillFindsVdpauNextToKnownLibraries) {
  add_cdi_libraries(info_, *root_, nullptr, {});
  EXPECT_EQ(paths(),
            (std::vector<std::string>{"/lib/x86_64-linux-gnu/libcuda.so.999.88.77",
                                      "/lib/x86_64-linux-gnu/vdpau/libvdpau_nvidia.so.999.88.77"}));
}

TEST_F(GenerateLibraries, SymlinkedEntriesResolveToTheRealFileOnce) {
  ASSERT_EQ(::symlink("libnvidia-nvvm70.so.4",
                      (dir_ / (std::string(kLib) + "/libnvidia-nvvm70.so")).c_str()),
            0);
  cache_.entries.push_back(driver::LdCacheEntry{
      static_cast<std::int32_t>(driver::kLdTypeElf | driver::native_ldcache_arch()),
      "libnvidia-nvvm70.so", "/lib/x86_64-linux-gnu/libnvidia-nvvm70.so"});
  add_cdi_libraries(info_, *root_, &cache_, {});
  auto p = paths();
  EXPECT_EQ(std::count(p.begin(), p.end(), "/lib/x86_64-linux-gnu/libnvidia-nvvm70.so.4"), 1);
}

}  // namespace
}  // namespace nvct::cdi
