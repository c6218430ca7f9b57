#include "nvct/oci/runtime_args.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace nvct::oci {
namespace {

using Args = std::vector<std::string>;

std::string show(const Args& args) {
  std::string out = "[";
  for (std::size_t i = 0; i < args.size(); ++i) out += (i ? " " : "") + args[i];
  return out + "]";
}

// spec/runtime.md §4, table TestGetBundleDir: argv -> bundle.
struct BundleRow {
  Args args;
  std::string bundle;
};

class GetBundleDir : public ::testing::TestWithParam<BundleRow> {};

TEST_P(GetBundleDir, MatchesReferenceTable) {
  const auto& row = GetParam();
  auto parsed = parse_runtime_args(row.args);
  ASSERT_TRUE(parsed) << show(row.args) << ": " << parsed.error().message();
  EXPECT_EQ(parsed->bundle, row.bundle) << show(row.args);
}

INSTANTIATE_TEST_SUITE_P(ReferenceRows, GetBundleDir,
                         ::testing::Values(BundleRow{{}, ""}, BundleRow{{"create"}, ""},
                                           BundleRow{{"--bundle", "/foo/bar"}, "/foo/bar"},
                                           BundleRow{{"--not-bundle", "/foo/bar"}, ""},
                                           BundleRow{{"--"}, ""},
                                           BundleRow{{"-bundle", "/foo/bar"}, "/foo/bar"},
                                           BundleRow{{"--bundle=/foo/bar"}, "/foo/bar"},
                                           BundleRow{{"-b=/foo/bar"}, "/foo/bar"},
                                           BundleRow{{"-b=/foo/=bar"}, "/foo/=bar"},
                                           BundleRow{{"-b", "/foo/bar"}, "/foo/bar"},
                                           BundleRow{{"create", "-b", "/foo/bar"}, "/foo/bar"},
                                           BundleRow{{"-b", "create", "create"}, "create"},
                                           BundleRow{{"-b=create", "create"}, "create"},
                                           BundleRow{{"-b", "create"}, "create"}));

TEST(GetBundleDir, MissingLongValueIsAnError) {
  auto parsed = parse_runtime_args({"--bundle"});
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message(), "bundle option requires an argument");
}

TEST(GetBundleDir, MissingShortValueIsAnError) {
  auto parsed = parse_runtime_args({"-b"});
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message(), "bundle option requires an argument");
}

TEST(GetBundleDir, MissingValueAfterCreateIsAnError) {
  auto parsed = parse_runtime_args({"--root", "/r", "create", "--bundle"});
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message(), "bundle option requires an argument");
}

TEST(GetBundleDir, LastOccurrenceWins) {
  auto parsed = parse_runtime_args({"create", "--bundle", "/a", "-b=/b", "id"});
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->bundle, "/b");
}

TEST(GetBundleDir, EmptyEqualsValueMeansCwd) {
  auto parsed = parse_runtime_args({"create", "--bundle=", "id"});
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->bundle, "");
}

// spec/runtime.md §4, TestHasCreateSubcommand.
struct CreateRow {
  Args args;
  bool create;
};

class HasCreateSubcommand : public ::testing::TestWithParam<CreateRow> {};

TEST_P(HasCreateSubcommand, Detects) {
  const auto& row = GetParam();
  auto parsed = parse_runtime_args(row.args);
  ASSERT_TRUE(parsed) << show(row.args) << ": " << parsed.error().message();
  EXPECT_EQ(parsed->modifies_spec, row.create) << show(row.args);
}

INSTANTIATE_TEST_SUITE_P(ReferenceRows, HasCreateSubcommand,
                         ::testing::Values(CreateRow{{}, false}, CreateRow{{"create"}, true},
                                           CreateRow{{"--bundle=create"}, false},
                                           CreateRow{{"--bundle", "create"}, false},
                                           // Rows of the bundle table that also name create.
                                           CreateRow{{"-b", "create", "create"}, true},
                                           CreateRow{{"-b=create", "create"}, true},
                                           CreateRow{{"create", "-b", "/foo/bar"}, true},
                                           CreateRow{{"-b", "create"}, false}));

