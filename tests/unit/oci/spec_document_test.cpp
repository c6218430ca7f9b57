#include "nvct/oci/spec_document.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "nvct/base/file.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::oci {
namespace {

using nlohmann::ordered_json;
using nvct::testing::TempDir;

std::string fixture(const std::string& name) {
  auto text = read_file(std::string(NVCT_SOURCE_DIR) + "/tests/data/oci/" + name);
  EXPECT_TRUE(text) << "missing fixture tests/data/oci/" << name;
  return text ? *text : std::string();
}

std::vector<std::string> list_dir(const std::string& path) {
  std::vector<std::string> out;
  DIR* d = ::opendir(path.c_str());
  if (!d) return out;
  while (auto* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back(n);
  }
  ::closedir(d);
  return out;
}

// A bundle directory holding one config.json.
struct Bundle {
  explicit Bundle(const std::string& config) { tmp.write("config.json", config); }
  std::string config() const { return tmp.read("config.json"); }
  TempDir tmp;
};

// --- round-trip fidelity (security.md #33) ---

TEST(SpecDocumentRoundTrip, SaveWithoutEditsMatchesIndependentGolden) {
  // docker_spec.saved.json was produced by Python's json module (compact, ensure_ascii=False),
  // an implementation independent of ours.
  Bundle b(fixture("docker_spec.json"));
  auto doc = SpecDocument::load(b.tmp.path());
  ASSERT_TRUE(doc) << doc.error().message();
  ASSERT_TRUE(doc->save()) << doc->save().error().message();
  EXPECT_EQ(b.config(), fixture("docker_spec.saved.json"));
}

TEST(SpecDocumentRoundTrip, SemanticallyIdenticalWithIdenticalKeyOrder) {
  Bundle b(fixture("docker_spec.json"));
  auto doc = SpecDocument::load(b.tmp.path());
  ASSERT_TRUE(doc);
  ASSERT_TRUE(doc->save());
  auto before = parse_spec(fixture("docker_spec.json"), "before");
  auto after = parse_spec(b.config(), "after");
  ASSERT_TRUE(before);
  ASSERT_TRUE(after);
  // ordered_json compares objects as ordered sequences, and dump() shows the order.
  EXPECT_EQ(*before, *after);
  EXPECT_EQ(before->dump(), after->dump());
}

TEST(SpecDocumentRoundTrip, SecondSaveIsByteIdentical) {
  Bundle b(fixture("docker_spec.json"));
  ASSERT_TRUE(SpecDocument::load(b.tmp.path())->save());
  std::string first = b.config();
  ASSERT_TRUE(SpecDocument::load(b.tmp.path())->save());
  EXPECT_EQ(b.config(), first);
}

TEST(SpecDocumentRoundTrip, KeepsSixtyFourBitIntegersExactly) {
  Bundle b(fixture("docker_spec.json"));
  ASSERT_TRUE(SpecDocument::load(b.tmp.path())->save());
  auto after = parse_spec(b.config(), "after");
  ASSERT_TRUE(after);
  const auto& j = *after;
  constexpr auto kU64Max = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(j["process"]["rlimits"][0]["hard"].get<std::uint64_t>(), kU64Max);
  EXPECT_EQ(j["linux"]["seccomp"]["syscalls"][0]["args"][0]["value"].get<std::uint64_t>(), kU64Max);
  EXPECT_EQ(j["linux"]["seccomp"]["syscalls"][1]["args"][0]["valueTwo"].get<std::uint64_t>(),
            9223372036854775808ULL);
  EXPECT_EQ(j["linux"]["resources"]["memory"]["limit"].get<std::int64_t>(),
            std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(j["linux"]["resources"]["memory"]["reservation"].get<std::int64_t>(),
            std::numeric_limits<std::int64_t>::min());
  EXPECT_NE(b.config().find("\"hard\":18446744073709551615"), std::string::npos);
  EXPECT_NE(b.config().find("\"min\":-9223372036854775808"), std::string::npos);
}

TEST(SpecDocumentRoundTrip, KeepsUnknownFieldsAtAllLevels) {
  Bundle b(fixture("docker_spec.json"));
  ASSERT_TRUE(SpecDocument::load(b.tmp.path())->save());
  auto j = *parse_spec(b.config(), "after");
  EXPECT_EQ(j["x-top-level-unknown"].dump(),
            R"({"order":["c","b","a"],"min":-9223372036854775808})");
  EXPECT_EQ(j["process"]["x-vendor-process-extension"].dump(),
            R"({"zeta":1,"alpha":{"nested":[{"b":2,"a":1}]}})");
  EXPECT_EQ(j["linux"]["x-future-linux-field"], "kept");
  EXPECT_EQ(j["linux"]["resources"]["x-unknown-resource"].dump(), R"({"keep":[true,false,null]})");
  EXPECT_EQ(j["linux"]["seccomp"]["x-future-seccomp-field"]["listenerPath"], "/run/seccomp.sock");
}

TEST(SpecDocumentRoundTrip, KeepsUnicodeAsUtf8) {
  Bundle b(fixture("docker_spec.json"));
  ASSERT_TRUE(SpecDocument::load(b.tmp.path())->save());
  std::string out = b.config();
  EXPECT_NE(out.find("ünïcödé 日本語"), std::string::npos);
  EXPECT_NE(out.find("\xe2\x9c\x93 \xf0\x9f\x98\x80"), std::string::npos);  // ✓ and U+1F600
  EXPECT_NE(out.find(R"(\"héllo wörld\")"), std::string::npos);
}

TEST(SpecDocumentRoundTrip, EditAddsHookAndKeepsEverythingElse) {
  Bundle b(fixture("docker_spec.json"));
  auto doc = SpecDocument::load(b.tmp.path());
  ASSERT_TRUE(doc);
  doc->mutable_hooks("prestart")
      .push_back(ordered_json{{"path", "/usr/bin/nvidia-container-runtime-hook"},
                              {"args", {"nvidia-container-runtime-hook", "prestart"}}});
  ASSERT_TRUE(doc->save());
  auto after = *parse_spec(b.config(), "after");
  auto expected = *parse_spec(fixture("docker_spec.json"), "before");
  ASSERT_EQ(after["hooks"]["prestart"].size(), 2u);
  EXPECT_EQ(after["hooks"]["prestart"][0]["path"], "/usr/bin/other-hook");
  EXPECT_EQ(after["hooks"]["prestart"][1]["path"], "/usr/bin/nvidia-container-runtime-hook");
  after["hooks"]["prestart"].erase(1);
  EXPECT_EQ(after.dump(), expected.dump());
}

// --- saving ---

TEST(SpecDocumentSave, KeepsMode0600) {
  Bundle b(fixture("ctr_hooks_null.json"));
  ASSERT_EQ(::chmod((b.tmp / "config.json").c_str(), 0600), 0);
  auto doc = SpecDocument::load(b.tmp.path());
  ASSERT_TRUE(doc);
  doc->mutable_hooks("prestart").push_back(ordered_json{{"path", "/x"}});
  ASSERT_TRUE(doc->save());
  struct stat st {};
  ASSERT_EQ(::stat((b.tmp / "config.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST(SpecDocumentSave, LeavesNoTemporaryFile) {
  Bundle b(fixture("docker_spec.json"));
  ASSERT_TRUE(SpecDocument::load(b.tmp.path())->save());
  EXPECT_EQ(list_dir(b.tmp.path()), std::vector<std::string>{"config.json"});
}

TEST(SpecDocumentSave, ReplacesTheFileRatherThanRewritingIt) {
  // A reader holding the old file keeps the old bytes: the rename is atomic (security.md #38).
  Bundle b(fixture("ctr_hooks_null.json"));
  struct stat before {
  }, after{};
  ASSERT_EQ(::stat((b.tmp / "config.json").c_str(), &before), 0);
  ASSERT_TRUE(SpecDocument::load(b.tmp.path())->save());
  ASSERT_EQ(::stat((b.tmp / "config.json").c_str(), &after), 0);
  EXPECT_NE(before.st_ino, after.st_ino);
}

TEST(SpecDocumentSave, SigkillDuringSaveLeavesOldOrNewNeverPartial) {
  // security.md #38: kill a saving child at moments spread over [0, 3 x one save's duration];
  // config.json must always be one complete version. A ~2 MiB document widens the window.
  Bundle b(R"({"ociVersion":"1.0.2","annotations":{"v":"0","pad":")" + std::string(2u << 20, 'p') +
           R"("}})");
  auto timed = SpecDocument::load(b.tmp.path());
  ASSERT_TRUE(timed);
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(timed->save());
  auto save_us = std::chrono::duration_cast<std::chrono::microseconds>(
                     std::chrono::steady_clock::now() - start)
                     .count();
  constexpr int kRounds = 16;
  std::string last_complete = b.config();
  int completed = 0;
  for (int i = 1; i <= kRounds; ++i) {
    auto doc = SpecDocument::load(b.tmp.path());
    ASSERT_TRUE(doc) << "round " << i << ": " << doc.error().message();
    doc->json()["annotations"]["v"] = std::to_string(i);
    const std::string next = doc->json().dump() + "\n";
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) _exit(doc->save() ? 0 : 1);
    ::usleep(static_cast<useconds_t>(save_us * 3 * (i - 1) / (kRounds - 1)));
    ::kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    std::string now = b.config();
    ASSERT_TRUE(now == last_complete || now == next)
        << "round " << i << ": config.json is neither the old nor the new version (" << now.size()
        << " bytes)";
    if (now == next) ++completed;
    last_complete = now;
  }
  RecordProperty("rounds_completed_before_kill", completed);
}

TEST(SpecDocumentSave, WritesIntoTheLoadedDirectoryEvenAfterARename) {
  // The directory fd is the bundle: a path swapped underneath after load is not written.
  TempDir outer;
  outer.write("b1/config.json", fixture("ctr_hooks_null.json"));
  auto doc = SpecDocument::load(outer / "b1");
  ASSERT_TRUE(doc);
  ASSERT_EQ(::rename((outer / "b1").c_str(), (outer / "b2").c_str()), 0);
  outer.write("b1/config.json", "{}");
  doc->mutable_hooks("prestart").push_back(ordered_json{{"path", "/x"}});
  ASSERT_TRUE(doc->save());
  EXPECT_EQ(outer.read("b1/config.json"), "{}");
  EXPECT_NE(outer.read("b2/config.json").find("\"/x\""), std::string::npos);
}

TEST(SpecDocumentSave, InvalidUtf8EditedInIsAnErrorAndFileUntouched) {
  Bundle b(fixture("ctr_hooks_null.json"));
  auto doc = SpecDocument::load(b.tmp.path());
  ASSERT_TRUE(doc);
  doc->json()["annotations"] = ordered_json{{"k", "\xff"}};
  auto saved = doc->save();
  ASSERT_FALSE(saved);
  EXPECT_NE(saved.error().message().find("save OCI spec"), std::string::npos);
  EXPECT_EQ(b.config(), fixture("ctr_hooks_null.json"));
  EXPECT_EQ(list_dir(b.tmp.path()), std::vector<std::string>{"config.json"});
}

// --- loading: the cwd default and malformed files (security.md #32) ---

TEST(SpecDocumentLoad, EmptyBundleMeansTheCurrentDirectory) {
  Bundle b(fixture("ctr_hooks_null.json"));
  char old[4096];
  ASSERT_NE(::getcwd(old, sizeof old), nullptr);
  ASSERT_EQ(::chdir(b.tmp.path().c_str()), 0);
  auto doc = SpecDocument::load("");
  ASSERT_EQ(::chdir(old), 0);
  ASSERT_TRUE(doc) << doc.error().message();
  EXPECT_EQ(doc->path(), "config.json");
  EXPECT_EQ((*doc).json()["ociVersion"], "1.1.0");
}

TEST(SpecDocumentLoad, MissingFileNamesIt) {
  TempDir tmp;
  auto doc = SpecDocument::load(tmp.path());
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().code(), ENOENT);
  EXPECT_NE(doc.error().message().find(tmp.path() + "/config.json"), std::string::npos)
      << doc.error().message();
}

