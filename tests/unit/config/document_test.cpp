#include "nvct/config/document.hpp"

#include <gtest/gtest.h>

#include "fake_host.hpp"

namespace nvct::config {
namespace {

using testing::FakeHost;

TEST(Document, ParseErrorIsReported) {
  auto doc = Document::parse("[unterminated\n");
  ASSERT_FALSE(doc);
  EXPECT_NE(doc.error().message().find("parse TOML"), std::string::npos);
}

TEST(Document, SetCreatesIntermediateTables) {
  auto doc = Document::parse("");
  ASSERT_TRUE(doc);
  ASSERT_TRUE(doc->set_string("nvidia-container-runtime.modes.cdi.default-kind", "x.com/y"));
  auto c = doc->to_config(FakeHost());
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->runtime.cdi.default_kind, "x.com/y");
  EXPECT_NE(doc->render(FakeHost()).find("[nvidia-container-runtime.modes.cdi]\ndefault-kind"),
            std::string::npos);
}

TEST(Document, SetThroughAValueFails) {
  auto doc = Document::parse("nvidia-container-cli = 1\n");
  ASSERT_TRUE(doc);
  Status s = doc->set_string("nvidia-container-cli.root", "/x");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("nvidia-container-cli is not a table"), std::string::npos)
      << s.error().message();
}

TEST(Document, SetKeepsOtherKeys) {
  auto doc = Document::parse("[nvidia-container-cli]\nroot = \"/driver\"\nfuture = 1\n");
  ASSERT_TRUE(doc);
  ASSERT_TRUE(doc->set_bool("nvidia-container-cli.no-cgroups", true));
  std::string out = doc->render(FakeHost());
  EXPECT_NE(out.find("future = 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("no-cgroups = true\n"), std::string::npos) << out;
  EXPECT_NE(out.find("root = \"/driver\"\n"), std::string::npos) << out;
}

TEST(Document, SetToCommentedExampleOnDefaultsStaysSet) {
  Document doc = Document::from_config(default_config(FakeHost()));
  ASSERT_TRUE(doc.set_string("nvidia-container-cli.root", "/run/nvidia/driver"));
  std::string out = doc.render(FakeHost());
  EXPECT_NE(out.find("\nroot = \"/run/nvidia/driver\"\n"), std::string::npos) << out;
}

TEST(Document, EraseRemovesOnlyThatKey) {
  auto doc = Document::parse("[features]\na = true\nallow-ldconfig-from-container = true\n");
  ASSERT_TRUE(doc);
  doc->erase("features.allow-ldconfig-from-container");
  doc->erase("features.not-there");
  doc->erase("no.such.table");
  std::string out = doc->render(FakeHost());
  EXPECT_NE(out.find("[features]\na = true\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("allow-ldconfig"), std::string::npos) << out;
}

TEST(Document, ToConfigValidates) {
  auto doc = Document::parse("");
  ASSERT_TRUE(doc);
  ASSERT_TRUE(doc->set_string("nvidia-container-cli.ldconfig", "/sbin/ldconfig"));
  auto c = doc->to_config(FakeHost());
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message().find("not host-relative"), std::string::npos);
}

TEST(Document, FromConfigOmitsEmptyOptionalKeys) {
  Config config = default_config(FakeHost());
  std::string out = Document::from_config(config).render(FakeHost());
  EXPECT_EQ(out.find("no-pivot"), std::string::npos);
  EXPECT_EQ(out.find("compat-container-root"), std::string::npos);
  EXPECT_EQ(out.find("jit-cdi"), std::string::npos);
  EXPECT_EQ(out.find("[features]"), std::string::npos);

  config.cli.no_pivot = true;
  config.features.disable_imex_channel_creation = true;
  config.runtime.jit_cdi.nvcdi_disable_hooks = std::vector<std::string>{"all"};
  out = Document::from_config(config).render(FakeHost());
  EXPECT_NE(out.find("no-pivot = true\n"), std::string::npos) << out;
  EXPECT_NE(out.find("[features]\ndisable-imex-channel-creation = true\n"), std::string::npos);
  EXPECT_NE(out.find("[nvidia-container-runtime.modes.jit-cdi]\nnvcdi-disable-hooks = [\"all\"]\n"),
            std::string::npos)
      << out;
}

TEST(Document, KeysListsValuesAndEmptyTablesSorted) {
  auto doc = Document::parse(
      "z = 1\n[nvidia-container-runtime]\nmode = \"cdi\"\n[nvidia-container-runtime.modes]\n"
      "[a.b]\nc = [1]\n");
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->keys(), (std::vector<std::string>{"a.b.c", "nvidia-container-runtime.mode",
                                                   "nvidia-container-runtime.modes", "z"}));
}

}  // namespace
}  // namespace nvct::config
