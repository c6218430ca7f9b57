#include "nvct/cdi_hooks/cuda_compat.hpp"

#include <filesystem>

#include "elf_writer.hpp"
#include "hook_fixture.hpp"

namespace nvct::cdi_hooks {
namespace {

using testing::HookTest;
using testing::make_elf;
using testing::mode_of;
namespace fs = std::filesystem;

std::vector<std::string> confs(const std::string& dir) {
  std::vector<std::string> out;
  if (!fs::exists(dir)) return out;
  for (auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename());
  return out;
}

struct NewerRow {
  const char* lib;
  std::optional<std::string> note;
  const char* host_driver;
  const char* host_cuda;
  bool newer;
};

TEST(CudaCompatDecision, NoteVersusHostCudaElseDriverMajors) {
  const NewerRow rows[] = {
      {"560.35.03", std::nullopt, "550.54.14", "", true},
      {"550.90.07", std::nullopt, "550.54.14", "", false},
      {"535.1", std::nullopt, "550.54.14", "", false},
      {"560.35.03", std::nullopt, "", "12.4", false},
      {"560.35.03", "12.6", "", "12.4", true},
      {"560.35.03", "12.4", "", "12.4", false},
      {"560.35.03", "12.4", "999.1", "12.8", false},
      {"560.35.03", "12.6", "999.1", "", false},
      {"560.35.03", "12.6", "550.1", "", true},
      {"garbage", std::nullopt, "550.1", "", false},
  };
  for (const auto& r : rows) {
    CudaCompatOptions o;
    o.host_driver_version = r.host_driver;
    o.host_cuda_version = r.host_cuda;
    EXPECT_EQ(compat_is_newer(r.lib, r.note, o), r.newer)
        << r.lib << " note=" << r.note.value_or("-") << " driver=" << r.host_driver
        << " cuda=" << r.host_cuda;
  }
}

class CudaCompat : public HookTest {};
NVCT_HOOK_TEST_P(CudaCompat);

TEST_P(CudaCompat, NewerCompatLibraryGetsA0644DropIn) {
  sb.write("rootfs/usr/local/cuda/compat/libcuda.so.560.35.03", make_elf({}));
  sb.symlink("libcuda.so.560.35.03", "rootfs/usr/local/cuda/compat/libcuda.so.1");
  CudaCompatOptions o;
  o.host_driver_version = "550.54.14";
  auto r = enable_cuda_compat(root(), o);
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_TRUE(r->has_value());
  auto files = confs(sb.path("rootfs/etc/ld.so.conf.d"));
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].rfind("00-compat-", 0), 0u);
  std::string p = sb.path("rootfs/etc/ld.so.conf.d/" + files[0]);
  EXPECT_EQ(mount::testing::read_text(p), "/usr/local/cuda/compat\n");
  EXPECT_EQ(mode_of(p), 0644u);
}

TEST_P(CudaCompat, OlderCompatLibraryIsANoOp) {
  sb.write("rootfs/usr/local/cuda/compat/libcuda.so.535.1.1", make_elf({}));
  CudaCompatOptions o;
  o.host_driver_version = "550.54.14";
  auto r = enable_cuda_compat(root(), o);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_FALSE(r->has_value());
  EXPECT_FALSE(sb.exists("rootfs/etc"));
}

TEST_P(CudaCompat, NoVersionGivenIsANoOp) {
  sb.write("rootfs/usr/local/cuda/compat/libcuda.so.560.35.03", make_elf({}));
  auto r = enable_cuda_compat(root(), CudaCompatOptions{});
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->has_value());
}

TEST_P(CudaCompat, MissingCompatDirIsANoOp) {
  CudaCompatOptions o;
  o.host_driver_version = "550.54.14";
  auto r = enable_cuda_compat(root(), o);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_FALSE(r->has_value());
}

TEST_P(CudaCompat, TwoCompatLibrariesAreANoOp) {
  sb.write("rootfs/usr/local/cuda/compat/libcuda.so.560.35.03", make_elf({}));
  sb.write("rootfs/usr/local/cuda/compat/libcuda.so.570.1.1", make_elf({}));
  CudaCompatOptions o;
  o.host_driver_version = "550.54.14";
  auto r = enable_cuda_compat(root(), o);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->has_value());
}

TEST_P(CudaCompat, TheElfNoteDecidesWhenTheHostCudaVersionIsGiven) {
  sb.write("rootfs/usr/local/cuda/compat/libcuda.so.560.35.03", make_elf({{"NVIDIA", 1, "12.6"}}));
  CudaCompatOptions o;
  o.host_driver_version = "999.1.1";  // the driver major alone would say "not newer"
  o.host_cuda_version = "12.4";
  auto r = enable_cuda_compat(root(), o);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(r->has_value());
}

TEST_P(CudaCompat, CustomCompatRootIsListed) {
  sb.write("rootfs/opt/compat/libcuda.so.560.35.03", make_elf({}));
  CudaCompatOptions o;
  o.host_driver_version = "550.54.14";
  o.compat_container_root = "/opt/compat";
  auto r = enable_cuda_compat(root(), o);
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ(mount::testing::read_text(sb.path("rootfs" + **r)), "/opt/compat\n");
}

TEST_P(CudaCompat, ACompatLibraryThatIsAFifoIsRefusedWithoutBlocking) {
  sb.mkdir("rootfs/usr/local/cuda/compat");
  ASSERT_EQ(::mkfifo(sb.path("rootfs/usr/local/cuda/compat/libcuda.so.560.35.03").c_str(), 0644),
            0);
  CudaCompatOptions o;
  o.host_driver_version = "550.54.14";
  auto r = enable_cuda_compat(root(), o);
  EXPECT_FALSE(r);
}

}  // namespace
}  // namespace nvct::cdi_hooks