TEST(SpecDocumentLoad, MissingBundleDirectoryIsAnError) {
  TempDir tmp;
  auto doc = SpecDocument::load(tmp / "nope");
  ASSERT_FALSE(doc);
  EXPECT_NE(doc.error().message().find("open bundle directory"), std::string::npos);
}

TEST(SpecDocumentLoad, SymlinkedConfigIsNotFollowed) {
  TempDir tmp;
  tmp.write("real.json", fixture("ctr_hooks_null.json"));
  ASSERT_EQ(::symlink("real.json", (tmp / "config.json").c_str()), 0);
  auto doc = SpecDocument::load(tmp.path());
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().code(), ELOOP);
}

TEST(SpecDocumentLoad, FifoConfigFailsWithoutBlocking) {
  TempDir tmp;
  ASSERT_EQ(::mkfifo((tmp / "config.json").c_str(), 0600), 0);
  auto doc = SpecDocument::load(tmp.path());
  ASSERT_FALSE(doc);
  EXPECT_NE(doc.error().message().find("config.json: not a regular file"), std::string::npos)
      << doc.error().message();
}

TEST(SpecDocumentLoad, DirectoryConfigIsAnError) {
  TempDir tmp;
  ASSERT_EQ(::mkdir((tmp / "config.json").c_str(), 0700), 0);
  auto doc = SpecDocument::load(tmp.path());
  ASSERT_FALSE(doc);
  EXPECT_NE(doc.error().message().find("not a regular file"), std::string::npos);
}

