#include "nvct/driver/nvml_helper.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "fake_nvml.hpp"
#include "nvct/base/log.hpp"
#include "nvct/driver/driver_info.hpp"
#include "nvct/testing/temp_dir.hpp"
#include "synthetic_root.hpp"

namespace nvct::driver {
namespace {

namespace fs = std::filesystem;

std::string mig_reply() {
  auto api = testing::mig_topology();
  return encode_nvml_result(query_nvml(api));
}

// A fake helper: a shell script named like the real one, mode 0755.
std::string write_helper(const nvct::testing::TempDir& dir, const std::string& body) {
  std::string path = dir.write(std::string(kNvmlHelperName), "#!/bin/sh\n" + body + "\n");
  EXPECT_EQ(::chmod(path.c_str(), 0755), 0);
  return path;
}

NvmlProcessOptions sample_options() {
  NvmlProcessOptions o;
  o.root = "/run/driver";
  o.library = "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.14";
  o.user = NvmlUser{65534, 65533};
  o.timeout_ms = 5000;
  return o;
}

TEST(NvmlHelperArgv, AbsoluteHelperThenRootLibraryAndUserInDecimal) {
  auto argv = nvml_helper_argv("/usr/bin/nvidia-container-runtime-nvml", sample_options());
  EXPECT_EQ(argv,
            (std::vector<std::string>{
                "/usr/bin/nvidia-container-runtime-nvml", "--root", "/run/driver", "--library",
                "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.14", "--user", "65534:65533"}));
}

TEST(NvmlHelperArgv, NoUserMeansTheCallersIdsAndNoUserOption) {
  auto o = sample_options();
  o.user.reset();
  auto argv = nvml_helper_argv("/h", o);
  EXPECT_EQ(argv.size(), 5u);
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "--user"), argv.end());
}

TEST(NvmlHelperArgs, TheHelperParsesWhatTheShimBuilds) {
  auto argv = nvml_helper_argv("/h", sample_options());
  auto o = parse_nvml_helper_args({argv.begin() + 1, argv.end()});
  ASSERT_TRUE(o) << o.error().message();
  EXPECT_EQ(o->root, "/run/driver");
  EXPECT_EQ(o->library, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.14");
  ASSERT_TRUE(o->user);
  EXPECT_EQ(o->user->uid, 65534u);
  EXPECT_EQ(o->user->gid, 65533u);
}

TEST(NvmlHelperArgs, InvalidCommandLinesAreRefusedNamingTheProblem) {
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{}, "--root is required"},
      {{"--root", "/"}, "--library is required"},
      {{"--library", "/l"}, "--root is required"},
      {{"--root", "/", "--library"}, "--library needs a value"},
      {{"--root", "/", "--root", "/x", "--library", "/l"}, "--root given twice"},
      {{"--root", "relative", "--library", "/l"}, "--root must be an absolute path"},
      {{"--root", "/", "--library", "libnvidia-ml.so.1"}, "--library must be an absolute path"},
      {{"--root", "/", "--library", "/l", "--user", "65534"}, "--user must be <uid>:<gid>"},
      {{"--root", "/", "--library", "/l", "--user", "a:1"}, "invalid uid in --user"},
      {{"--root", "/", "--library", "/l", "--user", "1:-1"}, "invalid gid in --user"},
      {{"--root", "/", "--library", "/l", "--user", "1:1", "--user", "2:2"}, "--user given twice"},
      {{"--root", "/", "--library", "/l", "--env", "X=1"}, "unknown argument \"--env\""},
  };
  for (const auto& c : cases) {
    auto o = parse_nvml_helper_args(c.args);
    ASSERT_FALSE(o) << c.error;
    EXPECT_NE(o.error().message().find(c.error), std::string::npos)
        << "want [" << c.error << "] got [" << o.error().message() << "]";
  }
}

TEST(NvmlHelperSearch, OwnDirectoryFirstThenTheInstalledHelperDirOnly) {
  std::string self = fs::read_symlink("/proc/self/exe").parent_path().string();
  auto dirs = nvml_helper_search_dirs("/opt/nvct/libexec/nvct/");
  EXPECT_EQ(dirs, (std::vector<std::string>{self, "/opt/nvct/libexec/nvct"}));
  dirs = nvml_helper_search_dirs(self);
  EXPECT_EQ(dirs, (std::vector<std::string>{self}));
  // A relative install dir would be resolved against the caller's cwd: never searched.
  dirs = nvml_helper_search_dirs("libexec/nvct");
  EXPECT_EQ(dirs, (std::vector<std::string>{self}));
}

