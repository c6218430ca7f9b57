#include "nvct/config/load.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "fake_host.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/config/document.hpp"
#include "nvct/config/schema.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::config {
namespace {

using nvct::testing::FakeHost;
using nvct::testing::MemorySink;
using nvct::testing::TempDir;

Result<Config> load(std::string_view toml) { return load_from_string(toml, FakeHost()); }

std::string error_of(const Result<Config>& r) {
  return r ? std::string("<no error>") : r.error().message();
}

// Sets or unsets an environment variable for the lifetime of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = ::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Load, EmptyTextGivesDefaults) {
  auto c = load("");
  ASSERT_TRUE(c) << error_of(c);
  EXPECT_EQ(c->runtime.runtimes, (std::vector<std::string>{"runc", "crun"}));
  EXPECT_TRUE(c->accept_envvar_unprivileged);
  EXPECT_EQ(c->runtime.legacy.cuda_compat_mode, "ldconfig");
}

TEST(Load, EveryKeyIsRead) {
  auto c = load(R"(
disable-require = true
swarm-resource = "DOCKER_RESOURCE_GPU"
accept-nvidia-visible-devices-envvar-when-unprivileged = false
accept-nvidia-visible-devices-as-volume-mounts = true
supported-driver-capabilities = "compute,utility"

[nvidia-container-cli]
root = "/run/nvidia/driver"
path = "/opt/bin/nvidia-container-cli"
environment = ["A=1", "B=2"]
debug = "/var/log/cli.log"
ldcache = "/etc/ld.so.cache.alt"
load-kmods = false
no-pivot = true
no-cgroups = true
user = "root:video"
ldconfig = "@/usr/sbin/ldconfig"

[nvidia-container-runtime]
debug = "/var/log/runtime.log"
log-level = "debug"
runtimes = ["my-runc"]
mode = "cdi"

[nvidia-container-runtime.modes.csv]
mount-spec-path = "/csv"
compat-container-root = "/compat"

[nvidia-container-runtime.modes.cdi]
spec-dirs = ["/cdi"]
default-kind = "example.com/gpu"
annotation-prefixes = ["a/", "b/"]

[nvidia-container-runtime.modes.jit-cdi]
nvcdi-feature-flags = ["disable-nvsandboxutils"]
nvcdi-disable-hooks = ["all"]

[nvidia-container-runtime.modes.legacy]
cuda-compat-mode = "mount"

[nvidia-container-runtime-hook]
path = "/opt/hook"
skip-mode-detection = true

[nvidia-ctk]
path = "/opt/nvidia-ctk"

[features]
allow-cuda-compat-libs-from-container = true
allow-ldconfig-from-container = true
allow-unknown-oci-spec-fields = true
disable-cuda-compat-lib-hook = true
disable-imex-channel-creation = true
ignore-imex-channel-requests = true
no-additional-gids-for-device-nodes = true
)");
  ASSERT_TRUE(c) << error_of(c);
  EXPECT_TRUE(c->disable_require);
  EXPECT_EQ(c->swarm_resource, "DOCKER_RESOURCE_GPU");
  EXPECT_FALSE(c->accept_envvar_unprivileged);
  EXPECT_TRUE(c->accept_volume_mounts);
  EXPECT_EQ(c->supported_driver_capabilities, "compute,utility");
  EXPECT_EQ(c->cli.root, "/run/nvidia/driver");
  EXPECT_EQ(c->cli.path, "/opt/bin/nvidia-container-cli");
  EXPECT_EQ(c->cli.environment, (std::vector<std::string>{"A=1", "B=2"}));
  EXPECT_EQ(c->cli.debug, "/var/log/cli.log");
  EXPECT_EQ(c->cli.ldcache, "/etc/ld.so.cache.alt");
  EXPECT_FALSE(c->cli.load_kmods);
  EXPECT_TRUE(c->cli.no_pivot);
  EXPECT_TRUE(c->cli.no_cgroups);
  EXPECT_EQ(c->cli.user, "root:video");
  EXPECT_EQ(c->cli.ldconfig, "@/usr/sbin/ldconfig");
  EXPECT_EQ(c->runtime.debug, "/var/log/runtime.log");
  EXPECT_EQ(c->runtime.log_level, "debug");
  EXPECT_EQ(c->runtime.runtimes, (std::vector<std::string>{"my-runc"}));
  EXPECT_EQ(c->runtime.mode, "cdi");
  EXPECT_EQ(c->runtime.csv.mount_spec_path, "/csv");
  EXPECT_EQ(c->runtime.csv.compat_container_root, "/compat");
  EXPECT_EQ(c->runtime.cdi.spec_dirs, (std::vector<std::string>{"/cdi"}));
  EXPECT_EQ(c->runtime.cdi.default_kind, "example.com/gpu");
  EXPECT_EQ(c->runtime.cdi.annotation_prefixes, (std::vector<std::string>{"a/", "b/"}));
  EXPECT_EQ(c->runtime.jit_cdi.nvcdi_feature_flags,
            (std::vector<std::string>{"disable-nvsandboxutils"}));
  EXPECT_EQ(c->runtime.jit_cdi.nvcdi_disable_hooks, (std::vector<std::string>{"all"}));
  EXPECT_EQ(c->runtime.legacy.cuda_compat_mode, "mount");
  EXPECT_EQ(c->hook.path, "/opt/hook");
  EXPECT_TRUE(c->hook.skip_mode_detection);
  EXPECT_EQ(c->ctk.path, "/opt/nvidia-ctk");
  EXPECT_TRUE(c->features.allow_cuda_compat_libs_from_container);
  EXPECT_TRUE(c->features.allow_ldconfig_from_container);
  EXPECT_TRUE(c->features.allow_unknown_oci_spec_fields);
  EXPECT_TRUE(c->features.disable_cuda_compat_lib_hook);
  EXPECT_TRUE(c->features.disable_imex_channel_creation);
  EXPECT_TRUE(c->features.ignore_imex_channel_requests);
  EXPECT_TRUE(c->features.no_additional_gids_for_device_nodes);
}