// nvct's stricter detection (spec/runtime.md §4 "nvct:", security.md #35).
INSTANTIATE_TEST_SUITE_P(
    NvctStricterRows, HasCreateSubcommand,
    ::testing::Values(
        // A container named "create" is not the create subcommand.
        CreateRow{{"delete", "create"}, false},
        CreateRow{{"--root", "/r", "delete", "--force", "create"}, false},
        CreateRow{{"state", "create"}, false}, CreateRow{{"kill", "create", "9"}, false},
        // Values of valued global flags are skipped, in every flag form.
        CreateRow{{"--log", "create", "start", "x"}, false},
        CreateRow{{"--log=create", "start", "x"}, false},
        CreateRow{{"-log", "create", "start", "x"}, false},
        CreateRow{{"--root", "create", "start", "x"}, false},
        CreateRow{{"-root", "create", "start", "x"}, false},
        CreateRow{{"--root=create", "create", "x"}, true},
        CreateRow{{"--log-format", "create", "state", "x"}, false},
        CreateRow{{"--criu", "create", "checkpoint", "x"}, false},
        CreateRow{{"--rootless", "create", "start", "x"}, false},
        CreateRow{{"--rootless=false", "create", "x"}, true},
        // Boolean globals take no value.
        CreateRow{{"--debug", "create", "x"}, true},
        CreateRow{{"--systemd-cgroup", "create", "x"}, true},
        CreateRow{{"--systemd-cgroup=true", "create", "x"}, true},
        // containerd-shim-runc-v2 and conmon argv shapes (spec/runtime.md §3).
        CreateRow{{"--root", "/run/containerd/runc/default", "--log", "/b/log.json", "--log-format",
                   "json", "create", "--bundle", "/b", "--pid-file", "/b/init.pid", "t2"},
                  true},
        CreateRow{{"--root", "/run/containerd/runc/default", "--log", "/b/log.json", "--log-format",
                   "json", "start", "t2"},
                  false},
        CreateRow{{"--systemd-cgroup", "--root=/run/crio", "create", "--bundle", "/b", "--pid-file",
                   "/p", "--no-pivot", "--console-socket", "/s", "id"},
                  true},
        // A bundle named create before a non-create subcommand.
        CreateRow{{"-b", "create", "delete", "x"}, false},
        // run creates a container too; the reference ignores it.
        CreateRow{{"run", "--bundle", "/b", "id"}, true},
        CreateRow{{"--root", "/r", "run", "-d", "id"}, true},
        // Pass-through subcommands.
        CreateRow{{"features"}, false}, CreateRow{{"state", "id"}, false},
        CreateRow{{"--version"}, false}, CreateRow{{"frobnicate", "create"}, false},
        CreateRow{{"exec", "--process", "/p", "id"}, false},
        // "--" ends the global flags; the next token is the subcommand.
        CreateRow{{"--debug", "--", "create", "x"}, true},
        // The subcommand is matched exactly.
        CreateRow{{"Create", "x"}, false}, CreateRow{{"create2", "x"}, false},
        // Help of create/run prints runc's usage and creates nothing: pass it through
        // (runc's bats `run -h`; there is no config.json to read).
        CreateRow{{"run", "-h"}, false}, CreateRow{{"run", "--help"}, false},
        CreateRow{{"create", "--bundle", "/b", "-help", "id"}, false},
        CreateRow{{"--root", "/r", "create", "--help=true", "id"}, false},
        CreateRow{{"create", "--help=false", "id"}, true},
        // After "--" it is the container's argument, not a flag.
        CreateRow{{"run", "id", "--", "-h"}, true}));

TEST(RuntimeArgs, SubcommandIsTheFirstTokenAfterGlobals) {
  auto parsed =
      parse_runtime_args({"--root", "/r", "--log=/l", "--debug", "exec", "--detach", "id"});
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->subcommand, "exec");
  EXPECT_FALSE(parsed->modifies_spec);
}