TEST(SpecDocumentLoad, TooBigIsRejected) {
  // Valid JSON, one byte over the cap: the size alone decides.
  std::string big = R"({"x":")" + std::string(kMaxSpecSize - 7, 'a') + R"("})";
  ASSERT_EQ(big.size(), kMaxSpecSize + 1);
  Bundle b(big);
  auto doc = SpecDocument::load(b.tmp.path());
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().code(), EFBIG);
  EXPECT_NE(doc.error().message().find("config.json: larger than"), std::string::npos);
  EXPECT_EQ(b.config(), big);
}

TEST(SpecDocumentLoad, AtTheSizeCapIsAccepted) {
  std::string big = R"({"x":")" + std::string(kMaxSpecSize - 8, 'a') + R"("})";
  ASSERT_EQ(big.size(), kMaxSpecSize);
  Bundle b(big);
  EXPECT_TRUE(SpecDocument::load(b.tmp.path()));
}

// Every malformed input fails with one error naming the file and leaves it byte-identical.
struct MalformedRow {
  std::string name;
  std::string content;
  std::string message_part;
};

class SpecDocumentMalformed : public ::testing::TestWithParam<MalformedRow> {};

TEST_P(SpecDocumentMalformed, FailsClosedAndLeavesFileUntouched) {
  const auto& row = GetParam();
  Bundle b(row.content);
  auto doc = SpecDocument::load(b.tmp.path());
  ASSERT_FALSE(doc) << row.name;
  const std::string& msg = doc.error().message();
  EXPECT_EQ(msg.rfind("load OCI spec " + b.tmp.path() + "/config.json: ", 0), 0u) << msg;
  EXPECT_NE(msg.find(row.message_part), std::string::npos) << msg;
  EXPECT_EQ(b.config(), row.content);
  EXPECT_EQ(list_dir(b.tmp.path()), std::vector<std::string>{"config.json"});
}

