// spec/ctk.md §7.1: the CRI-O drop-in, byte for byte against the spec's example, and the copy of
// the default handler.
#include "nvct/ctk/crio_config.hpp"

#include <gtest/gtest.h>

#include "nvct/base/file.hpp"

namespace nvct::ctk {
namespace {

CrioConfig parsed_crio(std::string_view text, bool in_place = false) {
  auto r = CrioConfig::parse(text, "crio.conf", in_place);
  EXPECT_TRUE(r) << (r ? "" : r.error().message());
  return r ? *r : *CrioConfig::parse("", "crio.conf", in_place);
}

TEST(CrioConfig, EmptySourceGivesTheSpecExampleByteForByte) {
  auto c = parsed_crio("");
  ASSERT_TRUE(c.add_runtime("nvidia", "/usr/bin/nvidia-container-runtime", false));
  auto golden = read_file(NVCT_SOURCE_DIR "/tests/data/ctk/crio_example_dropin.toml");
  ASSERT_TRUE(golden) << golden.error().message();
  EXPECT_EQ(c.serialize(), *golden);
}

constexpr std::string_view kCrunDefault = R"([crio.runtime]
default_runtime = "crun"
[crio.runtime.runtimes.crun]
runtime_path = "/usr/bin/crun"
runtime_type = "oci"
runtime_root = "/run/crun"
monitor_path = "/usr/libexec/crio/conmon"
[crio.runtime.runtimes.runc]
runtime_path = "/usr/bin/runc"
runtime_root = "/run/runc"
)";

TEST(CrioConfig, CopiesTheDefaultHandlerIntoTheDropInOnly) {
  auto c = parsed_crio(kCrunDefault);
  ASSERT_TRUE(c.add_runtime("nvidia", "/usr/bin/nvidia-container-runtime", false));
  EXPECT_EQ(c.serialize(),
            "\n[crio]\n\n  [crio.runtime]\n\n    [crio.runtime.runtimes]\n\n"
            "      [crio.runtime.runtimes.nvidia]\n"
            "        monitor_path = \"/usr/libexec/crio/conmon\"\n"
            "        runtime_path = \"/usr/bin/nvidia-container-runtime\"\n"
            "        runtime_root = \"/run/crun\"\n"
            "        runtime_type = \"oci\"\n");
}

TEST(CrioConfig, FallsBackToRuncThenCrun) {
  auto c = parsed_crio(
      "[crio.runtime.runtimes.crun]\nruntime_root = \"/run/crun\"\n"
      "[crio.runtime.runtimes.runc]\nruntime_root = \"/run/runc\"\n");
  ASSERT_TRUE(c.add_runtime("nvidia", "/p", false));
  EXPECT_NE(c.serialize().find("runtime_root = \"/run/runc\""), std::string::npos);
  auto d = parsed_crio("[crio.runtime.runtimes.crun]\nruntime_root = \"/run/crun\"\n");
  ASSERT_TRUE(d.add_runtime("nvidia", "/p", false));
  EXPECT_NE(d.serialize().find("runtime_root = \"/run/crun\""), std::string::npos);
}

TEST(CrioConfig, SetAsDefaultWritesDefaultRuntimeInTheDropIn) {
  auto c = parsed_crio(kCrunDefault);
  ASSERT_TRUE(c.add_runtime("nvidia", "/p", true));
  EXPECT_NE(c.serialize().find("  [crio.runtime]\n    default_runtime = \"nvidia\"\n"),
            std::string::npos)
      << c.serialize();
}

TEST(CrioConfig, InPlaceKeepsTheSourceKeys) {
  auto c = parsed_crio(kCrunDefault, true);
  ASSERT_TRUE(c.add_runtime("nvidia", "/p", false));
  auto out = c.serialize();
  EXPECT_NE(out.find("default_runtime = \"crun\""), std::string::npos);
  EXPECT_NE(out.find("[crio.runtime.runtimes.runc]"), std::string::npos);
  EXPECT_NE(out.find("[crio.runtime.runtimes.nvidia]"), std::string::npos);
}

TEST(CrioConfig, RuntimePathOfSourceHandler) {
  auto c = parsed_crio(kCrunDefault);
  EXPECT_EQ(c.runtime_path("crun"), "/usr/bin/crun");
  EXPECT_EQ(c.runtime_path("nvidia"), "");
}

TEST(CrioConfig, RemoveRuntimeKeepsTheOtherHandlersAndPrunesEmptiedTables) {
  auto c = parsed_crio(
      std::string(kCrunDefault) + "[crio.runtime.runtimes.nvidia]\nruntime_path = \"/p\"\n", true);
  EXPECT_TRUE(c.has_runtime("nvidia"));
  ASSERT_TRUE(c.remove_runtime("nvidia"));
  auto out = c.serialize();
  EXPECT_EQ(out.find("nvidia"), std::string::npos) << out;
  EXPECT_NE(out.find("default_runtime = \"crun\""), std::string::npos) << out;
  EXPECT_NE(out.find("[crio.runtime.runtimes.runc]"), std::string::npos) << out;

  auto only = parsed_crio("[crio.runtime.runtimes.nvidia]\nruntime_path = \"/p\"\n", true);
  ASSERT_TRUE(only.remove_runtime("nvidia"));
  EXPECT_EQ(only.serialize(), "");
}

TEST(CrioConfig, RemovingTheDefaultHandlerFallsBackToADeclaredRuncOrToCrioItself) {
  auto with_runc = parsed_crio(
      "[crio.runtime]\ndefault_runtime = \"nvidia\"\n"
      "[crio.runtime.runtimes.runc]\nruntime_path = \"/usr/bin/runc\"\n"
      "[crio.runtime.runtimes.nvidia]\nruntime_path = \"/p\"\n",
      true);
  ASSERT_TRUE(with_runc.remove_runtime("nvidia"));
  EXPECT_NE(with_runc.serialize().find("default_runtime = \"runc\""), std::string::npos);

  // No runc handler declared: CRI-O would refuse default_runtime = "runc" unless runc is its
  // built-in default, so the key goes and CRI-O picks its own.
  auto without = parsed_crio(
      "[crio.runtime]\ndefault_runtime = \"nvidia\"\nlog_level = \"info\"\n"
      "[crio.runtime.runtimes.nvidia]\nruntime_path = \"/p\"\n",
      true);
  ASSERT_TRUE(without.remove_runtime("nvidia"));
  EXPECT_EQ(without.serialize(), "\n[crio]\n\n  [crio.runtime]\n    log_level = \"info\"\n");
}

TEST(CrioConfig, WrongTypesAreErrors) {
  EXPECT_FALSE(CrioConfig::parse("crio = 1\n", "crio.conf", false));
  EXPECT_FALSE(CrioConfig::parse("[crio]\nruntime = []\n", "crio.conf", false));
  EXPECT_FALSE(CrioConfig::parse("[crio.runtime]\ndefault_runtime = 1\n", "crio.conf", false));
  EXPECT_FALSE(CrioConfig::parse("[crio.runtime\n", "crio.conf", false));
}

}  // namespace
}  // namespace nvct::ctk
