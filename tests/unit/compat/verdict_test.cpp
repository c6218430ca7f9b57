#include "nvct/compat/verdict.hpp"

#include <gtest/gtest.h>

namespace nvct::compat {
namespace {

CodeEntry sass(std::uint32_t arch, std::optional<bool> a = false) {
  CodeEntry e;
  e.kind = EntryKind::sass;
  e.arch = arch;
  e.arch_specific = a;
  e.version_major = 1;
  e.version_minor = 7;
  return e;
}

CodeEntry ptx(std::uint32_t arch, std::uint16_t isa_major = 7, std::uint16_t isa_minor = 8,
              bool a = false) {
  CodeEntry e;
  e.kind = EntryKind::ptx;
  e.arch = arch;
  e.arch_specific = a;
  e.version_major = isa_major;
  e.version_minor = isa_minor;
  return e;
}

const std::vector<CodeEntry> kMulti = {sass(52), sass(70), sass(80), sass(90), ptx(90)};

// §6.2's examples.
TEST(CodeVerdict, NativeSameMajorLowerMinor) {
  auto v = judge_code(kMulti, "8.6", "12.4", false);
  EXPECT_EQ(v.verdict, Verdict::native);
  EXPECT_EQ(v.using_entry, "sm_80");
  EXPECT_EQ(v.message, "SASS sm_80 runs on sm_86 (same major, lower minor)");
  EXPECT_EQ(judge_code(kMulti, "9.0", "12.4", false).message, "SASS sm_90 runs on sm_90");
}

TEST(CodeVerdict, JitWhenNoSassForTheMajor) {
  auto v = judge_code(kMulti, "10.0", "12.8", false);
  EXPECT_EQ(v.verdict, Verdict::jit);
  EXPECT_EQ(v.message, "no SASS for sm_100; PTX compute_90 will be JIT-compiled (slow first start)");
}

TEST(CodeVerdict, PtxNewerThanTheGpu) {
  auto v = judge_code({ptx(90)}, "8.0", "12.4", false);
  EXPECT_EQ(v.verdict, Verdict::no_code);
  EXPECT_EQ(v.message, "no SASS or PTX for sm_80 (PTX compute_90 is newer than the GPU)");
}

TEST(CodeVerdict, SassNeverCrossesAMajor) {
  auto v = judge_code({sass(70)}, "8.0", "12.4", false);
  EXPECT_EQ(v.verdict, Verdict::no_code);
  EXPECT_EQ(v.message, "no SASS or PTX for sm_80 (SASS sm_70 runs only on 7.x)");
}

TEST(CodeVerdict, ArchSpecificTargetsRunOnlyOnTheirArch) {
  EXPECT_EQ(judge_code({sass(90, true)}, "9.0", "12.4", false).verdict, Verdict::native);
  EXPECT_EQ(judge_code({sass(90, true)}, "10.0", "12.8", false).verdict, Verdict::no_code);
  EXPECT_EQ(judge_code({sass(80), ptx(90, 8, 0, true)}, "10.0", "12.8", false).verdict,
            Verdict::no_code);
  // A compressed cubin's variant is unknown: treated as plain.
  EXPECT_EQ(judge_code({sass(86, std::nullopt)}, "8.9", "12.4", false).verdict, Verdict::native);
}

TEST(CodeVerdict, PtxIsaNewerThanTheDriver) {
  auto v = judge_code({ptx(80, 8, 4)}, "9.0", "12.2", false);
  EXPECT_EQ(v.verdict, Verdict::driver_too_old);
  EXPECT_NE(v.message.find("ISA 8.4 (needs a CUDA 12.4 driver)"), std::string::npos) << v.message;
  EXPECT_EQ(judge_code({ptx(80, 8, 4)}, "9.0", "12.4", false).verdict, Verdict::jit);
  EXPECT_EQ(judge_code({ptx(80, 8, 4)}, "9.0", std::nullopt, false).verdict, Verdict::jit);
}

TEST(CodeVerdict, DisablePtxJitTurnsJitIntoNoCode) {
  auto v = judge_code(kMulti, "10.0", "12.8", true);
  EXPECT_EQ(v.verdict, Verdict::no_code);
  EXPECT_NE(v.message.find("CUDA_DISABLE_PTX_JIT=1"), std::string::npos);
}

ImageRuntime image(const char* version) {
  ImageRuntime im;
  im.version = version;
  im.source = "libcudart";
  return im;
}

DriverFacts driver_host(const char* driver, const char* cuda) {
  DriverFacts d;
  d.version = driver;
  d.cuda_version = cuda;
  return d;
}

GpuFacts gpu(const char* model, Support s) {
  GpuFacts g;
  g.index = 0;
  g.model = model;
  g.arch = "8.0";
  g.forward_compat = s;
  return g;
}

TEST(RuntimeVerdict, R1Ok) {
  auto v = judge_runtime(image("12.2"), driver_host("550.54.14", "12.4"), false);
  EXPECT_EQ(v.verdict, Verdict::ok);
  EXPECT_EQ(v.message, "needs CUDA 12.2 (driver >= 535.54.03); driver 550.54.14 has CUDA 12.4");
}

TEST(RuntimeVerdict, R2MinorCompat) {
  auto v = judge_runtime(image("12.4"), driver_host("535.104.05", "12.2"), false);
  EXPECT_EQ(v.verdict, Verdict::minor_compat);
  EXPECT_EQ(v.message,
            "needs CUDA 12.4 (driver >= 550.54.14); driver 535.104.05 (CUDA 12.2) runs it by "
            "minor version compatibility with a limited feature set");
  // CUDA 10.x has no minor version compatibility.
  EXPECT_EQ(judge_runtime(image("10.2"), driver_host("418.39", "10.1"), false).verdict,
            Verdict::driver_too_old);
}

TEST(RuntimeVerdict, R5DriverTooOld) {
  auto v = judge_runtime(image("12.4"), driver_host("470.82.01", "11.4"), false);
  EXPECT_EQ(v.verdict, Verdict::driver_too_old);
  EXPECT_EQ(v.message,
            "needs CUDA 12.4 (driver >= 550.54.14); driver 470.82.01 supports CUDA 11.4; the image "
            "ships no forward-compat package");
}

TEST(RuntimeVerdict, R3ForwardCompatAndR4UnsupportedGpu) {
  auto im = image("12.4");
  im.compat = {true, "usr/local/cuda/compat/libcuda.so.550.54.15", "550.54.15", "12.4"};
  auto d = driver_host("470.82.01", "11.4");
  d.gpus.push_back(gpu("NVIDIA A100-SXM4-80GB", Support::yes));
  auto v = judge_runtime(im, d, false);
  EXPECT_EQ(v.verdict, Verdict::forward_compat);
  EXPECT_EQ(v.message,
            "driver 470.82.01 (CUDA 11.4) + forward-compat libcuda 550.54.15 (CUDA 12.4) from the "
            "image; supported on NVIDIA A100-SXM4-80GB");
  d.gpus[0] = gpu("NVIDIA GeForce RTX 3090", Support::no);
  v = judge_runtime(im, d, false);
  EXPECT_EQ(v.verdict, Verdict::driver_too_old);
  EXPECT_NE(v.message.find("forward compat is not supported on GPU 0 NVIDIA GeForce RTX 3090 "
                           "(data-center GPUs only; CUDA error 804)"),
            std::string::npos)
      << v.message;
  d.gpus[0] = gpu("NVIDIA A100-SXM4-80GB", Support::yes);
  v = judge_runtime(im, d, true);
  EXPECT_EQ(v.verdict, Verdict::driver_too_old);
  EXPECT_NE(v.message.find("present but not used"), std::string::npos);
}

TEST(RuntimeVerdict, R6UnknownRuntime) {
  EXPECT_EQ(judge_runtime(ImageRuntime{}, driver_host("550.54.14", "12.4"), false).verdict,
            Verdict::unknown_runtime);
}

TEST(ExitCodes, Spec) {
  EXPECT_EQ(exit_code_of(Verdict::native, false), 0);
  EXPECT_EQ(exit_code_of(Verdict::jit, false), 0);
  EXPECT_EQ(exit_code_of(Verdict::jit, true), 1);
  EXPECT_EQ(exit_code_of(Verdict::forward_compat, true), 1);
  EXPECT_EQ(exit_code_of(Verdict::no_code, false), 1);
  EXPECT_EQ(exit_code_of(Verdict::driver_too_old, false), 1);
  EXPECT_EQ(exit_code_of(Verdict::malformed, false), 2);
  EXPECT_EQ(to_string(Verdict::minor_compat), "minor-compat");
}

}  // namespace
}  // namespace nvct::compat
