#include "nvct/ctk/toml_edit.hpp"

#include <gtest/gtest.h>

#include "nvct/ctk/toml_text.hpp"

namespace nvct::ctk {
namespace {

toml::table parsed_edit_table(std::string_view text) {
  auto r = parse_toml(text, "test.toml");
  EXPECT_TRUE(r) << (r ? "" : r.error().message());
  return r ? *r : toml::table{};
}

// edit_toml_text(text, parsed_edit_table(text) changed by `change`, edits), expected to succeed.
template <class Change>
std::string edited(std::string_view text, const TomlEdits& edits, Change change) {
  toml::table target = parsed_edit_table(text);
  change(target);
  auto r = edit_toml_text(text, target, edits);
  EXPECT_TRUE(r) << (r ? "" : r.error().message());
  return r ? *r : std::string();
}

const TomlEdits kImports{.tables = {}, .keys = {{{}, "imports"}, {{}, "version"}}};

void add_import(toml::table& t, std::string_view pattern) {
  if (!t.contains("imports")) t.insert("imports", toml::array{});
  t["imports"].as_array()->push_back(std::string(pattern));
}

TEST(TomlEdit, UnchangedTreeGivesTheTextBack) {
  const std::string text = "# c\nversion = 2 # v\n\n[a]\n x=1\n";
  EXPECT_EQ(edited(text, kImports, [](toml::table&) {}), text);
}

TEST(TomlEdit, NewKeyGoesBeforeTheFirstKeySortingAfterIt) {
  const std::string text = "# admin\nversion = 2\n\n[plugins]\n  [plugins.x]\n    a = 1\n";
  EXPECT_EQ(
      edited(text, kImports, [](toml::table& t) { add_import(t, "/d/*.toml"); }),
      "# admin\nimports = [\"/d/*.toml\"]\nversion = 2\n\n[plugins]\n  [plugins.x]\n    a = 1\n");
  // ... else after the last one.
  EXPECT_EQ(edited("a = 1\n[t]\n", kImports, [](toml::table& t) { add_import(t, "/d"); }),
            "a = 1\nimports = [\"/d\"]\n[t]\n");
}

TEST(TomlEdit, ImportsAppendKeepsTheLineComment) {
  const std::string text = "imports = [\"/a/*.toml\"]  # site\nversion = 2\n";
  EXPECT_EQ(edited(text, kImports, [](toml::table& t) { add_import(t, "/d/*.toml"); }),
            "imports = [\"/a/*.toml\", \"/d/*.toml\"]  # site\nversion = 2\n");
}

TEST(TomlEdit, ImportsAppendToEmptyAndMultiLineArrays) {
  EXPECT_EQ(edited("imports = []\n", kImports, [](toml::table& t) { add_import(t, "/d"); }),
            "imports = [\"/d\"]\n");
  const std::string multi = "imports = [\n  \"/a\",  # first\n  \"/b\", # ]\n]\n";
  EXPECT_EQ(edited(multi, kImports, [](toml::table& t) { add_import(t, "/d"); }),
            "imports = [\n  \"/a\",  # first\n  \"/b\", \"/d\", # ]\n]\n");
}

TEST(TomlEdit, TopLevelKeyInAFileWithoutOneGoesFirst) {
  EXPECT_EQ(edited("[a]\nx = 1", kImports, [](toml::table& t) { add_import(t, "/d"); }),
            "imports = [\"/d\"]\n[a]\nx = 1");
}

constexpr std::string_view kRuntimes = R"(# admin
[p.c]
  # keep
  snapshotter = "overlayfs"
  default_runtime_name = "runc"

