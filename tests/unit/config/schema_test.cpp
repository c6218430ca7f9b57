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
  EXPECT_EQ(fields.size(), 38u);  // 37 of the reference + nvct's nvidia-container-cli.exec-ldconfig
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

std::string check_error(std::string_view key, std::string_view value) {
  const KeySpec* spec = find_key(key);
  EXPECT_NE(spec, nullptr) << key;
  if (spec == nullptr) return "";
  Status s = check_value(*spec, value);
  EXPECT_FALSE(s) << key << "=" << value << " was accepted";
  return s ? std::string() : s.error().message();
}

TEST(CheckValue, EnumKeysAcceptTheirValues) {
  for (const char* mode : {"auto", "legacy", "cdi", "jit-cdi", "csv"}) {
    EXPECT_TRUE(check_value(*find_key("nvidia-container-runtime.mode"), mode)) << mode;
  }
  for (const char* level :
       {"panic", "fatal", "error", "warn", "warning", "info", "debug", "trace", "DEBUG"}) {
    EXPECT_TRUE(check_value(*find_key("nvidia-container-runtime.log-level"), level)) << level;
  }
  for (const char* mode : kCudaCompatModes) {
    EXPECT_TRUE(
        check_value(*find_key("nvidia-container-runtime.modes.legacy.cuda-compat-mode"), mode))
        << mode;
  }
}

TEST(CheckValue, AnInvalidEnumValueNamesKeyValueValidValuesAndTheNearest) {
  EXPECT_EQ(check_error("nvidia-container-runtime.mode", "legcy"),
            "nvidia-container-runtime.mode: invalid value \"legcy\" (valid values: auto, legacy, "
            "cdi, jit-cdi, csv); did you mean \"legacy\"?");
  EXPECT_EQ(check_error("nvidia-container-runtime.log-level", "verbose"),
            "nvidia-container-runtime.log-level: invalid value \"verbose\" (valid values: panic, "
            "fatal, error, warn, warning, info, debug, trace)");
  EXPECT_EQ(check_error("nvidia-container-runtime.mode", ""),
            "nvidia-container-runtime.mode: invalid value \"\" (valid values: auto, legacy, cdi, "
            "jit-cdi, csv)");
}

TEST(CheckValue, AnOptionalEnumMayBeEmpty) {
  EXPECT_TRUE(check_value(*find_key("nvidia-container-runtime.modes.legacy.cuda-compat-mode"), ""));
}

TEST(CheckValue, CapabilitiesAreACommaSeparatedSubset) {
  const KeySpec& caps = *find_key("supported-driver-capabilities");
  EXPECT_TRUE(check_value(caps, ""));
  EXPECT_TRUE(check_value(caps, "all"));
  EXPECT_TRUE(check_value(caps, "compute, utility,video"));
  EXPECT_EQ(check_error("supported-driver-capabilities", "compute,utility,not-compute"),
            "supported-driver-capabilities: invalid value \"compute,utility,not-compute\": "
            "unknown item \"not-compute\" (valid values: a comma-separated list of compat32, "
            "compute, display, graphics, ngx, utility, video, all)");
  EXPECT_NE(check_error("supported-driver-capabilities", "compute,utilty")
                .find("did you mean \"utility\"?"),
            std::string::npos);
}

TEST(CheckValue, FreeFormKeysAcceptAnything) {
  EXPECT_TRUE(check_value(*find_key("nvidia-container-cli.root"), "anything at all"));
  EXPECT_EQ(allowed_values_text(*find_key("nvidia-container-cli.root")), "");
}

// The list finalize() checks a loaded file against is the one --set checks against.
TEST(CheckValue, CudaCompatModesMatchTheConfigList) {
  const KeySpec& spec = *find_key("nvidia-container-runtime.modes.legacy.cuda-compat-mode");
  ASSERT_EQ(spec.allowed.values.size(), std::size(kCudaCompatModes));
  for (std::size_t i = 0; i < spec.allowed.values.size(); ++i) {
    EXPECT_EQ(spec.allowed.values[i], kCudaCompatModes[i]);
  }
}

}  // namespace
}  // namespace nvct::config