TEST(Load, ValuesMergeOntoDefaults) {
  auto c = load("[nvidia-container-cli]\nroot = \"/driver\"\n");
  ASSERT_TRUE(c) << error_of(c);
  EXPECT_EQ(c->cli.root, "/driver");
  EXPECT_TRUE(c->cli.load_kmods);
  EXPECT_EQ(c->runtime.mode, "auto");
}

TEST(Load, DottedInlineKeysEqualSectionKeys) {
  auto c = load(
      "nvidia-container-cli.root = \"/inline\"\nnvidia-container-runtime.modes.cdi.default-kind = "
      "\"x.com/y\"\n");
  ASSERT_TRUE(c) << error_of(c);
  EXPECT_EQ(c->cli.root, "/inline");
  EXPECT_EQ(c->runtime.cdi.default_kind, "x.com/y");
}

TEST(Load, UnknownKeysAreIgnored) {
  auto c =
      load("no-such-key = 5\n[nvidia-container-cli]\nfuture = [1, 2]\n[other-table]\nx = \"y\"\n");
  ASSERT_TRUE(c) << error_of(c);
  EXPECT_EQ(c->cli.root, "");
}

struct WrongTypeRow {
  const char* toml;
  const char* expected_message;
};

class LoadWrongType : public ::testing::TestWithParam<WrongTypeRow> {};

TEST_P(LoadWrongType, IsRejectedNamingTheKey) {
  auto c = load(GetParam().toml);
  ASSERT_FALSE(c) << "accepted: " << GetParam().toml;
  EXPECT_EQ(c.error().message(), GetParam().expected_message);
}