TEST(RuntimeArgs, NoSubcommandIsEmpty) {
  auto parsed = parse_runtime_args({"--root", "/r"});
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->subcommand, "");
  EXPECT_FALSE(parsed->modifies_spec);
}

TEST(RuntimeArgs, BundleAfterOrBeforeSubcommand) {
  auto before = parse_runtime_args({"--bundle", "/b", "create", "id"});
  auto after = parse_runtime_args({"create", "--bundle", "/b", "id"});
  ASSERT_TRUE(before);
  ASSERT_TRUE(after);
  EXPECT_EQ(before->bundle, "/b");
  EXPECT_EQ(before->subcommand, "create");
  EXPECT_EQ(after->bundle, "/b");
  EXPECT_EQ(after->subcommand, "create");
}

TEST(RuntimeArgs, LogFlagsInEveryForm) {
  for (const Args& args : {Args{"--log", "/l.json", "--log-format", "json", "create"},
                           Args{"--log=/l.json", "--log-format=json", "create"},
                           Args{"-log", "/l.json", "-log-format", "json", "create"},
                           Args{"-log=/l.json", "-log-format=json", "create"}}) {
    auto parsed = parse_runtime_args(args);
    ASSERT_TRUE(parsed) << show(args);
    EXPECT_EQ(parsed->log_file, "/l.json") << show(args);
    EXPECT_EQ(parsed->log_format, "json") << show(args);
    EXPECT_TRUE(parsed->modifies_spec) << show(args);
  }
}

TEST(RuntimeArgs, LogValueNamedLikeAFlagIsTheValue) {
  auto parsed = parse_runtime_args({"--log", "--debug", "start", "x"});
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->log_file, "--debug");
  EXPECT_FALSE(parsed->debug);
  EXPECT_EQ(parsed->subcommand, "start");
}

TEST(RuntimeArgs, DebugFlagForms) {
  EXPECT_TRUE(parse_runtime_args({"--debug", "state", "x"})->debug);
  EXPECT_TRUE(parse_runtime_args({"-debug", "state", "x"})->debug);
  EXPECT_TRUE(parse_runtime_args({"--debug=true", "state", "x"})->debug);
  EXPECT_FALSE(parse_runtime_args({"--debug=false", "state", "x"})->debug);
  EXPECT_FALSE(parse_runtime_args({"state", "x"})->debug);
}

TEST(RuntimeArgs, VersionFlagForms) {
  EXPECT_TRUE(parse_runtime_args({"--version"})->version);
  EXPECT_TRUE(parse_runtime_args({"-version"})->version);
  EXPECT_TRUE(parse_runtime_args({"--root", "/r", "--version"})->version);
  EXPECT_FALSE(parse_runtime_args({"--not-version"})->version);
  EXPECT_FALSE(parse_runtime_args({"version"})->version);
}

TEST(RuntimeArgs, VersionAfterSubcommandBelongsToTheContainer) {
  auto parsed = parse_runtime_args({"exec", "id", "nvidia-smi", "--version"});
  ASSERT_TRUE(parsed);
  EXPECT_FALSE(parsed->version);
}

TEST(RuntimeArgs, GlobalsAfterSubcommandAreNotOurs) {
  auto parsed = parse_runtime_args({"exec", "id", "sh", "--log", "x", "--debug"});
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->log_file, "");
  EXPECT_FALSE(parsed->debug);
}

TEST(SpecPath, EmptyBundleIsCwdConfig) { EXPECT_EQ(spec_path(""), "config.json"); }
TEST(SpecPath, TrailingSlashIsNotDoubled) {
  EXPECT_EQ(spec_path("/not/empty/"), "/not/empty/config.json");
}
TEST(SpecPath, RelativeBundleStaysRelative) {
  EXPECT_EQ(spec_path("not/absolute"), "not/absolute/config.json");
}
TEST(SpecPath, AbsoluteBundle) { EXPECT_EQ(spec_path("/foo/bar"), "/foo/bar/config.json"); }

}  // namespace
}  // namespace nvct::oci