TEST(NvmlHelperFind, FirstSafeCandidateWins) {
  nvct::testing::TempDir a, b;
  std::string want = write_helper(b, "exit 0");
  auto found = find_nvml_helper({a.path(), b.path()});
  ASSERT_TRUE(found) << found.error().message();
  EXPECT_EQ(*found, want);
}

TEST(NvmlHelperFind, UnsafeCandidatesAreSkippedAndEachReasonReported) {
  nvct::testing::TempDir missing, writable, noexec, directory;
  ::chmod(write_helper(writable, "exit 0").c_str(), 0777);
  ::chmod(write_helper(noexec, "exit 0").c_str(), 0644);
  fs::create_directories(directory / std::string(kNvmlHelperName));
  auto found = find_nvml_helper({missing.path(), writable.path(), noexec.path(), directory.path()});
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error().code(), ENOENT);
  const std::string& msg = found.error().message();
  EXPECT_NE(msg.find("no usable NVML helper nvidia-container-runtime-nvml"), std::string::npos);
  EXPECT_NE(msg.find(missing / "nvidia-container-runtime-nvml (missing)"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find(writable / "nvidia-container-runtime-nvml (writable by group or others)"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find(noexec / "nvidia-container-runtime-nvml (not executable)"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find(directory / "nvidia-container-runtime-nvml (not a regular file)"),
            std::string::npos)
      << msg;
}

TEST(NvmlHelperQuery, DecodesTheFactsTheHelperPrints) {
  nvct::testing::TempDir dir;
  std::string helper = write_helper(dir, "printf '%s' '" + mig_reply() + "'");
  auto facts = query_nvml_through_helper(helper, sample_options());
  ASSERT_TRUE(facts) << facts.error().message();
  ASSERT_EQ(facts->gpus.size(), 2u);
  ASSERT_EQ(facts->gpus[0].migs.size(), 2u);
  EXPECT_EQ(facts->gpus[0].migs[1].gi, 2u);
}

TEST(NvmlHelperQuery, RunsWithExactArgvEmptyEnvironmentNullStdinAndNoInheritedFds) {
  nvct::testing::TempDir dir;
  std::string seen = dir / "seen";
  std::string helper = write_helper(dir,
                                    "{ for a in \"$0\" \"$@\"; do echo \"arg:$a\"; done\n"
                                    "  echo \"secret:${NVCT_TEST_SECRET-unset}\"\n"
                                    "  echo \"ldpreload:${LD_PRELOAD-unset}\"\n"
                                    "  echo \"stdin:$(readlink /proc/$$/fd/0)\"\n"
                                    "  [ -e /proc/$$/fd/100 ] && echo leaked:100\n"
                                    "} >" +
                                        seen + "\nprintf '%s' '" + mig_reply() + "'");
  ::setenv("NVCT_TEST_SECRET", "from-the-caller", 1);
  ::setenv("LD_PRELOAD", "/nonexistent/evil.so", 1);
  int leak = ::open("/dev/null", O_RDONLY);  // without O_CLOEXEC, as an inherited fd would be
  ASSERT_EQ(::dup2(leak, 100), 100);
  auto facts = query_nvml_through_helper(helper, sample_options());
  ::close(100);
  ::close(leak);
  ::unsetenv("NVCT_TEST_SECRET");
  ::unsetenv("LD_PRELOAD");
  ASSERT_TRUE(facts) << facts.error().message();
  EXPECT_EQ(dir.read("seen"),
            "arg:" + helper +
                "\narg:--root\narg:/run/driver\narg:--library\n"
                "arg:/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.14\narg:--user\n"
                "arg:65534:65533\nsecret:unset\nldpreload:unset\nstdin:/dev/null\n");
}

TEST(NvmlHelperQuery, AnNvmlErrorReplyIsTheError) {
  nvct::testing::TempDir dir;
  std::string helper = write_helper(
      dir, "printf '%s' '{\"error\":\"nvml error: driver/library version mismatch\"}'; exit 1");
  auto facts = query_nvml_through_helper(helper, sample_options());
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.error().message(), "nvml error: driver/library version mismatch");
}

TEST(NvmlHelperQuery, ExitWithoutReplyReportsStatusAndStderr) {
  nvct::testing::TempDir dir;
  std::string helper = write_helper(dir, "echo 'unknown argument \"--x\"' >&2; exit 2");
  auto facts = query_nvml_through_helper(helper, sample_options());
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.error().code(), EIO);
  EXPECT_EQ(facts.error().message(),
            "the NVML helper " + helper + " exited with status 2: unknown argument \"--x\"");
}