  [p.c.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"

[other]
  z = 1
)";

const TomlEdits kRuntimeEdits{.tables = {{"p", "c", "runtimes", "nvidia"}},
                              .keys = {{{"p", "c"}, "default_runtime_name"}}};

TEST(TomlEdit, NewTableGoesAfterItsClosestRelativeAndKeyValueIsReplaced) {
  auto out = edited(kRuntimes, kRuntimeEdits, [](toml::table& t) {
    t["p"]["c"].as_table()->insert_or_assign("default_runtime_name", "nvidia");
    toml::table nvidia;
    nvidia.insert("runtime_type", "io.containerd.runc.v2");
    t["p"]["c"]["runtimes"].as_table()->insert("nvidia", nvidia);
  });
  EXPECT_EQ(out, R"(# admin
[p.c]
  # keep
  snapshotter = "overlayfs"
  default_runtime_name = "nvidia"

  [p.c.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"

      [p.c.runtimes.nvidia]
        runtime_type = "io.containerd.runc.v2"

[other]
  z = 1
)");
}

TEST(TomlEdit, ExistingTableIsReplacedInPlaceWithItsSubTables) {
  const std::string text =
      "[r.nvidia]\n  t = \"old\"\n\n  [r.nvidia.options]\n    B = \"/old\"\n\n# next\n[s]\n  k = "
      "1\n";
  auto out = edited(text, {.tables = {{"r", "nvidia"}}, .keys = {}}, [](toml::table& t) {
    t["r"]["nvidia"]["options"].as_table()->insert_or_assign("B", "/new");
  });
  // The replacement is in write_toml's layout (indented by depth); the rest is kept.
  EXPECT_EQ(out,
            "  [r.nvidia]\n    t = \"old\"\n\n    [r.nvidia.options]\n      B = \"/new\"\n\n"
            "# next\n[s]\n  k = 1\n");
}

TEST(TomlEdit, KeyRemovedAndKeyAddedUnderItsHeaderWithTheBlockIndent) {
  auto out = edited("[c]\n    a = 1\n    d = \"x\"\n[e]\n",
                    {.tables = {}, .keys = {{{"c"}, "d"}, {{"c"}, "b"}}}, [](toml::table& t) {
                      t["c"].as_table()->erase("d");
                      t["c"].as_table()->insert("b", true);
                    });
  EXPECT_EQ(out, "[c]\n    a = 1\n    b = true\n[e]\n");
  auto after_header = edited("[c]\n[e]\n", {.tables = {}, .keys = {{{"c"}, "b"}}},
                             [](toml::table& t) { t["c"].as_table()->insert("b", 1); });
  EXPECT_EQ(after_header, "[c]\n  b = 1\n[e]\n");
  auto no_newline = edited("[c]\na = 1", {.tables = {}, .keys = {{{"c"}, "b"}}},
                           [](toml::table& t) { t["c"].as_table()->insert("b", 2); });
  EXPECT_EQ(no_newline, "[c]\na = 1\nb = 2\n");
}

TEST(TomlEdit, KeyOfATableWithoutHeaderGetsANewBlock) {
  auto out = edited("[p.c.runtimes.runc]\n  x = 1\n", {.tables = {}, .keys = {{{"p", "c"}, "d"}}},
                    [](toml::table& t) { t["p"]["c"].as_table()->insert("d", "n"); });
  EXPECT_EQ(out, "[p.c.runtimes.runc]\n  x = 1\n\n  [p.c]\n    d = \"n\"\n");
  EXPECT_EQ(parsed_edit_table(out)["p"]["c"]["runtimes"]["runc"]["x"].value<int64_t>(), 1);
}

TEST(TomlEdit, ValuesThatLookLikeHeadersAreNotHeaders) {
  const std::string text = "s = \"\"\"\n[a.b]\n\"\"\"\narr = [\n  \"[x]\",\n]\n[a]\n  k = 1\n";
  auto out = edited(text, {.tables = {{"a", "b"}}, .keys = {}}, [](toml::table& t) {
    toml::table b;
    b.insert("v", 2);
    t["a"].as_table()->insert("b", b);
  });
  EXPECT_EQ(out, text + "\n  [a.b]\n    v = 2\n");
}

TEST(TomlEdit, DottedOrInlineDefinitionsAreRefused) {
  const std::string text = "[p]\n  c.runtimes.nvidia.t = \"x\"\n";
  toml::table target = parsed_edit_table(text);
  target["p"]["c"]["runtimes"]["nvidia"].as_table()->insert_or_assign("t", "y");
  auto r = edit_toml_text(text, target, {.tables = {{"p", "c", "runtimes", "nvidia"}}, .keys = {}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("dotted key or inline table"), std::string::npos);

  const std::string inline_text = "[p.c.runtimes]\n  nvidia = {t = \"x\"}\n";
  toml::table inline_target = parsed_edit_table(inline_text);
  inline_target["p"]["c"]["runtimes"]["nvidia"].as_table()->insert_or_assign("t", "y");
  EXPECT_FALSE(edit_toml_text(inline_text, inline_target,
                              {.tables = {{"p", "c", "runtimes", "nvidia"}}, .keys = {}}));
}

TEST(TomlEdit, AChangeOutsideTheEditsIsAnError) {
  toml::table target = parsed_edit_table("a = 1\n");
  target.insert_or_assign("b", 2);
  auto r = edit_toml_text("a = 1\n", target, {.tables = {}, .keys = {{{}, "a"}}});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("does not give the intended tree"), std::string::npos);
}

TEST(TomlEdit, BadTomlIsAnError) { EXPECT_FALSE(edit_toml_text("[a\n", toml::table{}, kImports)); }

}  // namespace
}  // namespace nvct::ctk
