#include "config_command.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/config/document.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::cmd::nvidia_ctk {
namespace {

using nvct::testing::TempDir;

// Debian-like host: no ldconfig.real, not SUSE.
class PlainHost final : public config::HostFacts {
 public:
  bool file_exists(const std::string&) const override { return false; }
  std::string os_release() const override { return "ID=debian\n"; }
};

std::string golden() {
  auto text = read_file(std::string(NVCT_SOURCE_DIR) + "/tests/data/config/default.toml");
  EXPECT_TRUE(text) << "tests/data/config/default.toml missing";
  return text ? *text : std::string();
}

std::vector<config::SetOption> sets(std::initializer_list<const char*> texts) {
  std::vector<config::SetOption> out;
  for (const char* t : texts) {
    auto s = config::parse_set_option(t);
    EXPECT_TRUE(s) << t << ": " << s.error().message();
    if (s) out.push_back(*s);
  }
  return out;
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Runs the CLI as main() wires it, for the parts that are about flag spelling.
int run_cli(const std::string& args) {
  CLI::App app("test", "nvidia-ctk");
  GlobalOptions globals;
  add_global_options(app, globals);
  add_config_command(app, globals);
  try {
    app.parse(args, false);
  } catch (const CLI::ParseError& e) {
    ADD_FAILURE() << "parse error for \"" << args << "\": " << e.what();
    return -1;
  }
  return globals.exit_code;
}

TEST(EditConfigText, MissingFileStartsFromDefaults) {
  auto text = edit_config_text(std::nullopt, {}, PlainHost());
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_EQ(*text, golden());
}

TEST(EditConfigText, SetOnDefaultsChangesOnlyThatLine) {
  auto text =
      edit_config_text(std::nullopt, sets({"nvidia-container-runtime.mode=legacy"}), PlainHost());
  ASSERT_TRUE(text) << text.error().message();
  std::string expected = golden();
  expected.replace(expected.find("mode = \"auto\""), 13, "mode = \"legacy\"");
  EXPECT_EQ(*text, expected);
}

TEST(EditConfigText, EmptyFileGetsCommentsAndTheSetKey) {
  auto text =
      edit_config_text(std::string(), sets({"nvidia-container-cli.no-cgroups"}), PlainHost());
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_NE(text->find("[nvidia-container-cli]\n"), std::string::npos) << *text;
  EXPECT_NE(text->find("\nno-cgroups = true\n"), std::string::npos) << *text;
  EXPECT_EQ(text->find("disable-require"), std::string::npos) << *text;
}

TEST(EditConfigText, ResultThatWouldNotLoadIsRejected) {
  auto text = edit_config_text(std::nullopt, sets({"nvidia-container-cli.ldconfig=/sbin/ldconfig"}),
                               PlainHost());
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message().find("not host-relative"), std::string::npos)
      << text.error().message();
}

TEST(EditConfigText, ContainerLdconfigWithAllowFlagIsAccepted) {
  auto text = edit_config_text(std::nullopt,
                               sets({"nvidia-container-cli.ldconfig=/sbin/ldconfig",
                                     "features.allow-ldconfig-from-container"}),
                               PlainHost());
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_NE(text->find("ldconfig = \"/sbin/ldconfig\"\n"), std::string::npos);
}

TEST(EditConfigText, UnparsableFileIsAnError) {
  auto text = edit_config_text(std::string("[broken\n"), {}, PlainHost());
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message().find("parse TOML"), std::string::npos);
}

