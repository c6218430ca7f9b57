#include "nvct/driver/libraries.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "elf_writer.hpp"
#include "nvct/base/file.hpp"
#include "synthetic_root.hpp"

namespace nvct::driver {
namespace {

constexpr const char* kLibrariesDir = "/usr/lib/x86_64-linux-gnu";
constexpr const char* kLib32 = "/usr/lib/i386-linux-gnu";

std::vector<std::string> paths(const std::vector<DriverLibrary>& libs) {
  std::vector<std::string> out;
  for (const auto& l : libs) out.push_back(l.path);
  return out;
}

LdCache load(const testing::SyntheticRoot& r) {
  return *parse_ldcache(*read_file(r / "etc/ld.so.cache"));
}

TEST(DriverVersionFilter, BasenameMustEndWithTheVersion) {
  EXPECT_TRUE(matches_driver_version("/usr/lib/libcuda.so.550.54.14", "550.54.14"));
  EXPECT_FALSE(matches_driver_version("/usr/lib/libnvidia-fbc.so.535.00.01", "550.54.14"));
  EXPECT_FALSE(matches_driver_version("/usr/lib/libcuda.so.1", "550.54.14"));
  EXPECT_FALSE(matches_driver_version("/550.54.14/libcuda.so", "550.54.14"));
  EXPECT_FALSE(matches_driver_version("/usr/lib/libcuda.so.550.54.14", ""));
}

TEST(LibrarySelection, ResolvesSonameLinksAndKeepsListOrder) {
  testing::SyntheticRoot r;
  r.library(kLibrariesDir, "libcuda.so.550.54.14", "libcuda.so.1");
  r.library(kLibrariesDir, "libnvidia-ml.so.550.54.14", "libnvidia-ml.so.1");
  r.write_cache();
  auto libs =
      select_libraries(load(r), *DriverRoot::open(r.path()), kLdArchX8664, "550.54.14", false);
  // utility before compute, whatever the cache order.
  EXPECT_EQ(paths(libs), (std::vector<std::string>{std::string(kLibrariesDir) + "/libnvidia-ml.so.550.54.14",
                                                   std::string(kLibrariesDir) + "/libcuda.so.550.54.14"}));
  EXPECT_EQ(libs[0].capability, Capability::kUtility);
  EXPECT_EQ(libs[1].capability, Capability::kCompute);
}

TEST(LibrarySelection, OtherDriverVersionIsSkipped) {
  testing::SyntheticRoot r;
  r.library("/opt/old", "libnvidia-fbc.so.535.00.01", "libnvidia-fbc.so.1");
  r.write_cache();
  auto libs =
      select_libraries(load(r), *DriverRoot::open(r.path()), kLdArchX8664, "550.54.14", false);
  EXPECT_TRUE(libs.empty());
}

TEST(LibrarySelection, LaterAcceptedEntryReplacesTheEarlierPick) {
  testing::SyntheticRoot r;
  r.library("/a", "libcuda.so.550.54.14", "libcuda.so.1");
  r.library("/b", "libcuda.so.550.54.14", "libcuda.so.1");
  r.write_cache();
  auto libs =
      select_libraries(load(r), *DriverRoot::open(r.path()), kLdArchX8664, "550.54.14", false);
  EXPECT_EQ(paths(libs), (std::vector<std::string>{"/b/libcuda.so.550.54.14"}));
}

TEST(LibrarySelection, FirstMatchingPrefixOnlyAndNoFalsePrefixes) {
  testing::SyntheticRoot r;
  // "libnvidia-pkcs11-openssl3.so" is its own name, not "libnvidia-pkcs11.so"; "libcudadebugger"
  // does not start with "libcuda.so".
  r.library(kLibrariesDir, "libnvidia-pkcs11-openssl3.so.550.54.14",
            "libnvidia-pkcs11-openssl3.so.550.54.14");
  r.library(kLibrariesDir, "libcudadebugger.so.550.54.14", "libcudadebugger.so.1");
  r.library(kLibrariesDir, "libnvidia-egl-wayland.so.1.1.13", "libnvidia-egl-wayland.so.1");  // never listed
  r.write_cache();
  auto libs =
      select_libraries(load(r), *DriverRoot::open(r.path()), kLdArchX8664, "550.54.14", false);
  ASSERT_EQ(libs.size(), 2u);
  EXPECT_EQ(libs[0].name, "libcudadebugger.so");
  EXPECT_EQ(libs[1].name, "libnvidia-pkcs11-openssl3.so");
}

TEST(LibrarySelection, ArchitectureSelectsNativeOrCompat32) {
  testing::SyntheticRoot r;
  r.library(kLibrariesDir, "libcuda.so.550.54.14", "libcuda.so.1", 0x0303);
  r.library(kLib32, "libcuda.so.550.54.14", "libcuda.so.1", 0x0003);
  r.write_cache(/*old_prefix=*/true);
  auto root = *DriverRoot::open(r.path());
  EXPECT_EQ(paths(select_libraries(load(r), root, kLdArchX8664, "550.54.14", false)),
            (std::vector<std::string>{std::string(kLibrariesDir) + "/libcuda.so.550.54.14"}));
  EXPECT_EQ(paths(select_libraries(load(r), root, kLdArchI386, "550.54.14", true)),
            (std::vector<std::string>{std::string(kLib32) + "/libcuda.so.550.54.14"}));
}

TEST(LibrarySelection, NonElfAndDanglingEntriesAreSkipped) {
  testing::SyntheticRoot r;
  r.file("/usr/lib/libcuda.so.550.54.14", "not an elf");
  r.cache_entry(0x0303, "libcuda.so.1", "/usr/lib/libcuda.so.550.54.14");
  r.cache_entry(0x0303, "libnvidia-ml.so.1", "/nowhere/libnvidia-ml.so.550.54.14");
  r.write_cache();
  auto libs =
      select_libraries(load(r), *DriverRoot::open(r.path()), kLdArchX8664, "550.54.14", false);
  EXPECT_TRUE(libs.empty());
}

TEST(LibrarySelection, CacheValuesCannotPointOutsideTheRoot) {
  testing::SyntheticRoot r;
  std::filesystem::create_directories(r / "usr/lib");
  // A hostile cache and link aiming at the host's files resolve inside the root only.
  std::filesystem::create_symlink("../../../../../../../usr/lib/x86_64-linux-gnu",
                                  r / "usr/lib/evil");
  r.cache_entry(0x0303, "libcuda.so.1", "/../../../../lib/x86_64-linux-gnu/libc.so.6");
  r.cache_entry(0x0303, "libnvidia-ml.so.1", "/usr/lib/evil/libc.so.6");
  r.write_cache();
  auto libs = select_libraries(load(r), *DriverRoot::open(r.path()), kLdArchX8664, "6", false);
  EXPECT_TRUE(libs.empty());
}

TEST(LibrarySelection, NvidiaTlsNeedsTheLinuxAbiTag) {
  testing::SyntheticRoot untagged;
  untagged.library(kLibrariesDir, "libnvidia-tls.so.550.54.14", "libnvidia-tls.so.550.54.14");
  untagged.write_cache();
  EXPECT_TRUE(select_libraries(load(untagged), *DriverRoot::open(untagged.path()), kLdArchX8664,
                               "550.54.14", false)
                  .empty());
  testing::SyntheticRoot tagged;
  tagged.file(std::string(kLibrariesDir) + "/libnvidia-tls.so.550.54.14",
              testing::build_elf(testing::AbiNoteSpec{0, 2, 3, 99}));
  tagged.cache_entry(0x0303, "libnvidia-tls.so.550.54.14",
                     std::string(kLibrariesDir) + "/libnvidia-tls.so.550.54.14");
  tagged.write_cache();
  EXPECT_EQ(paths(select_libraries(load(tagged), *DriverRoot::open(tagged.path()), kLdArchX8664,
                                   "550.54.14", false)),
            (std::vector<std::string>{std::string(kLibrariesDir) + "/libnvidia-tls.so.550.54.14"}));
  testing::SyntheticRoot other;
  other.file(std::string(kLibrariesDir) + "/libnvidia-tls.so.550.54.14",
             testing::build_elf(testing::AbiNoteSpec{0, 2, 6, 32}));
  other.cache_entry(0x0303, "libnvidia-tls.so.550.54.14",
                    std::string(kLibrariesDir) + "/libnvidia-tls.so.550.54.14");
  other.write_cache();
  EXPECT_TRUE(select_libraries(load(other), *DriverRoot::open(other.path()), kLdArchX8664,
                               "550.54.14", false)
                  .empty());
}

TEST(FindLibrary, CacheFirstThenDefaultDirectories) {
  testing::SyntheticRoot r;
  r.library(kLibrariesDir, "libnvidia-ml.so.550.54.14", "libnvidia-ml.so.1");
  r.write_cache();
  auto root = *DriverRoot::open(r.path());
  auto cache = load(r);
  EXPECT_EQ(*find_library(&cache, root, kLdArchX8664, "libnvidia-ml.so.1"),
            std::string(kLibrariesDir) + "/libnvidia-ml.so.550.54.14");
  EXPECT_EQ(*find_library(nullptr, root, kLdArchX8664, "libnvidia-ml.so.1"),
            std::string(kLibrariesDir) + "/libnvidia-ml.so.550.54.14");
  auto missing = find_library(&cache, root, kLdArchX8664, "libnope.so.1");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message(),
            "libnope.so.1: cannot open shared object file: no such file or directory");
}

TEST(FindBinaries, FirstPathHitThatIsARegularExecutable) {
  testing::SyntheticRoot r;
  r.file("/usr/local/bin/nvidia-smi", "", 0644);  // not executable: skipped
  r.file("/usr/bin/nvidia-smi", "", 0755);
  r.file("/bin/nvidia-smi", "", 0755);
  r.file("/usr/bin/nvidia-cuda-mps-control", "", 0755);
  std::filesystem::create_directories(r / "usr/sbin/nvidia-persistenced");  // a directory
  auto bins =
      find_binaries(*DriverRoot::open(r.path()), "/usr/local/bin:/usr/sbin:/usr/bin:/bin:relative",
                    driver_binary_names());
  ASSERT_EQ(bins.size(), 2u);
  EXPECT_EQ(bins[0].path, "/usr/bin/nvidia-smi");
  EXPECT_EQ(bins[0].found_at, "/usr/bin/nvidia-smi");
  EXPECT_EQ(bins[0].capability, Capability::kUtility);
  EXPECT_EQ(bins[1].path, "/usr/bin/nvidia-cuda-mps-control");
  EXPECT_EQ(bins[1].capability, Capability::kCompute);
}

// Debian: /usr/bin/nvidia-smi -> /etc/alternatives/nvidia-smi -> /usr/lib/nvidia/current/...,
// absolute links resolved inside the root; found_at keeps where PATH found it.
TEST(FindBinaries, AlternativesLinksAreResolvedInTheRootAndTheirPathKept) {
  testing::SyntheticRoot r;
  r.file("/usr/lib/nvidia/current/nvidia-smi", "", 0755);
  std::filesystem::create_directories(r / "etc/alternatives");
  std::filesystem::create_directories(r / "usr/bin");
  std::filesystem::create_symlink("/usr/lib/nvidia/current/nvidia-smi",
                                  r / "etc/alternatives/nvidia-smi");
  std::filesystem::create_symlink("/etc/alternatives/nvidia-smi", r / "usr/bin/nvidia-smi");
  auto bins = find_binaries(*DriverRoot::open(r.path()), "/usr/local/bin/:/usr/bin/",
                            driver_binary_names());
  ASSERT_EQ(bins.size(), 1u);
  EXPECT_EQ(bins[0].path, "/usr/lib/nvidia/current/nvidia-smi");
  EXPECT_EQ(bins[0].found_at, "/usr/bin/nvidia-smi");
}

// cdi.md §6.3: a CDI spec has no nv-fabricmanager (the host runs it) but the IMEX programs.
TEST(FindBinaries, CdiListHasImexButNotTheFabricManager) {
  testing::SyntheticRoot r;
  for (const char* b : {"nvidia-smi", "nv-fabricmanager", "nvidia-imex", "nvidia-imex-ctl"})
    r.file(std::string("/usr/bin/") + b, "", 0755);
  auto bins = find_binaries(*DriverRoot::open(r.path()), "/usr/bin", cdi_binary_names());
  std::vector<std::string> names;
  for (const auto& b : bins) names.emplace_back(b.name);
  EXPECT_EQ(names, (std::vector<std::string>{"nvidia-smi", "nvidia-imex", "nvidia-imex-ctl"}));
}

TEST(DriverFileNames, ListsFollowTheSpecOrder) {
  const auto& libs = driver_library_names();
  EXPECT_EQ(libs.front().name, "libnvidia-ml.so");
  EXPECT_EQ(libs.back().name, "libnvidia-cbl.so");
  EXPECT_EQ(libs.size(), 33u);
  const auto& bins = driver_binary_names();
  EXPECT_EQ(bins.size(), 6u);
  EXPECT_EQ(capability_name(Capability::kNgx), "ngx");
}

}  // namespace
}  // namespace nvct::driver