TEST(NvmlHelperQuery, ReplyOfAFailedHelperIsNotTrusted) {
  nvct::testing::TempDir dir;
  std::string helper = write_helper(dir, "printf '%s' '" + mig_reply() + "'; exit 3");
  auto facts = query_nvml_through_helper(helper, sample_options());
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.error().message(),
            "the NVML helper " + helper + " exited with status 3: no message");
}

TEST(NvmlHelperQuery, MalformedReplyNamesTheHelper) {
  nvct::testing::TempDir dir;
  std::string helper = write_helper(dir, "echo 'not json'");
  auto facts = query_nvml_through_helper(helper, sample_options());
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.error().code(), EPROTO);
  EXPECT_EQ(facts.error().message(),
            "malformed reply from the NVML helper " + helper + " (exit status 0)");
}

TEST(NvmlHelperQuery, KilledHelperIsReportedWithTheSignal) {
  nvct::testing::TempDir dir;
  std::string helper = write_helper(dir, "echo dying >&2; kill -9 $$");
  auto facts = query_nvml_through_helper(helper, sample_options());
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.error().message(),
            "the NVML helper " + helper + " was killed by signal 9: dying");
}

TEST(NvmlHelperQuery, HungHelperIsKilledAtTheDeadline) {
  nvct::testing::TempDir dir;
  std::string pidfile = dir / "pid";
  std::string helper = write_helper(dir, "echo $$ >" + pidfile + "; exec sleep 30");
  auto o = sample_options();
  o.timeout_ms = 300;
  auto start = std::chrono::steady_clock::now();
  auto facts = query_nvml_through_helper(helper, o);
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.error().code(), ETIMEDOUT);
  EXPECT_EQ(facts.error().message(),
            "nvml error: the NVML helper " + helper + " timed out after 300 ms");
  EXPECT_LT(took, std::chrono::seconds(5));
  pid_t pid = std::stoi(dir.read("pid"));
  EXPECT_NE(::kill(pid, 0), 0) << "the helper (pid " << pid << ") is still running";
}

TEST(NvmlHelperQuery, HelperThatClosesItsPipesButHangsIsKilledToo) {
  nvct::testing::TempDir dir;
  std::string helper = write_helper(dir, "exec sleep 30 >&- 2>&-");
  auto o = sample_options();
  o.timeout_ms = 300;
  auto facts = query_nvml_through_helper(helper, o);
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.error().code(), ETIMEDOUT);
}

TEST(NvmlHelperQuery, RelativeHelperPathIsRefused) {
  auto facts = query_nvml_through_helper("nvidia-container-runtime-nvml", sample_options());
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.error().code(), EINVAL);
}

// --query cuda: the csv mode's libcuda query through the same helper (cuda_driver_query.hpp).
TEST(CudaHelperArgv, QueryCudaFollowsTheHelperPath) {
  auto argv = cuda_helper_argv("/usr/bin/nvidia-container-runtime-nvml", sample_options());
  EXPECT_EQ(argv, (std::vector<std::string>{"/usr/bin/nvidia-container-runtime-nvml", "--query",
                                            "cuda", "--root", "/run/driver", "--library",
                                            "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.14",
                                            "--user", "65534:65533"}));
}

TEST(HelperRequest, QueryIsParsedAnywhereAndDefaultsToNvml) {
  auto argv = cuda_helper_argv("/h", sample_options());
  auto r = parse_helper_request({argv.begin() + 1, argv.end()});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->query, HelperQuery::kCuda);
  EXPECT_EQ(r->options.root, "/run/driver");
  EXPECT_EQ(r->options.user->uid, 65534u);
  auto at_end = parse_helper_request({"--root", "/", "--library", "/l", "--query", "cuda"});
  ASSERT_TRUE(at_end) << at_end.error().message();
  EXPECT_EQ(at_end->query, HelperQuery::kCuda);
  auto plain = parse_helper_request({"--root", "/", "--library", "/l"});
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->query, HelperQuery::kNvml);
  auto nvml = parse_helper_request({"--query", "nvml", "--root", "/", "--library", "/l"});
  ASSERT_TRUE(nvml);
  EXPECT_EQ(nvml->query, HelperQuery::kNvml);
}

