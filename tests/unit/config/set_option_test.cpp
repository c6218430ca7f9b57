#include "nvct/config/set_option.hpp"

#include <gtest/gtest.h>

#include "fake_host.hpp"

namespace nvct::config {
namespace {

using testing::FakeHost;
using Value = decltype(SetOption::value);

Value parsed(std::string_view text, std::string_view sep = kDefaultListSeparator) {
  auto r = parse_set_option(text, sep);
  EXPECT_TRUE(r) << text << ": " << r.error().message();
  return r ? r->value : Value{};
}

std::string error_of(std::string_view text) {
  auto r = parse_set_option(text);
  EXPECT_FALSE(r) << text << " was accepted";
  return r ? std::string() : r.error().message();
}

using List = std::vector<std::string>;

// spec/config.md §6, one test per row.
TEST(SetOption, UnknownKeyIsAnErrorNamingIt) {
  EXPECT_EQ(
      error_of("no-such.key=1"),
      "unknown config key \"no-such.key\" (`nvidia-ctk config default` lists the valid keys)");
}

TEST(SetOption, UnknownKeyErrorSuggestsTheNearestKey) {
  EXPECT_EQ(error_of("nvidia-container-runtime.mdoe=legacy"),
            "unknown config key \"nvidia-container-runtime.mdoe\"; did you mean "
            "\"nvidia-container-runtime.mode\"?");
  EXPECT_EQ(error_of("root=/run/nvidia/driver"),
            "unknown config key \"root\"; did you mean \"nvidia-container-cli.root\"?");
}

TEST(SetOption, EnumKeyRejectsAValueOutsideItsSet) {
  EXPECT_EQ(error_of("nvidia-container-runtime.mode=legcy"),
            "nvidia-container-runtime.mode: invalid value \"legcy\" (valid values: auto, legacy, "
            "cdi, jit-cdi, csv); did you mean \"legacy\"?");
  EXPECT_NE(error_of("nvidia-container-runtime.log-level=loud").find("valid values: panic"),
            std::string::npos);
  EXPECT_NE(error_of("nvidia-container-runtime.modes.legacy.cuda-compat-mode=on")
                .find("valid values: ldconfig, mount, disabled, hook"),
            std::string::npos);
  EXPECT_NE(error_of("supported-driver-capabilities=compute,gpu").find("unknown item \"gpu\""),
            std::string::npos);
}

TEST(SetOption, EnumKeyAcceptsItsValues) {
  EXPECT_EQ(parsed("nvidia-container-runtime.mode=jit-cdi"), Value(std::string("jit-cdi")));
  EXPECT_EQ(parsed("nvidia-container-runtime.log-level=Debug"), Value(std::string("Debug")));
  EXPECT_EQ(parsed("nvidia-container-runtime.modes.legacy.cuda-compat-mode="),
            Value(std::string()));
  EXPECT_EQ(parsed("supported-driver-capabilities=compute,utility"),
            Value(std::string("compute,utility")));
}

TEST(SetOption, BoolErrorListsTheValidSpellings) {
  EXPECT_EQ(error_of("disable-require=yes"),
            "disable-require: invalid value \"yes\": expected a boolean (valid values: true, "
            "false, 1, 0, t, f)");
}

TEST(SetOption, BoolKeyAloneIsTrue) { EXPECT_EQ(parsed("disable-require"), Value(true)); }

TEST(SetOption, BoolKeyWithJunkIsAnError) {
  EXPECT_NE(error_of("disable-require=something").find("disable-require"), std::string::npos);
}

TEST(SetOption, BoolKeyAcceptsGoSpellings) {
  EXPECT_EQ(parsed("disable-require=false"), Value(false));
  EXPECT_EQ(parsed("disable-require=0"), Value(false));
  EXPECT_EQ(parsed("disable-require=TRUE"), Value(true));
  EXPECT_EQ(parsed("disable-require=t"), Value(true));
}

TEST(SetOption, StringKeyWithoutValueIsAnError) {
  EXPECT_NE(error_of("swarm-resource").find("swarm-resource"), std::string::npos);
}

TEST(SetOption, SplitsOnFirstEquals) {
  EXPECT_EQ(parsed("swarm-resource=string-value=more"), Value(std::string("string-value=more")));
}

TEST(SetOption, StringTrueStaysAString) {
  EXPECT_EQ(parsed("swarm-resource=true"), Value(std::string("true")));
}

TEST(SetOption, StringMayBeEmpty) {
  EXPECT_EQ(parsed("nvidia-container-cli.root="), Value(std::string()));
}

TEST(SetOption, ListWithOneItem) {
  EXPECT_EQ(parsed("nvidia-container-cli.environment=a"), Value(List{"a"}));
}

TEST(SetOption, ListSplitsOnDefaultSeparator) {
  EXPECT_EQ(parsed("nvidia-container-runtime.runtimes=a:b:c"), Value(List{"a", "b", "c"}));
}

TEST(SetOption, ListSplitsOnCommaWithoutSeparator) {
  EXPECT_EQ(parsed("nvidia-container-runtime.runtimes=a,b"), Value(List{"a", "b"}));
}

TEST(SetOption, ListSeparatorWinsOverComma) {
  EXPECT_EQ(parsed("nvidia-container-cli.environment=A=1,2:B=3"), Value(List{"A=1,2", "B=3"}));
}

TEST(SetOption, CustomListSeparator) {
  EXPECT_EQ(parsed("nvidia-container-runtime.modes.cdi.spec-dirs=/a;/b:c", ";"),
            Value(List{"/a", "/b:c"}));
}

TEST(SetOption, NilDeletesFeatureKey) {
  EXPECT_EQ(parsed("features.allow-ldconfig-from-container=nil"), Value(std::monostate{}));
}

TEST(SetOption, FeatureKeyAloneIsTrue) {
  EXPECT_EQ(parsed("features.disable-imex-channel-creation"), Value(true));
}

TEST(SetOption, NilOnAPlainStringIsTheString) {
  EXPECT_EQ(parsed("swarm-resource=nil"), Value(std::string("nil")));
}

TEST(SetOption, ApplyWritesTypedValues) {
  auto doc = Document::parse("");
  ASSERT_TRUE(doc);
  for (const char* set :
       {"disable-require", "swarm-resource=true", "nvidia-container-runtime.runtimes=x:y",
        "features.allow-ldconfig-from-container"}) {
    auto opt = parse_set_option(set);
    ASSERT_TRUE(opt) << opt.error().message();
    ASSERT_TRUE(apply(*doc, *opt));
  }
  std::string out = doc->render(FakeHost());
  EXPECT_NE(out.find("\ndisable-require = true\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\nswarm-resource = \"true\"\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\nruntimes = [\"x\", \"y\"]\n"), std::string::npos) << out;
  EXPECT_NE(out.find("[features]\nallow-ldconfig-from-container = true\n"), std::string::npos)
      << out;
}

TEST(SetOption, ApplyNilRemovesTheKey) {
  auto doc = Document::parse("[features]\nallow-ldconfig-from-container = true\n");
  ASSERT_TRUE(doc);
  auto opt = parse_set_option("features.allow-ldconfig-from-container=nil");
  ASSERT_TRUE(opt);
  ASSERT_TRUE(apply(*doc, *opt));
  std::string out = doc->render(FakeHost());
  EXPECT_EQ(out.find("allow-ldconfig-from-container"), std::string::npos) << out;
  auto c = doc->to_config(FakeHost());
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->features.allow_ldconfig_from_container);
}

}  // namespace
}  // namespace nvct::config