INSTANTIATE_TEST_SUITE_P(
    Keys, LoadWrongType,
    ::testing::Values(
        WrongTypeRow{"[nvidia-container-runtime]\nruntimes = \"runc\"\n",
                     "nvidia-container-runtime.runtimes: expected an array of strings"},
        WrongTypeRow{"[nvidia-container-runtime]\nruntimes = [\"runc\", 1]\n",
                     "nvidia-container-runtime.runtimes: expected an array of strings"},
        WrongTypeRow{"disable-require = \"yes\"\n", "disable-require: expected a boolean"},
        WrongTypeRow{"swarm-resource = 1\n", "swarm-resource: expected a string"},
        WrongTypeRow{"[nvidia-container-cli]\nload-kmods = 1\n",
                     "nvidia-container-cli.load-kmods: expected a boolean"},
        WrongTypeRow{"[features]\nallow-ldconfig-from-container = \"true\"\n",
                     "features.allow-ldconfig-from-container: expected a boolean"},
        WrongTypeRow{"nvidia-container-cli = \"x\"\n", "nvidia-container-cli: expected a table"},
        WrongTypeRow{"[nvidia-container-runtime]\nmodes = 3\n",
                     "nvidia-container-runtime.modes: expected a table"}));

TEST(Load, InvalidCudaCompatModeIsRejected) {
  auto c = load("[nvidia-container-runtime.modes.legacy]\ncuda-compat-mode = \"sometimes\"\n");
  ASSERT_FALSE(c);
  EXPECT_NE(error_of(c).find("nvidia-container-runtime.modes.legacy.cuda-compat-mode"),
            std::string::npos)
      << error_of(c);
}

TEST(Load, EveryCudaCompatModeIsAccepted) {
  for (const char* mode : kCudaCompatModes) {
    auto c = load(std::string("[nvidia-container-runtime.modes.legacy]\ncuda-compat-mode = \"") +
                  mode + "\"\n");
    ASSERT_TRUE(c) << error_of(c);
    EXPECT_EQ(c->runtime.legacy.cuda_compat_mode, mode);
  }
}

TEST(Load, EmptyCudaCompatModeMeansUnset) {
  auto c = load("[nvidia-container-runtime.modes.legacy]\ncuda-compat-mode = \"\"\n");
  ASSERT_TRUE(c) << error_of(c);
  EXPECT_FALSE(c->runtime.legacy.cuda_compat_mode.has_value());
}

TEST(Load, InvalidLogLevelBecomesInfoWithWarning) {
  auto sink = std::make_shared<MemorySink>();
  log::set_sink(sink);
  auto c = load("[nvidia-container-runtime]\nlog-level = \"chatty\"\n");
  log::set_sink(nullptr);
  ASSERT_TRUE(c) << error_of(c);
  EXPECT_EQ(c->runtime.log_level, "info");
  ASSERT_EQ(sink->lines.size(), 1u);
  EXPECT_EQ(sink->lines[0].first, log::Level::kWarn);
  EXPECT_TRUE(sink->contains("chatty")) << sink->lines[0].second;
}

TEST(Load, LogrusLevelsAreKept) {
  for (const char* level :
       {"panic", "fatal", "error", "warn", "warning", "info", "debug", "trace"}) {
    auto c = load(std::string("[nvidia-container-runtime]\nlog-level = \"") + level + "\"\n");
    ASSERT_TRUE(c) << error_of(c);
    EXPECT_EQ(c->runtime.log_level, level);
  }
}

TEST(Load, ContainerLdconfigIsRejectedAsNotHostRelative) {
  auto c = load("[nvidia-container-cli]\nldconfig = \"/sbin/ldconfig\"\n");
  ASSERT_FALSE(c);
  EXPECT_NE(error_of(c).find("not host-relative"), std::string::npos) << error_of(c);
}

TEST(Load, ContainerLdconfigIsAllowedByFeatureFlag) {
  auto c = load(
      "[nvidia-container-cli]\nldconfig = \"/sbin/ldconfig\"\n"
      "[features]\nallow-ldconfig-from-container = true\n");
  ASSERT_TRUE(c) << error_of(c);
  EXPECT_EQ(c->cli.ldconfig, "/sbin/ldconfig");
}

TEST(Load, LdconfigIsNormalisedToRealWhenItExists) {
  auto c = load_from_string("[nvidia-container-cli]\nldconfig = \"@/sbin/ldconfig\"\n",
                            FakeHost({"/sbin/ldconfig.real"}));
  ASSERT_TRUE(c) << error_of(c);
  EXPECT_EQ(c->cli.ldconfig, "@/sbin/ldconfig.real");
}

