#include "nvct/config/schema.hpp"

#include <gtest/gtest.h>

#include <set>

namespace nvct::config {
namespace {

TEST(Schema, KeysAreUniqueAndFindable) {
  std::set<std::string_view> seen;
  for (const KeySpec& spec : key_specs()) {
    EXPECT_TRUE(seen.insert(spec.name).second) << spec.name;
    EXPECT_EQ(find_key(spec.name), &spec);
  }
  EXPECT_EQ(find_key("nvidia-container-cli"), nullptr);
  EXPECT_EQ(find_key("no-such-key"), nullptr);
}

TEST(Schema, EveryFieldHasItsOwnKey) {
  // Each key must point at a distinct member, so a copy-paste slip in the table is caught.
  Config config;
  std::set<const void*> fields;
  for (const KeySpec& spec : key_specs()) {
    const void* p = std::visit([](auto* f) -> const void* { return f; }, spec.field(config));
    EXPECT_TRUE(fields.insert(p).second) << spec.name;
  }
  EXPECT_EQ(fields.size(), 37u);
}

TEST(Schema, OnlyFeatureKeysAreNullable) {
  for (const KeySpec& spec : key_specs()) {
    bool feature = spec.name.substr(0, 9) == "features.";
    EXPECT_EQ(spec.nullable, feature) << spec.name;
    if (feature) {
      EXPECT_EQ(spec.kind, ValueKind::kBool) << spec.name;
    }
  }
}

TEST(Schema, KindMatchesField) {
  Config config;
  for (const KeySpec& spec : key_specs()) {
    FieldRef f = spec.field(config);
    switch (spec.kind) {
      case ValueKind::kBool:
        EXPECT_TRUE(std::holds_alternative<bool*>(f)) << spec.name;
        break;
      case ValueKind::kString:
        EXPECT_TRUE(std::holds_alternative<std::string*>(f) ||
                    std::holds_alternative<std::optional<std::string>*>(f))
            << spec.name;
        break;
      case ValueKind::kStringList:
        EXPECT_TRUE(std::holds_alternative<std::vector<std::string>*>(f) ||
                    std::holds_alternative<std::optional<std::vector<std::string>>*>(f))
            << spec.name;
        break;
    }
  }
}

}  // namespace
}  // namespace nvct::config