std::vector<MalformedRow> malformed_rows() {
  return {
      {"Truncated", fixture("truncated.json"), "parse error"},
      {"TrailingGarbage", fixture("trailing_garbage.json"), "parse error"},
      {"InvalidUtf8", fixture("invalid_utf8.json"), "UTF-8"},
      {"DuplicateProcess", fixture("duplicate_process.json"), "duplicate key at /process"},
      {"Float", fixture("float_value.json"), "number at /x is not an integer"},
      {"CaseFoldedKey", fixture("case_folded_key.json"),
       "key \"Process\" in the top level would be read by runc as \"process\""},
      {"UnicodeFoldedKey", "{\"proce\xc5\xbfs\":{}}", "would be read by runc as \"process\""},
      {"KelvinFoldedKey", "{\"hoo\xe2\x84\xaas\":null}", "would be read by runc as \"hooks\""},
      {"Depth10000", std::string(10000, '[') + std::string(10000, ']'), "nesting deeper"},
      {"Depth65", R"({"a":)" + std::string(64, '[') + std::string(64, ']') + "}",
       "nesting deeper than 64"},
      {"ByteOrderMark", "\xEF\xBB\xBF{}", "byte-order mark"},
      {"Empty", "", "parse error"},
      {"TopLevelArray", "[]", "top level must be an object"},
      {"ProcessNotObject", R"({"process":[]})", "process must be an object"},
      {"EnvNotArray", R"({"process":{"env":"A=1"}})", "process.env must be an array"},
      {"EnvEntryNotString", R"({"process":{"env":["A=1",2]}})", "process.env[1] must be a string"},
      {"RootNotObject", R"({"root":"rootfs"})", "root must be an object"},
      {"RootPathNotString", R"({"root":{"path":1}})", "root.path must be a string"},
      {"HooksNotObject", R"({"hooks":[]})", "hooks must be an object or null"},
      {"HookListNotArray", R"({"hooks":{"prestart":{}}})", "hooks.prestart must be an array"},
      {"HookNotObject", R"({"hooks":{"poststop":["x"]}})", "hooks.poststop[0] must be an object"},
      {"AnnotationNotString", R"({"annotations":{"a":1}})", "annotation \"a\" must be a string"},
  };
}