TEST(Load, MalformedTomlReportsLine) {
  auto c = load("disable-require = true\nthis is not toml\n");
  ASSERT_FALSE(c);
  EXPECT_NE(error_of(c).find("line 2"), std::string::npos) << error_of(c);
}

TEST(LoadFile, MissingFileGivesDefaults) {
  TempDir dir;
  auto c = load_file(dir / "absent.toml", false, FakeHost());
  ASSERT_TRUE(c) << error_of(c);
  EXPECT_EQ(c->runtime.mode, "auto");
}

// The value of every schema key as text, so that two Configs compare key by key.
std::string field_text(Config& config, const KeySpec& key) {
  return std::visit(
      [](auto* field) -> std::string {
        using T = std::decay_t<decltype(*field)>;
        if constexpr (std::is_same_v<T, bool>) {
          return *field ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::string>) {
          return "\"" + *field + "\"";
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          return "[" + strings::join(*field, ",") + "]";
        } else if constexpr (std::is_same_v<T, std::optional<std::string>>) {
          return *field ? "\"" + **field + "\"" : "unset";
        } else {
          return *field ? "[" + strings::join(**field, ",") + "]" : "unset";
        }
      },
      key.field(config));
}

// With no config.toml on disk every binary behaves as with the packaged default
// (spec/packaging.md §4.5: the package writes `nvidia-ctk config default` at install), on each
// kind of host the default depends on.
TEST(LoadFile, MissingFileEqualsThePackagedDefaultKeyByKey) {
  const FakeHost hosts[] = {FakeHost(), FakeHost({"/sbin/ldconfig.real"}, "ID=ubuntu\n"),
                            FakeHost({}, "ID=\"opensuse-leap\"\nID_LIKE=\"suse opensuse\"\n")};
  for (const FakeHost& host : hosts) {
    TempDir dir;
    std::string packaged = dir.write("packaged.toml", render_default(host));
    auto missing = load_file(dir / "absent.toml", false, host);
    auto from_file = load_file(packaged, true, host);
    ASSERT_TRUE(missing) << error_of(missing);
    ASSERT_TRUE(from_file) << error_of(from_file);
    int compared = 0;
    for (const KeySpec& key : key_specs()) {
      EXPECT_EQ(field_text(*missing, key), field_text(*from_file, key))
          << key.name << " on a host with os-release " << host.os_release();
      ++compared;
    }
    EXPECT_EQ(compared, static_cast<int>(key_specs().size()));
    EXPECT_GT(compared, 30);
  }
}

TEST(LoadFile, MissingRequiredFileIsAnError) {
  TempDir dir;
  auto c = load_file(dir / "absent.toml", true, FakeHost());
  ASSERT_FALSE(c);
  EXPECT_NE(error_of(c).find("absent.toml"), std::string::npos) << error_of(c);
}

TEST(LoadFile, ErrorsNameTheFile) {
  TempDir dir;
  std::string path = dir.write("config.toml", "disable-require = 1\n");
  auto c = load_file(path, false, FakeHost());
  ASSERT_FALSE(c);
  EXPECT_EQ(error_of(c), path + ": disable-require: expected a boolean");
}

TEST(LoadFile, InvalidValueErrorNamesTheFileKeyAndValidValues) {
  TempDir dir;
  std::string path = dir.write(
      "config.toml", "[nvidia-container-runtime.modes.legacy]\ncuda-compat-mode = \"mout\"\n");
  auto c = load_file(path, false, FakeHost());
  ASSERT_FALSE(c);
  EXPECT_EQ(error_of(c), path +
                             ": nvidia-container-runtime.modes.legacy.cuda-compat-mode: invalid "
                             "value \"mout\" (valid values: ldconfig, mount, disabled, hook); did "
                             "you mean \"mount\"?");
}

TEST(LoadFile, ParseErrorNamesTheFile) {
  TempDir dir;
  std::string path = dir.write("config.toml", "[broken\n");
  auto c = load_file(path, false, FakeHost());
  ASSERT_FALSE(c);
  EXPECT_EQ(error_of(c).rfind(path + ": parse TOML: line 1", 0), 0u) << error_of(c);
}