TEST(RunConfig, InPlaceEditKeepsModeAndUnknownKeys) {
  TempDir dir;
  std::string path =
      dir.write("config.toml", "future-key = \"kept\"\n[nvidia-container-cli]\nroot = \"/a\"\n");
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  ConfigOptions options;
  options.config_file = path;
  options.in_place = true;
  options.sets = {"nvidia-container-cli.root=/b", "nvidia-container-runtime.runtimes=x:y"};
  Status s = run_config(options, PlainHost());
  ASSERT_TRUE(s) << s.error().message();
  std::string text = dir.read("config.toml");
  EXPECT_NE(text.find("future-key = \"kept\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("root = \"/b\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("[nvidia-container-runtime]\n#debug = "
                      "\"/var/log/nvidia-container-runtime.log\"\nruntimes = [\"x\", \"y\"]\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(mode_of(path), 0640u);
  EXPECT_NE(::access((dir / ".config.toml.lock").c_str(), F_OK), 0);  // deleted when done
}

TEST(RunConfig, InPlaceOnMissingFileWritesDefaultsWithSet) {
  TempDir dir;
  ConfigOptions options;
  options.config_file = dir / "config.toml";
  options.in_place = true;
  options.sets = {"disable-require"};
  ASSERT_TRUE(run_config(options, PlainHost()));
  std::string expected = golden();
  expected.replace(expected.find("disable-require = false"), 23, "disable-require = true");
  EXPECT_EQ(dir.read("config.toml"), expected);
}

TEST(RunConfig, BadKeyIsNamedAndFileUntouched) {
  TempDir dir;
  std::string path = dir.write("config.toml", "disable-require = false\n");
  ConfigOptions options;
  options.config_file = path;
  options.in_place = true;
  options.sets = {"no-such.key=1"};
  Status s = run_config(options, PlainHost());
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message(),
            "invalid --set option no-such.key=1: unknown config key \"no-such.key\" "
            "(`nvidia-ctk config default` lists the valid keys)");
  EXPECT_EQ(dir.read("config.toml"), "disable-require = false\n");
}

TEST(RunConfig, InvalidEnumValueIsNamedWithTheValidValuesAndNothingIsWritten) {
  TempDir dir;
  std::string path = dir.write("config.toml", "disable-require = false\n");
  ConfigOptions options;
  options.config_file = path;
  options.in_place = true;
  options.sets = {"disable-require", "nvidia-container-runtime.mode=legcy"};
  Status s = run_config(options, PlainHost());
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message(),
            "invalid --set option nvidia-container-runtime.mode=legcy: "
            "nvidia-container-runtime.mode: invalid value \"legcy\" (valid values: auto, legacy, "
            "cdi, jit-cdi, csv); did you mean \"legacy\"?");
  EXPECT_EQ(dir.read("config.toml"), "disable-require = false\n");
  EXPECT_NE(::access((dir / ".config.toml.lock").c_str(), F_OK), 0);

  options.in_place = false;
  options.output = dir / "out.toml";
  options.sets = {"nvidia-container-runtime.log-level=loud"};
  ASSERT_FALSE(run_config(options, PlainHost()));
  EXPECT_NE(::access(options.output.c_str(), F_OK), 0) << "no output file for a refused --set";
}

TEST(RunConfig, UnknownKeysOfTheEditedFileAreWarnedAboutAndKept) {
  TempDir dir;
  std::string path = dir.write("config.toml", "[nvidia-container-cli]\nrot = \"/a\"\n");
  ConfigOptions options;
  options.config_file = path;
  options.in_place = true;
  options.sets = {"disable-require"};
  auto sink = std::make_shared<nvct::testing::MemorySink>();
  log::set_sink(sink);
  Status s = run_config(options, PlainHost());
  log::set_sink(nullptr);
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_TRUE(sink->contains(path + ": unknown key \"nvidia-container-cli.rot\" is ignored; did "
                                    "you mean \"nvidia-container-cli.root\"?"));
  EXPECT_NE(dir.read("config.toml").find("rot = \"/a\""), std::string::npos);
}

TEST(EditConfigText, SaysAtDebugLevelWhichFileItEdits) {
  auto sink = std::make_shared<nvct::testing::MemorySink>();
  log::set_sink(sink);
  log::set_level(log::Level::kDebug);
  ASSERT_TRUE(edit_config_text(std::string(), {}, PlainHost(), "/etc/x/config.toml"));
  ASSERT_TRUE(edit_config_text(std::nullopt, {}, PlainHost(), "/etc/y/config.toml"));
  log::set_level(log::Level::kInfo);
  log::set_sink(nullptr);
  EXPECT_TRUE(sink->contains("Using config file /etc/x/config.toml"));
  EXPECT_TRUE(
      sink->contains("Config file /etc/y/config.toml does not exist; using the built-in defaults"));
}

TEST(ConfigCommand, GlobalConfigFlagPicksTheFileWhenNoDashC) {
  TempDir dir;
  std::string path = dir.write("config.toml", "disable-require = false\n");
  EXPECT_EQ(run_cli("--config " + path + " config --set disable-require --in-place"), 0);
  EXPECT_NE(dir.read("config.toml").find("disable-require = true"), std::string::npos)
      << dir.read("config.toml");
}