INSTANTIATE_TEST_SUITE_P(Rows, SpecDocumentMalformed, ::testing::ValuesIn(malformed_rows()),
                         [](const auto& row_info) { return row_info.param.name; });

TEST(SpecDocumentLoad, DepthAtTheCapIsAccepted) {
  Bundle b(R"({"a":)" + std::string(63, '[') + std::string(63, ']') + "}");
  EXPECT_TRUE(SpecDocument::load(b.tmp.path()));
}

TEST(SpecDocumentLoad, NullFieldsAreAbsentFields) {
  Bundle b(R"({"process":null,"root":null,"hooks":null,"annotations":null})");
  auto doc = SpecDocument::load(b.tmp.path());
  ASSERT_TRUE(doc) << doc.error().message();
  EXPECT_FALSE(doc->env());
  EXPECT_EQ(doc->hooks("prestart"), nullptr);
}

// --- hooks ---

TEST(SpecDocumentHooks, NullHooksMeansNoHooks) {
  Bundle b(fixture("ctr_hooks_null.json"));
  auto doc = SpecDocument::load(b.tmp.path());
  ASSERT_TRUE(doc) << doc.error().message();
  EXPECT_EQ(doc->hooks("prestart"), nullptr);
  EXPECT_EQ(doc->hooks("poststop"), nullptr);
}

TEST(SpecDocumentHooks, AppendingToNullHooksKeepsTheirPosition) {
  Bundle b(fixture("ctr_hooks_null.json"));
  auto doc = SpecDocument::load(b.tmp.path());
  ASSERT_TRUE(doc);
  doc->mutable_hooks("prestart").push_back(ordered_json{{"path", "/h"}});
  ASSERT_TRUE(doc->save());
  EXPECT_EQ(b.config(),
            R"({"ociVersion":"1.1.0","process":{"user":{"uid":0,"gid":0},"args":["sh"],)"
            R"("env":["PATH=/usr/bin"],"cwd":"/"},"root":{"path":"rootfs"},)"
            R"("hooks":{"prestart":[{"path":"/h"}]},"linux":{"namespaces":[{"type":"pid"}]}})"
            "\n");
}

TEST(SpecDocumentHooks, AbsentHooksAreAppendedAtTheEnd) {
  Bundle b(fixture("minimal_no_process.json"));
  auto doc = SpecDocument::load(b.tmp.path());
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->hooks("prestart"), nullptr);
  doc->mutable_hooks("createContainer").push_back(ordered_json{{"path", "/h"}});
  EXPECT_EQ(doc->json().dump(), R"({"ociVersion":"1.0.2","root":{"path":"/abs/rootfs"},)"
                                R"("hooks":{"createContainer":[{"path":"/h"}]}})");
}

TEST(SpecDocumentHooks, NullStageInObjectIsReplacedInPlace) {
  Bundle b(R"({"hooks":{"prestart":null,"poststop":[]}})");
  auto doc = SpecDocument::load(b.tmp.path());
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->hooks("prestart"), nullptr);
  ASSERT_NE(doc->hooks("poststop"), nullptr);
  EXPECT_TRUE(doc->hooks("poststop")->empty());
  doc->mutable_hooks("prestart").push_back(ordered_json{{"path", "/h"}});
  EXPECT_EQ(doc->json().dump(), R"({"hooks":{"prestart":[{"path":"/h"}],"poststop":[]}})");
}

TEST(SpecDocumentHooks, ExistingListIsReturned) {
  Bundle b(fixture("docker_spec.json"));
  auto doc = SpecDocument::load(b.tmp.path());
  ASSERT_TRUE(doc);
  ASSERT_NE(doc->hooks("prestart"), nullptr);
  EXPECT_EQ((*doc->hooks("prestart"))[0]["path"], "/usr/bin/other-hook");
}

// --- environment ---

TEST(SpecDocumentEnv, LastOccurrenceWins) {
  Bundle b(fixture("docker_spec.json"));
  auto doc = SpecDocument::load(b.tmp.path());
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->env_value("NVIDIA_VISIBLE_DEVICES"), "all");
}

