#include "nvct/oci/state.hpp"

#include <gtest/gtest.h>

#include <string>

#include "nvct/base/file.hpp"

namespace nvct::oci {
namespace {

std::string state_fixture(const std::string& name) {
  auto text = read_file(std::string(NVCT_SOURCE_DIR) + "/tests/data/oci/" + name);
  EXPECT_TRUE(text) << "missing fixture tests/data/oci/" << name;
  return text ? *text : std::string();
}

// Parses and expects an error whose message contains `part`.
void expect_error(const std::string& json, const std::string& part) {
  auto state = parse_state(json);
  ASSERT_FALSE(state) << json;
  EXPECT_EQ(state.error().message().rfind("parse OCI state: ", 0), 0u) << state.error().message();
  EXPECT_NE(state.error().message().find(part), std::string::npos)
      << json << " -> " << state.error().message();
}

TEST(State, ParsesRuncPrestartState) {
  // Observed runc 1.1.5 prestart stdin (spec/hook.md §7.2).
  auto state = parse_state(state_fixture("state_prestart.json"));
  ASSERT_TRUE(state) << state.error().message();
  EXPECT_EQ(state->oci_version, "1.0.2-dev");
  EXPECT_EQ(state->id, "ps3");
  EXPECT_EQ(state->status, "creating");
  EXPECT_EQ(state->pid, 5638);
  EXPECT_EQ(state->bundle, "/run/containerd/io.containerd.runtime.v2.task/default/ps3");
  EXPECT_EQ(state->annotations.dump(), R"({"a":"b"})");
  EXPECT_FALSE(state->root);
}

TEST(State, PoststopWithoutPidIsZero) {
  auto state = parse_state(R"({"ociVersion":"1.0.2","id":"x","status":"stopped","bundle":"/b"})");
  ASSERT_TRUE(state) << state.error().message();
  EXPECT_EQ(state->pid, 0);
  EXPECT_EQ(state->status, "stopped");
  EXPECT_TRUE(state->annotations.is_object());
  EXPECT_TRUE(state->annotations.empty());
}

TEST(State, NullAnnotationsAreEmpty) {
  auto state = parse_state(
      R"({"ociVersion":"1","id":"x","status":"created","pid":1,"bundle":"/b","annotations":null})");
  ASSERT_TRUE(state);
  EXPECT_TRUE(state->annotations.is_object());
  EXPECT_TRUE(state->annotations.empty());
}

TEST(State, AnnotationOrderIsKept) {
  auto state = parse_state(R"({"ociVersion":"1","id":"x","status":"created","pid":1,"bundle":"/b",)"
                           R"("annotations":{"z":"1","a":"2","cdi.k8s.io/x":"nvidia.com/gpu=0"}})");
  ASSERT_TRUE(state);
  EXPECT_EQ(state->annotations.dump(), R"({"z":"1","a":"2","cdi.k8s.io/x":"nvidia.com/gpu=0"})");
}

TEST(State, LegacyBundlePathIsAccepted) {
  auto state =
      parse_state(R"({"ociVersion":"1","id":"x","status":"creating","pid":7,"bundlePath":"/old"})");
  ASSERT_TRUE(state) << state.error().message();
  EXPECT_EQ(state->bundle, "/old");
}

TEST(State, BundleWinsOverBundlePath) {
  auto state = parse_state(R"({"ociVersion":"1","id":"x","status":"creating","pid":7,)"
                           R"("bundlePath":"/old","bundle":"/new"})");
  ASSERT_TRUE(state);
  EXPECT_EQ(state->bundle, "/new");
}

TEST(State, RootExtensionAsStringOrObject) {
  auto as_string =
      parse_state(R"({"ociVersion":"1","id":"x","status":"creating","pid":7,"bundle":"/b",)"
                  R"("root":"/b/rootfs"})");
  ASSERT_TRUE(as_string) << as_string.error().message();
  EXPECT_EQ(as_string->root, "/b/rootfs");
  auto as_object =
      parse_state(R"({"ociVersion":"1","id":"x","status":"creating","pid":7,"bundle":"/b",)"
                  R"("root":{"path":"rootfs"}})");
  ASSERT_TRUE(as_object) << as_object.error().message();
  EXPECT_EQ(as_object->root, "rootfs");
}

TEST(State, UnknownFieldsAreIgnored) {
  auto state =
      parse_state(R"({"ociVersion":"1","id":"x","status":"creating","pid":7,"bundle":"/b",)"
                  R"("future":{"k":[1]}})");
  EXPECT_TRUE(state);
}

TEST(State, MissingRequiredFieldsAreNamed) {
  expect_error(R"({"id":"x","status":"creating","pid":7,"bundle":"/b"})",
               "\"ociVersion\" is missing");
  expect_error(R"({"ociVersion":"1","status":"creating","pid":7,"bundle":"/b"})",
               "\"id\" is missing");
  expect_error(R"({"ociVersion":"1","id":"x","pid":7,"bundle":"/b"})", "\"status\" is missing");
  expect_error(R"({"ociVersion":"1","id":"x","status":"creating","pid":7})",
               "\"bundle\" is missing");
  expect_error(R"({"ociVersion":"1","id":null,"status":"creating","pid":7,"bundle":"/b"})",
               "\"id\" is missing");
}

TEST(State, WrongTypesAreNamed) {
  expect_error(R"({"ociVersion":1,"id":"x","status":"c","pid":7,"bundle":"/b"})",
               "\"ociVersion\" must be a string");
  expect_error(R"({"ociVersion":"1","id":"x","status":"c","pid":"7","bundle":"/b"})",
               "\"pid\" must be an integer");
  expect_error(R"({"ociVersion":"1","id":"x","status":"c","pid":7,"bundle":["/b"]})",
               "\"bundle\" must be a string");
  expect_error(R"({"ociVersion":"1","id":"x","status":"c","pid":7,"bundlePath":5})",
               "\"bundlePath\" must be a string");
  expect_error(R"({"ociVersion":"1","id":"x","status":"c","pid":7,"bundle":"/b","annotations":[]})",
               "\"annotations\" must be an object");
  expect_error(
      R"({"ociVersion":"1","id":"x","status":"c","pid":7,"bundle":"/b","annotations":{"k":1}})",
      "annotation \"k\" must be a string");
  expect_error(R"({"ociVersion":"1","id":"x","status":"c","pid":7,"bundle":"/b","root":5})",
               "\"root\" must be a string or an object");
}

TEST(State, PidOutOfRangeIsAnError) {
  expect_error(R"({"ociVersion":"1","id":"x","status":"c","pid":-1,"bundle":"/b"})",
               "\"pid\" -1 must not be negative");
  expect_error(R"({"ociVersion":"1","id":"x","status":"c","pid":2147483648,"bundle":"/b"})",
               "\"pid\" 2147483648 is out of range");
  expect_error(R"({"ociVersion":"1","id":"x","status":"c","pid":7.5,"bundle":"/b"})",
               "number at /pid is not an integer");
}

TEST(State, LargestPidIsAccepted) {
  auto state =
      parse_state(R"({"ociVersion":"1","id":"x","status":"c","pid":2147483647,"bundle":"/b"})");
  ASSERT_TRUE(state);
  EXPECT_EQ(state->pid, 2147483647);
}

TEST(State, EmptyOrRelativeBundleIsAnError) {
  expect_error(R"({"ociVersion":"1","id":"x","status":"c","pid":7,"bundle":""})",
               "\"bundle\" must be an absolute path");
  expect_error(R"({"ociVersion":"1","id":"x","status":"c","pid":7,"bundle":"rel/b"})",
               "\"bundle\" must be an absolute path, got \"rel/b\"");
  expect_error(R"({"ociVersion":"1","id":"x","status":"c","pid":7,"bundlePath":"b"})",
               "\"bundlePath\" must be an absolute path");
}

TEST(State, MalformedDocumentsAreErrors) {
  expect_error("", "parse error");
  expect_error(R"({"ociVersion":"1")", "parse error");
  expect_error(R"([])", "top level must be an object");
  expect_error(R"({"ociVersion":"1","id":"x","status":"c","pid":7,"pid":8,"bundle":"/b"})",
               "duplicate key at /pid");
  expect_error("{\"ociVersion\":\"1\",\"id\":\"\xff\",\"status\":\"c\",\"bundle\":\"/b\"}",
               "UTF-8");
  expect_error(R"({"ociVersion":"1","id":"x","status":"c","bundle":"/b","x":)" +
                   std::string(100, '[') + std::string(100, ']') + "}",
               "nesting deeper");
}

}  // namespace
}  // namespace nvct::oci