TEST(ConfigCommand, DashCWinsOverTheGlobalConfigFlag) {
  TempDir dir;
  std::string global = dir.write("global.toml", "disable-require = false\n");
  std::string local = dir.write("local.toml", "disable-require = false\n");
  EXPECT_EQ(
      run_cli("--config " + global + " config -c " + local + " --set disable-require --in-place"),
      0);
  EXPECT_EQ(dir.read("global.toml"), "disable-require = false\n");
  EXPECT_NE(dir.read("local.toml").find("disable-require = true"), std::string::npos);
}

TEST(RunConfig, InPlaceAndOutputConflict) {
  ConfigOptions options;
  options.in_place = true;
  options.output = "/tmp/x";
  Status s = run_config(options, PlainHost());
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("--in-place"), std::string::npos);
}

TEST(RunConfig, OutputGoesToFileAndSourceIsUnchanged) {
  TempDir dir;
  std::string path = dir.write("config.toml", "[nvidia-ctk]\npath = \"/x\"\n");
  ConfigOptions options;
  options.config_file = path;
  options.output = dir / "out/sub/config.toml";
  options.sets = {"nvidia-ctk.path=/y"};
  ASSERT_TRUE(run_config(options, PlainHost()));
  EXPECT_EQ(dir.read("config.toml"), "[nvidia-ctk]\npath = \"/x\"\n");
  EXPECT_NE(dir.read("out/sub/config.toml").find("[nvidia-ctk]\npath = \"/y\"\n"),
            std::string::npos);
}

TEST(RunConfigDefault, WritesTheGoldenToOutput) {
  TempDir dir;
  ConfigDefaultOptions options;
  options.output = dir / "default.toml";
  ASSERT_TRUE(run_config_default(options, PlainHost()));
  EXPECT_EQ(dir.read("default.toml"), golden());
}

TEST(ConfigCli, DefaultAndItsAliasesWriteTheDefaultFile) {
  TempDir dir;
  std::string expected = config::render_default(config::real_host_facts());
  for (const char* name : {"default", "create-default", "generate-default"}) {
    std::string out = dir / (std::string(name) + ".toml");
    ASSERT_EQ(run_cli(std::string("config ") + name + " -o " + out), 0) << name;
    EXPECT_EQ(dir.read(std::string(name) + ".toml"), expected) << name;
  }
}

TEST(ConfigCli, ConfigFileFlagSpellings) {
  TempDir dir;
  for (const char* flag : {"-c", "--config", "--config-file"}) {
    std::string path = dir.write(std::string("c") + flag + ".toml", "");
    ASSERT_EQ(run_cli(std::string("config ") + flag + " " + path + " -i --set disable-require"), 0)
        << flag;
    EXPECT_NE(dir.read(std::string("c") + flag + ".toml").find("disable-require = true\n"),
              std::string::npos)
        << flag;
  }
}

TEST(ConfigCli, HiddenListSeparatorFlag) {
  TempDir dir;
  std::string path = dir.write("c.toml", "");
  ASSERT_EQ(
      run_cli(
          "config --config " + path +
          " --in-place --set-list-separator ; --set nvidia-container-cli.environment=A=1:2;B=3"),
      0);
  EXPECT_NE(dir.read("c.toml").find("environment = [\"A=1:2\", \"B=3\"]\n"), std::string::npos)
      << dir.read("c.toml");
}

TEST(ConfigCli, RepeatedSetAppliesAll) {
  TempDir dir;
  std::string path = dir.write("c.toml", "");
  ASSERT_EQ(run_cli("config -c " + path + " -i --set swarm-resource=X --set nvidia-ctk.path=/p"),
            0);
  std::string text = dir.read("c.toml");
  EXPECT_NE(text.find("\nswarm-resource = \"X\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("[nvidia-ctk]\npath = \"/p\"\n"), std::string::npos) << text;
}

TEST(ConfigCli, ErrorSetsExitCodeOne) {
  TempDir dir;
  std::string path = dir.write("c.toml", "");
  EXPECT_EQ(run_cli("config -c " + path + " -i --set disable-require=maybe"), 1);
  EXPECT_EQ(dir.read("c.toml"), "");
}

}  // namespace
}  // namespace nvct::cmd::nvidia_ctk