TEST(HelperRequest, BadQueriesAreRefused) {
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  for (const auto& c : std::vector<Case>{
           {{"--query", "gpu", "--root", "/", "--library", "/l"}, "--query must be nvml or cuda"},
           {{"--query", "cuda", "--query", "cuda", "--root", "/", "--library", "/l"},
            "--query given twice"},
           {{"--root", "/", "--library", "/l", "--query"}, "--query needs a value"},
           {{"--query", "cuda", "--library", "/l"}, "--root is required"}}) {
    auto r = parse_helper_request(c.args);
    ASSERT_FALSE(r) << c.message;
    EXPECT_NE(r.error().message().find(c.message), std::string::npos) << r.error().message();
  }
}

TEST(CudaHelperQuery, DecodesTheReplyAndPassesQueryCuda) {
  nvct::testing::TempDir dir;
  std::string helper = write_helper(
      dir,
      "[ \"$1 $2\" = \"--query cuda\" ] || exit 2\n"
      "printf '%s' '{\"cuda\":{\"driver_version\":12040,\"arch_error\":\"no cuInit\"}}'");
  auto facts = query_cuda_through_helper(helper, sample_options());
  ASSERT_TRUE(facts) << facts.error().message();
  EXPECT_EQ(facts->driver_version, 12040);
  EXPECT_FALSE(facts->device0_arch);
  EXPECT_EQ(facts->arch_error, "no cuInit");
}

TEST(CudaHelperQuery, ErrorReplyAndMalformedReply) {
  nvct::testing::TempDir dir;
  std::string helper =
      write_helper(dir, "printf '%s' '{\"error\":\"load library failed: nope\"}'; exit 1");
  auto facts = query_cuda_through_helper(helper, sample_options());
  ASSERT_FALSE(facts);
  EXPECT_EQ(facts.error().message(), "load library failed: nope");
  nvct::testing::TempDir dir2;
  std::string bad = write_helper(dir2, "printf 'garbage'");
  auto r = query_cuda_through_helper(bad, sample_options());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), EPROTO);
  EXPECT_NE(r.error().message().find(bad), std::string::npos);
}

// The runner is what the static shim installs: query_nvml_in_child then runs the helper.
class NvmlHelperRunnerTest : public ::testing::Test {
 protected:
  void TearDown() override { set_nvml_process_runner(nullptr); }
};

TEST_F(NvmlHelperRunnerTest, QueryInChildExecutesTheHelperFoundInTheSearchDirs) {
  nvct::testing::TempDir empty, dir;
  std::string helper = write_helper(dir, "printf '%s' '" + mig_reply() + "'");
  set_nvml_process_runner(nvml_helper_runner({empty.path(), dir.path()}));
  auto facts = query_nvml_in_child(sample_options());
  ASSERT_TRUE(facts) << facts.error().message();
  EXPECT_EQ(facts->gpus.size(), 2u);
}

TEST_F(NvmlHelperRunnerTest, MissingHelperFallsBackToProcfsWithAWarningNamingTheReason) {
  testing::SyntheticRoot r;
  r.library("/usr/lib/x86_64-linux-gnu", "libnvidia-ml.so.550.54.14", "libnvidia-ml.so.1");
  r.write_cache();
  r.file("/proc/driver/nvidia/version",
         "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 2024\n");
  r.file("/proc/driver/nvidia/gpus/0000:17:00.0/information",
         "Model: \t H100\nGPU UUID: \t GPU-a\nBus Location: \t 0000:17:00.0\nDevice Minor: \t 0\n");
  nvct::testing::TempDir empty;
  set_nvml_process_runner(nvml_helper_runner({empty.path()}));
  auto sink = std::make_shared<nvct::testing::MemorySink>();
  log::set_sink(sink);
  DiscoverOptions o;
  o.root = r.path();
  auto ctx = initialize_driver(o, isolated_nvml_query(std::nullopt));
  log::set_sink(nullptr);
  ASSERT_TRUE(ctx) << ctx.error().message();
  EXPECT_TRUE(ctx->nvml_fallback);
  ASSERT_EQ(ctx->nvml.gpus.size(), 1u);
  EXPECT_TRUE(sink->contains("no usable NVML helper nvidia-container-runtime-nvml: " +
                             (empty / "nvidia-container-runtime-nvml (missing)") +
                             "; using /proc/driver/nvidia instead of NVML"))
      << (sink->lines.empty() ? "no log line" : sink->lines.back().second);
}

}  // namespace
}  // namespace nvct::driver