TEST(SpecDocumentEnv, EmptyValueIsSetButBareNameIsNot) {
  Bundle b(fixture("docker_spec.json"));
  auto doc = SpecDocument::load(b.tmp.path());
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->env_value("EMPTY"), "");
  EXPECT_EQ(doc->env_value("NOVALUE"), std::nullopt);
  EXPECT_EQ(doc->env_value("MISSING"), std::nullopt);
  EXPECT_EQ(doc->env_value("NVIDIA"), std::nullopt);  // a prefix is not a name
  EXPECT_EQ(doc->env_value("PATH"), "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
}

TEST(SpecDocumentEnv, ValueMayContainEquals) {
  Bundle b(R"({"process":{"env":["A=b=c"]}})");
  EXPECT_EQ(SpecDocument::load(b.tmp.path())->env_value("A"), "b=c");
}

TEST(SpecDocumentEnv, EnvListInOrderWithDuplicates) {
  Bundle b(fixture("docker_spec.json"));
  auto env = SpecDocument::load(b.tmp.path())->env();
  ASSERT_TRUE(env);
  ASSERT_EQ(env->size(), 6u);
  EXPECT_EQ((*env)[1], "NVIDIA_VISIBLE_DEVICES=void");
  EXPECT_EQ((*env)[3], "NVIDIA_VISIBLE_DEVICES=all");
}

TEST(SpecDocumentEnv, AbsentProcessMeansNoEnv) {
  Bundle b(fixture("minimal_no_process.json"));
  auto doc = SpecDocument::load(b.tmp.path());
  ASSERT_TRUE(doc);
  EXPECT_FALSE(doc->env());
  EXPECT_EQ(doc->env_value("PATH"), std::nullopt);
}

TEST(SpecDocumentEnv, ProcessWithoutEnvMeansNoEnv) {
  Bundle b(R"({"process":{"args":["sh"]}})");
  EXPECT_FALSE(SpecDocument::load(b.tmp.path())->env());
}

// --- rootfs ---

// Loads {"root":{"path":root_path}} from a fresh bundle; returns {bundle, rootfs_path()}.
std::pair<std::string, std::string> rootfs_for(const std::string& root_path) {
  TempDir tmp;
  tmp.write("config.json", R"({"root":{"path":")" + root_path + R"("}})");
  auto doc = SpecDocument::load(tmp.path());
  EXPECT_TRUE(doc);
  if (!doc) return {tmp.path(), ""};
  auto path = doc->rootfs_path();
  EXPECT_TRUE(path) << path.error().message();
  return {tmp.path(), path ? *path : std::string()};
}

TEST(SpecDocumentRootfs, RelativeIsJoinedToBundle) {
  for (auto [root, rel] : {std::pair{"rootfs", "/rootfs"}, std::pair{"./rootfs/", "/rootfs"},
                           std::pair{"a/b", "/a/b"}}) {
    auto [bundle, path] = rootfs_for(root);
    EXPECT_EQ(path, bundle + rel) << root;
  }
}

TEST(SpecDocumentRootfs, AbsoluteIsKept) {
  EXPECT_EQ(rootfs_for("/var/lib/rootfs").second, "/var/lib/rootfs");
  EXPECT_EQ(rootfs_for("/var/lib/rootfs/").second, "/var/lib/rootfs");
}

TEST(SpecDocumentRootfs, DotIsTheBundle) {
  auto [bundle, path] = rootfs_for(".");
  EXPECT_EQ(path, bundle);
}

TEST(SpecDocumentRootfs, CwdBundleGivesRelativePath) {
  Bundle b(R"({"root":{"path":"rootfs"}})");
  char old[4096];
  ASSERT_NE(::getcwd(old, sizeof old), nullptr);
  ASSERT_EQ(::chdir(b.tmp.path().c_str()), 0);
  auto doc = SpecDocument::load("");
  ASSERT_EQ(::chdir(old), 0);
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->rootfs_path(), "./rootfs");
}

TEST(SpecDocumentRootfs, MissingOrEmptyRootIsAnError) {
  for (const char* spec : {R"({})", R"({"root":{}})", R"({"root":{"path":""}})"}) {
    Bundle b(spec);
    auto doc = SpecDocument::load(b.tmp.path());
    ASSERT_TRUE(doc) << spec;
    auto path = doc->rootfs_path();
    ASSERT_FALSE(path) << spec;
    EXPECT_NE(path.error().message().find("root.path"), std::string::npos);
  }
}

}  // namespace
}  // namespace nvct::oci
