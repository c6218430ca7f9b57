#include "nvct/config/unknown_keys.hpp"

#include <gtest/gtest.h>

#include "fake_host.hpp"
#include "nvct/config/schema.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::config {
namespace {

using nvct::testing::FakeHost;
using nvct::testing::MemorySink;
using List = std::vector<std::string>;

std::vector<UnknownKey> unknown_in(std::string_view toml) {
  auto document = Document::parse(toml);
  EXPECT_TRUE(document) << document.error().message();
  return document ? unknown_keys(*document) : std::vector<UnknownKey>{};
}

TEST(SuggestKeys, ATypoInTheKeyGivesTheNearestKey) {
  EXPECT_EQ(suggest_keys("nvidia-container-runtime.mdoe"), List{"nvidia-container-runtime.mode"});
  EXPECT_EQ(suggest_keys("nvidia-container-cli.ldconfg"), List{"nvidia-container-cli.ldconfig"});
  EXPECT_EQ(suggest_keys("nvidia-container-runtim.log-level"),
            List{"nvidia-container-runtime.log-level"});
  EXPECT_EQ(suggest_keys("disable-requires"), List{"disable-require"});
  EXPECT_EQ(suggest_keys("nvidia-container-runtime.modes.cdi.spec-dir"),
            List{"nvidia-container-runtime.modes.cdi.spec-dirs"});
}

TEST(SuggestKeys, TheRightNameUnderTheWrongTableGivesTheKeyWhereItBelongs) {
  EXPECT_EQ(suggest_keys("root"), List{"nvidia-container-cli.root"});
  EXPECT_EQ(suggest_keys("ldconfig"), List{"nvidia-container-cli.ldconfig"});
  EXPECT_EQ(suggest_keys("nvidia-container-runtime.root"), List{"nvidia-container-cli.root"});
  EXPECT_EQ(suggest_keys("nvidia-container-runtime-hook.mode"),
            List{"nvidia-container-runtime.mode"});
  EXPECT_EQ(suggest_keys("features.no-cgroups"), List{"nvidia-container-cli.no-cgroups"});
}

TEST(SuggestKeys, AnAmbiguousNameGivesEveryKeyWithThatName) {
  EXPECT_EQ(suggest_keys("debug"),
            (List{"nvidia-container-cli.debug", "nvidia-container-runtime.debug"}));
}

TEST(SuggestKeys, ATypoInTheNameUnderTheWrongTable) {
  EXPECT_EQ(suggest_keys("log_level"), List{"nvidia-container-runtime.log-level"});
  EXPECT_EQ(suggest_keys("mdoe"), List{"nvidia-container-runtime.mode"});
}

TEST(SuggestKeys, NothingForAValidKeyOrANameFarFromAll) {
  EXPECT_TRUE(suggest_keys("nvidia-container-runtime.mode").empty());
  EXPECT_TRUE(suggest_keys("completely-unrelated-setting").empty());
  // Two edits would turn "foo" into "root": too short a name for that much slack.
  EXPECT_TRUE(suggest_keys("nvidia-container-runtime.foo").empty());
}

TEST(SuggestKeys, EveryValidKeyWithOneTypoFindsItself) {
  for (const KeySpec& spec : key_specs()) {
    std::string typo(spec.name);
    typo.back() = typo.back() == 'x' ? 'y' : 'x';
    EXPECT_EQ(suggest_keys(typo), List{std::string(spec.name)}) << typo;
  }
}

TEST(UnknownKeys, ReportsEachUnknownKeyWithItsSuggestion) {
  auto unknown = unknown_in(
      "root = \"/run/nvidia/driver\"\n"
      "[nvidia-container-runtime]\nmdoe = \"legacy\"\nmode = \"cdi\"\n"
      "[nvidia-container-cli]\nno-cgroups = true\n");
  ASSERT_EQ(unknown.size(), 2u);
  EXPECT_EQ(unknown[0].key, "nvidia-container-runtime.mdoe");
  EXPECT_EQ(unknown[0].suggestions, List{"nvidia-container-runtime.mode"});
  EXPECT_EQ(unknown[1].key, "root");
  EXPECT_EQ(unknown[1].suggestions, List{"nvidia-container-cli.root"});
}

TEST(UnknownKeys, AnUnknownTableIsReportedThroughItsKeys) {
  auto unknown = unknown_in("[nvidia-container-runtim]\nmode = \"legacy\"\n");
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(unknown[0].key, "nvidia-container-runtim.mode");
  EXPECT_EQ(unknown[0].suggestions, List{"nvidia-container-runtime.mode"});
}

TEST(UnknownKeys, AnEmptyUnknownTableIsReportedAsItself) {
  auto unknown = unknown_in("[nvidia-container-runtime.modes.jit]\n");
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(unknown[0].key, "nvidia-container-runtime.modes.jit");
}

TEST(UnknownKeys, TheDefaultFileAndEmptyKnownTablesHaveNone) {
  EXPECT_TRUE(unknown_in(render_default(FakeHost())).empty());
  EXPECT_TRUE(unknown_in("[nvidia-container-runtime.modes]\n[features]\n").empty());
  EXPECT_TRUE(unknown_in("[features]\nallow-ldconfig-from-container = true\n").empty());
}

TEST(UnknownKeys, AKnownKeyHoldingATableIsLeftToTheTypeCheck) {
  EXPECT_TRUE(unknown_in("[nvidia-container-runtime.mode]\nx = 1\n").empty());
}

TEST(Describe, NamesTheKeyAndTheSuggestions) {
  EXPECT_EQ(describe(UnknownKey{"mdoe", {"nvidia-container-runtime.mode"}}),
            "unknown key \"mdoe\" is ignored; did you mean \"nvidia-container-runtime.mode\"?");
  EXPECT_EQ(describe(UnknownKey{"debug", {"a.debug", "b.debug"}}),
            "unknown key \"debug\" is ignored; did you mean \"a.debug\" or \"b.debug\"?");
  EXPECT_EQ(describe(UnknownKey{"zzz", {}}),
            "unknown key \"zzz\" is ignored (`nvidia-ctk config default` lists the valid keys)");
}

TEST(WarnUnknownKeys, OneWarningPerKeyPrefixedByTheSource) {
  auto document = Document::parse("rot = 1\n[nvidia-ctk]\npaht = \"x\"\n");
  ASSERT_TRUE(document);
  auto sink = std::make_shared<MemorySink>();
  log::set_sink(sink);
  warn_unknown_keys(*document, "/etc/nvidia-container-runtime/config.toml");
  log::set_sink(nullptr);
  ASSERT_EQ(sink->lines.size(), 2u);
  EXPECT_EQ(sink->lines[0].first, log::Level::kWarn);
  EXPECT_EQ(sink->lines[0].second,
            "/etc/nvidia-container-runtime/config.toml: unknown key \"nvidia-ctk.paht\" is "
            "ignored; did you mean \"nvidia-ctk.path\"?");
  EXPECT_EQ(sink->lines[1].second,
            "/etc/nvidia-container-runtime/config.toml: unknown key \"rot\" is ignored; did you "
            "mean \"nvidia-container-cli.root\"?");
}

}  // namespace
}  // namespace nvct::config
