// Reading the spec fields: privileged detection (spec/request.md §1.3, §9 row 67), process.env
// duplicates, and errors naming malformed fields.
#include "nvct/request/spec_fields.hpp"

#include <gtest/gtest.h>

#include <string>

namespace nvct::request {
namespace {

using Json = nlohmann::ordered_json;

bool privileged(const Json& spec) {
  auto fields = read_spec_fields(spec);
  EXPECT_TRUE(fields) << fields.error().message();
  return fields && fields->privileged;
}

TEST(Privileged, R67_BoundingWithSysAdminIsPrivileged) {
  EXPECT_TRUE(privileged(Json::parse(
      R"({"ociVersion":"1.0.2","process":{"capabilities":{"bounding":["CAP_SYS_ADMIN"]}}})")));
}

TEST(Privileged, R67_OtherCapabilityIsNotPrivileged) {
  EXPECT_FALSE(privileged(Json::parse(
      R"({"ociVersion":"1.0.2","process":{"capabilities":{"bounding":["CAP_SYS_OTHER"]}}})")));
}

TEST(Privileged, R67_NoCapabilitiesIsNotPrivileged) {
  EXPECT_FALSE(privileged(Json::parse(R"({"ociVersion":"1.0.2","process":{}})")));
  EXPECT_FALSE(privileged(Json::parse(R"({"ociVersion":"1.0.2"})")));
  EXPECT_FALSE(privileged(Json::parse(
      R"({"ociVersion":"1.0.2","process":{"capabilities":{"effective":["CAP_SYS_ADMIN"]}}})")));
}

TEST(Privileged, R67_OldFlatListFormIsPrivileged) {
  EXPECT_TRUE(privileged(Json::parse(
      R"({"ociVersion":"1.0.0-rc2-dev","process":{"capabilities":["CAP_SYS_ADMIN"]}})")));
  EXPECT_FALSE(privileged(
      Json::parse(R"({"ociVersion":"1.0.0-rc2-dev","process":{"capabilities":["CAP_CHOWN"]}})")));
}

TEST(Env, LastOccurrenceWinsAndEntriesWithoutEqualsAreSkipped) {
  auto env = parse_env(Json::parse(R"(["A=1","NOEQ","B=x=y","A=2","C="])"));
  ASSERT_TRUE(env) << env.error().message();
  EXPECT_EQ(env->at("A"), "2");
  EXPECT_EQ(env->at("B"), "x=y");
  EXPECT_EQ(env->at("C"), "");
  EXPECT_EQ(env->count("NOEQ"), 0u);
}

struct MalformedRow {
  const char* name;
  const char* spec;
  const char* field;  // the error must name it
};

class MalformedSpec : public ::testing::TestWithParam<MalformedRow> {};

TEST_P(MalformedSpec, IsAnErrorNamingTheField) {
  auto fields = read_spec_fields(Json::parse(GetParam().spec));
  ASSERT_FALSE(fields);
  EXPECT_NE(fields.error().message().find(GetParam().field), std::string::npos)
      << fields.error().message();
}

INSTANTIATE_TEST_SUITE_P(
    Fields, MalformedSpec,
    ::testing::Values(
        MalformedRow{"SpecNotObject", R"([])", "spec"},
        MalformedRow{"ProcessNotObject", R"({"process":"x"})", "process"},
        MalformedRow{"EnvNotList", R"({"process":{"env":"A=1"}})", "process.env"},
        MalformedRow{"EnvItemNotString", R"({"process":{"env":["A=1",2]}})", "process.env[1]"},
        MalformedRow{"CapabilitiesNotObject", R"({"process":{"capabilities":"CAP_SYS_ADMIN"}})",
                     "process.capabilities"},
        MalformedRow{"BoundingNotList",
                     R"({"process":{"capabilities":{"bounding":"CAP_SYS_ADMIN"}}})",
                     "process.capabilities.bounding"},
        MalformedRow{"BoundingItemNotString", R"({"process":{"capabilities":{"bounding":[null]}}})",
                     "process.capabilities.bounding[0]"},
        MalformedRow{"MountsNotList", R"({"mounts":{}})", "mounts"},
        MalformedRow{"MountNotObject", R"({"mounts":[{"destination":"/a"},"x"]})", "mounts[1]"},
        MalformedRow{"MountSourceNotString", R"({"mounts":[{"destination":"/a","source":1}]})",
                     "mounts[0].source"},
        MalformedRow{"AnnotationsNotObject", R"({"annotations":[]})", "annotations"},
        MalformedRow{"AnnotationValueNotString", R"({"annotations":{"cdi.k8s.io/x":1}})",
                     "annotations.cdi.k8s.io/x"}),
    [](const ::testing::TestParamInfo<MalformedRow>& p) { return std::string(p.param.name); });

TEST(SpecFields, NullFieldsReadAsEmpty) {
  auto fields =
      read_spec_fields(Json::parse(R"({"process":{"env":null,"capabilities":null},"mounts":null,)"
                                   R"("annotations":null,"hooks":null})"));
  ASSERT_TRUE(fields) << fields.error().message();
  EXPECT_TRUE(fields->env.empty());
  EXPECT_TRUE(fields->mounts.empty());
  EXPECT_TRUE(fields->annotations.empty());
}

TEST(SpecFields, AnnotationsAreSortedByKey) {
  auto fields = read_spec_fields(Json::parse(R"({"annotations":{"b":"2","a":"1","c":"3"}})"));
  ASSERT_TRUE(fields);
  ASSERT_EQ(fields->annotations.size(), 3u);
  EXPECT_EQ(fields->annotations[0].first, "a");
  EXPECT_EQ(fields->annotations[2].first, "c");
}

TEST(CleanPath, FollowsGoFilepathClean) {
  EXPECT_EQ(clean_path(""), ".");
  EXPECT_EQ(clean_path("/"), "/");
  EXPECT_EQ(clean_path("/dev/../dev/null"), "/dev/null");
  EXPECT_EQ(clean_path("//dev///null/"), "/dev/null");
  EXPECT_EQ(clean_path("/../dev/./null"), "/dev/null");
  EXPECT_EQ(clean_path("a/../../b"), "../b");
  EXPECT_EQ(clean_path("a/.."), ".");
}

}  // namespace
}  // namespace nvct::request