TEST(LoadFile, UnreadableFileErrorNamesTheFile) {
  TempDir dir;
  // A directory cannot be read as a file, whoever runs the test (root reads 0000 files).
  std::string path = dir / "config.toml";
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  auto c = load_file(path, false, FakeHost());
  ASSERT_FALSE(c);
  EXPECT_NE(error_of(c).find(path), std::string::npos) << error_of(c);
}

TEST(LoadFile, UnknownKeyIsAWarningNamingTheFileTheKeyAndTheNearestKey) {
  TempDir dir;
  std::string path = dir.write("config.toml", "[nvidia-container-runtime]\nmdoe = \"legacy\"\n");
  auto sink = std::make_shared<MemorySink>();
  log::set_sink(sink);
  auto c = load_file(path, true, FakeHost());
  log::set_sink(nullptr);
  ASSERT_TRUE(c) << error_of(c);
  EXPECT_EQ(c->runtime.mode, "auto") << "an unknown key is still ignored";
  std::vector<std::string> warnings;
  for (const auto& [level, line] : sink->lines) {
    if (level == log::Level::kWarn) warnings.push_back(line);
  }
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], path +
                             ": unknown key \"nvidia-container-runtime.mdoe\" is ignored; did you "
                             "mean \"nvidia-container-runtime.mode\"?");
}

TEST(LoadFile, KnownKeysGiveNoWarning) {
  TempDir dir;
  std::string path = dir.write("config.toml", render_default(FakeHost()));
  auto sink = std::make_shared<MemorySink>();
  log::set_sink(sink);
  auto c = load_file(path, true, FakeHost());
  log::set_sink(nullptr);
  ASSERT_TRUE(c) << error_of(c);
  for (const auto& [level, line] : sink->lines) EXPECT_NE(level, log::Level::kWarn) << line;
}

TEST(LoadFile, InvalidLogLevelWarningNamesTheFile) {
  TempDir dir;
  std::string path =
      dir.write("config.toml", "[nvidia-container-runtime]\nlog-level = \"chatty\"\n");
  auto sink = std::make_shared<MemorySink>();
  log::set_sink(sink);
  auto c = load_file(path, true, FakeHost());
  log::set_sink(nullptr);
  ASSERT_TRUE(c) << error_of(c);
  EXPECT_TRUE(sink->contains(path + ": nvidia-container-runtime.log-level: invalid value "
                                    "\"chatty\""))
      << (sink->lines.empty() ? "" : sink->lines[0].second);
  EXPECT_TRUE(sink->contains("using \"info\""));
}

TEST(LoadFile, SaysAtDebugLevelWhichFileItUsed) {
  TempDir dir;
  std::string path = dir.write("config.toml", "");
  auto sink = std::make_shared<MemorySink>();
  log::set_sink(sink);
  log::set_level(log::Level::kDebug);
  auto used = load_file(path, false, FakeHost());
  auto absent = load_file(dir / "absent.toml", false, FakeHost());
  log::set_level(log::Level::kInfo);
  log::set_sink(nullptr);
  ASSERT_TRUE(used && absent);
  ASSERT_EQ(sink->lines.size(), 2u);
  EXPECT_EQ(sink->lines[0].first, log::Level::kDebug);
  EXPECT_EQ(sink->lines[0].second, "Using config file " + path);
  EXPECT_EQ(sink->lines[1].first, log::Level::kDebug);
  EXPECT_EQ(sink->lines[1].second, "Config file " + (dir / "absent.toml") +
                                       " does not exist; using the built-in defaults");
}

TEST(LoadFile, MissingFileNamedByTheVariableIsAWarningWithTheFix) {
  TempDir dir;
  const std::string path = dir / "absent.toml";
  ScopedEnv env("NVIDIA_CTK_CONFIG_FILE_PATH", path.c_str());
  auto sink = std::make_shared<MemorySink>();
  log::set_sink(sink);
  auto c = load_file(path, false, FakeHost());
  log::set_sink(nullptr);
  ASSERT_TRUE(c) << error_of(c);
  ASSERT_EQ(sink->lines.size(), 1u);
  EXPECT_EQ(sink->lines[0].first, log::Level::kWarn);
  EXPECT_EQ(sink->lines[0].second,
            "Config file " + path +
                " (NVIDIA_CTK_CONFIG_FILE_PATH) does not exist; using the built-in defaults. "
                "Create it with: nvidia-ctk config default --output " + path);
}

