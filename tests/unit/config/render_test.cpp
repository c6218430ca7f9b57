#include <gtest/gtest.h>

#include "fake_host.hpp"
#include "nvct/base/file.hpp"
#include "nvct/config/document.hpp"

namespace nvct::config {
namespace {

using testing::FakeHost;

std::string golden() {
  auto text = read_file(std::string(NVCT_SOURCE_DIR) + "/tests/data/config/default.toml");
  EXPECT_TRUE(text) << "tests/data/config/default.toml: " << text.error().message();
  return text ? *text : std::string();
}

std::string render_text(std::string_view toml, const HostFacts& host = FakeHost()) {
  auto doc = Document::parse(toml);
  EXPECT_TRUE(doc) << doc.error().message();
  return doc ? doc->render(host) : std::string();
}

TEST(RenderDefault, MatchesGoldenByteForByte) { EXPECT_EQ(render_default(FakeHost()), golden()); }

TEST(RenderDefault, ProjectConfigFileIsTheGolden) {
  auto text = read_file(std::string(NVCT_SOURCE_DIR) + "/config/config.toml");
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_EQ(*text, golden());
}

TEST(RenderDefault, UsesLdconfigRealWhereItExists) {
  std::string expected = golden();
  std::string from = "ldconfig = \"@/sbin/ldconfig\"\n";
  expected.replace(expected.find(from), from.size(), "ldconfig = \"@/sbin/ldconfig.real\"\n");
  EXPECT_EQ(render_default(FakeHost({"/sbin/ldconfig.real"})), expected);
}

TEST(RenderDefault, SuseUserIsUncommented) {
  std::string expected = golden();
  std::string from = "#user = \"root:video\"\n";
  expected.replace(expected.find(from), from.size(), "user = \"root:video\"\n");
  EXPECT_EQ(render_default(FakeHost({}, "ID_LIKE=\"suse opensuse\"\n")), expected);
}

TEST(RenderDefault, GoldenRoundTripsThroughParse) { EXPECT_EQ(render_text(golden()), golden()); }

TEST(RenderDefault, GoldenLoadsAsTheDefaults) {
  auto doc = Document::parse(golden());
  ASSERT_TRUE(doc);
  auto c = doc->to_config(FakeHost());
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->cli.root, "");
  EXPECT_EQ(c->runtime.debug, "/dev/null");
  EXPECT_TRUE(c->accept_envvar_unprivileged);
  EXPECT_EQ(c->runtime.runtimes, (std::vector<std::string>{"runc", "crun"}));
}

TEST(RenderLoaded, EmptyConfigGivesOnlyCommentedLines) {
  EXPECT_EQ(render_text(""),
            "#accept-nvidia-visible-devices-as-volume-mounts = false\n"
            "#accept-nvidia-visible-devices-envvar-when-unprivileged = true\n"
            "#swarm-resource = \"DOCKER_RESOURCE_GPU\"\n"
            "\n"
            "[nvidia-container-cli]\n"
            "#debug = \"/var/log/nvidia-container-toolkit.log\"\n"
            "#ldcache = \"/etc/ld.so.cache\"\n"
            "#no-cgroups = false\n"
            "#path = \"/usr/bin/nvidia-container-cli\"\n"
            "#root = \"/run/nvidia/driver\"\n"
            "#user = \"root:video\"\n"
            "\n"
            "[nvidia-container-runtime]\n"
            "#debug = \"/var/log/nvidia-container-runtime.log\"\n");
}

TEST(RenderLoaded, PartialConfigKeepsOnlyItsKeysSortedWithCommentedDefaults) {
  EXPECT_EQ(render_text("[nvidia-container-runtime]\n"
                        "mode = \"legacy\"\n"
                        "debug = \"/dev/null\"\n"
                        "[nvidia-container-cli]\n"
                        "root = \"/driver\"\n"
                        "no-cgroups = true\n"
                        "ldconfig = \"@/sbin/ldconfig\"\n"
                        "[features]\n"
                        "disable-imex-channel-creation = true\n"),
            "#accept-nvidia-visible-devices-as-volume-mounts = false\n"
            "#accept-nvidia-visible-devices-envvar-when-unprivileged = true\n"
            "#swarm-resource = \"DOCKER_RESOURCE_GPU\"\n"
            "\n"
            "[features]\n"
            "disable-imex-channel-creation = true\n"
            "\n"
            "[nvidia-container-cli]\n"
            "#debug = \"/var/log/nvidia-container-toolkit.log\"\n"
            "#ldcache = \"/etc/ld.so.cache\"\n"
            "ldconfig = \"@/sbin/ldconfig\"\n"
            "no-cgroups = true\n"
            "#path = \"/usr/bin/nvidia-container-cli\"\n"
            "root = \"/driver\"\n"
            "#user = \"root:video\"\n"
            "\n"
            "[nvidia-container-runtime]\n"
            "#debug = \"/var/log/nvidia-container-runtime.log\"\n"
            "mode = \"legacy\"\n");
}

TEST(RenderLoaded, ExplicitValueEqualToCommentedExampleStaysSet) {
  // Commenting it out would change the driver root from "/run/nvidia/driver" back to "".
  std::string out = render_text("[nvidia-container-cli]\nroot = \"/run/nvidia/driver\"\n");
  EXPECT_NE(out.find("\nroot = \"/run/nvidia/driver\"\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("#root"), std::string::npos) << out;
}

TEST(RenderLoaded, RuntimeDebugDevNullIsAlwaysCommented) {
  std::string out = render_text("[nvidia-container-runtime]\ndebug = \"/dev/null\"\n");
  EXPECT_NE(out.find("#debug = \"/var/log/nvidia-container-runtime.log\"\n"), std::string::npos)
      << out;
  EXPECT_EQ(out.find("/dev/null"), std::string::npos) << out;
}

TEST(RenderLoaded, UnknownKeysAndTypesArePreserved) {
  std::string out = render_text(
      "future = 3\nratio = 1.5\n\"odd key\" = \"a\\\"b\\tc\"\n"
      "[[extra.items]]\nname = \"x\"\n[[extra.items]]\nname = \"y\"\n");
  EXPECT_NE(out.find("future = 3\n"), std::string::npos) << out;
  EXPECT_NE(out.find("ratio = 1.5\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\"odd key\" = \"a\\\"b\\tc\"\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\n[[extra.items]]\nname = \"x\"\n\n[[extra.items]]\nname = \"y\"\n"),
            std::string::npos)
      << out;
  // What we write parses back to the same text.
  EXPECT_EQ(render_text(out), out);
}

}  // namespace
}  // namespace nvct::config