TEST(LoadFile, MissingRequiredFileSaysHowToCreateIt) {
  TempDir dir;
  const std::string path = dir / "absent.toml";
  auto c = load_file(path, true, FakeHost());
  ASSERT_FALSE(c);
  EXPECT_NE(error_of(c).find("; create it with: nvidia-ctk config default --output " + path),
            std::string::npos)
      << error_of(c);
}

TEST(LoadFile, ParseErrorSaysWhatToDo) {
  TempDir dir;
  std::string path = dir.write("config.toml", "[broken\n");
  auto c = load_file(path, false, FakeHost());
  ASSERT_FALSE(c);
  const std::string fix = "; fix the file there (nvidia-ctk config default prints a complete, valid one)";
  ASSERT_GE(error_of(c).size(), fix.size());
  EXPECT_EQ(error_of(c).substr(error_of(c).size() - fix.size()), fix) << error_of(c);
}

TEST(LoadFile, UnreadableFileSaysWhatToDo) {
  TempDir dir;
  std::string path = dir / "config.toml";
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  auto c = load_file(path, false, FakeHost());
  ASSERT_FALSE(c);
  EXPECT_NE(error_of(c).find("; the config must be a readable TOML file: point "
                             "NVIDIA_CTK_CONFIG_FILE_PATH (or --config) at one"),
            std::string::npos)
      << error_of(c);
}

TEST(LoadFile, ReadsTheFile) {
  TempDir dir;
  std::string path = dir.write("config.toml", "[nvidia-container-runtime]\nmode = \"legacy\"\n");
  auto c = load_file(path, true, FakeHost());
  ASSERT_TRUE(c) << error_of(c);
  EXPECT_EQ(c->runtime.mode, "legacy");
}

TEST(DefaultPath, FilePathVariableWins) {
  ScopedEnv file("NVIDIA_CTK_CONFIG_FILE_PATH", "/custom/config.toml");
  ScopedEnv xdg("XDG_CONFIG_HOME", "/xdg");
  EXPECT_EQ(default_path(), "/custom/config.toml");
}

TEST(DefaultPath, XdgConfigHomeWhenNoFilePath) {
  ScopedEnv file("NVIDIA_CTK_CONFIG_FILE_PATH", nullptr);
  ScopedEnv xdg("XDG_CONFIG_HOME", "/xdg");
  EXPECT_EQ(default_path(), "/xdg/nvidia-container-runtime/config.toml");
}

TEST(DefaultPath, EmptyVariablesFallBackToEtc) {
  ScopedEnv file("NVIDIA_CTK_CONFIG_FILE_PATH", "");
  ScopedEnv xdg("XDG_CONFIG_HOME", "");
  EXPECT_EQ(default_path(), "/etc/nvidia-container-runtime/config.toml");
}

TEST(DefaultPath, UnsetVariablesFallBackToEtc) {
  ScopedEnv file("NVIDIA_CTK_CONFIG_FILE_PATH", nullptr);
  ScopedEnv xdg("XDG_CONFIG_HOME", nullptr);
  EXPECT_EQ(default_path(), "/etc/nvidia-container-runtime/config.toml");
}

TEST(LoadDefault, UsesTheLookupOrder) {
  TempDir dir;
  std::string path =
      dir.write("nvidia-container-runtime/config.toml", "[nvidia-ctk]\npath = \"/from-xdg\"\n");
  ScopedEnv file("NVIDIA_CTK_CONFIG_FILE_PATH", nullptr);
  ScopedEnv xdg("XDG_CONFIG_HOME", dir.path().c_str());
  auto c = config::load();
  ASSERT_TRUE(c) << error_of(c);
  EXPECT_EQ(c->ctk.path, "/from-xdg");
}

}  // namespace
}  // namespace nvct::config
