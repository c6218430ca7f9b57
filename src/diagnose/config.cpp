// Family `config` (spec/doctor.md §3.3): the toolkit's config.toml: parse, keys the schema does
// not know, values, paths, ldconfig, the mode, and engine environments that point the shim at
// another file.
#include <fmt/format.h>
#include <algorithm>

#include "nvct/base/strings.hpp"
#include "nvct/config/schema.hpp"
#include "nvct/diagnose/config_facts.hpp"
#include "nvct/diagnose/families.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::diagnose {
namespace {

constexpr std::string_view kModes[] = {"auto", "legacy", "cdi", "jit-cdi", "csv"};
constexpr std::string_view kLogLevels[] = {"panic",   "fatal", "error", "warn",
                                           "warning", "info",  "debug", "trace"};

bool one_of(std::string_view value, std::span<const std::string_view> list) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::string quoted_list(std::span<const std::string_view> list) {
  std::vector<std::string> items;
  for (auto item : list) items.push_back(fmt::format("\"{}\"", item));
  return strings::join(items, ", ");
}

// The key a loader message starts with ("nvidia-container-runtime.mode: ..."), or "".
std::string key_of_message(std::string_view message) {
  auto colon = message.find(':');
  if (colon == std::string_view::npos) return "";
  std::string key(message.substr(0, colon));
  return config::find_key(key) != nullptr ? key : "";
}

// A hostile file can hold a key of thousands of components: keep each output line readable.
std::string shorten(std::string_view text) {
  constexpr std::size_t kMax = 80;
  if (text.size() <= kMax) return std::string(text);
  return fmt::format("{}…", text.substr(0, kMax));
}

Finding unknown_key_finding(const ConfigFacts& facts, const config::UnknownKey& unknown) {
  std::string_view key = unknown.key;
  auto dot = key.rfind('.');
  std::string where = dot == std::string_view::npos
                          ? "at the top level"
                          : fmt::format("in [{}]", shorten(key.substr(0, dot)));
  std::string leaf(dot == std::string_view::npos ? key : key.substr(dot + 1));
  std::string title = fmt::format("unknown key \"{}\" {}", shorten(leaf), where);
  std::string fix;
  if (!unknown.suggestions.empty()) {
    // The suggestion's leaf when it lives in the same table, else its dotted name.
    std::string_view best = unknown.suggestions.front();
    std::string table = dot == std::string_view::npos ? "" : std::string(key.substr(0, dot + 1));
    if (!table.empty() && strings::starts_with(best, table) &&
        best.find('.', table.size()) == std::string_view::npos) {
      best = best.substr(table.size());
    }
    title += fmt::format("; did you mean \"{}\"?", best);
    fix = fmt::format("did you mean {}?", strings::join(unknown.suggestions, " or "));
  } else {
    fix = "remove the key (nvidia-ctk config default lists the valid keys)";
  }
  return {
      "config.unknown-key",
      Severity::kWarn,
      std::move(title),
      {fmt::format("{}: {} is not a config key; it is ignored", facts.path, shorten(unknown.key))},
      std::move(fix)};
}

// Variables in an engine daemon's environment that make the shim read another config file.
std::vector<std::string> env_overrides(Host& host) {
  std::vector<std::string> out;
  struct Daemon {
    const char* name;
    const char* pid_file;
  };
  for (const Daemon& d : {Daemon{"dockerd", "/run/docker.pid"},
                          Daemon{"containerd", "/run/containerd/containerd.pid"}}) {
    auto pid_text = host.read(d.pid_file, 64);
    if (!pid_text) continue;
    auto pid = driver::parse_unsigned(strings::trim(*pid_text));
    if (!pid) continue;
    std::string environ_path = fmt::format("/proc/{}/environ", *pid);
    auto environ = host.read(environ_path, 1u << 20);
    if (!environ) continue;
    // Only the two names are printed, never a value (§4).
    for (const auto& entry : strings::split(*environ, '\0')) {
      for (const char* name : {"NVIDIA_CTK_CONFIG_FILE_PATH", "XDG_CONFIG_HOME"}) {
        if (strings::starts_with(entry, std::string(name) + "=")) {
          out.push_back(fmt::format("{} ({}): sets {}", environ_path, d.name, name));
        }
      }
    }
  }
  return out;
}

}  // namespace

std::vector<Finding> check_config(Host& host) {
  std::vector<Finding> out;
  const ConfigFacts& facts = host.config();
  const config::Config& cfg = facts.config;

  // config.missing
  if (!facts.present) {
    out.push_back({"config.missing",
                   Severity::kInfo,
                   "no config file: built-in defaults apply",
                   {facts.path + ": absent"},
                   fmt::format("nvidia-ctk config default -o {}", facts.path)});
  }
  // config.parse-error
  if (!facts.read_error.empty() || !facts.parse_error.empty()) {
    std::string evidence = facts.read_error.empty()
                               ? facts.parse_error
                               : fmt::format("{}: {}", facts.path, facts.read_error);
    out.push_back(
        {"config.parse-error",
         Severity::kError,
         fmt::format("{} cannot be read as TOML: every binary fails to load it", facts.path),
         {evidence},
         fmt::format("edit {} at the place named", facts.path)});
  }
  // config.unknown-key
  for (const auto& unknown : facts.unknown_keys) out.push_back(unknown_key_finding(facts, unknown));

  // config.bad-value (the loader's type and value errors, but ldconfig's: config.ldconfig)
  const bool ldconfig_error =
      strings::starts_with(facts.value_error, "nvidia-container-cli.ldconfig");
  std::vector<std::string> bad_values;
  std::string bad_key;
  if (!facts.value_error.empty() && !ldconfig_error) {
    bad_values.push_back(fmt::format("{}: {}", facts.path, facts.value_error));
    bad_key = key_of_message(facts.value_error);
  }
  if (facts.loaded && !one_of(cfg.runtime.mode, kModes)) {
    bad_values.push_back(fmt::format("{}: nvidia-container-runtime.mode = \"{}\": valid values {}",
                                     facts.path, cfg.runtime.mode, quoted_list(kModes)));
    if (bad_key.empty()) bad_key = "nvidia-container-runtime.mode";
  }
  if (!facts.raw_log_level.empty() && !one_of(strings::to_lower(facts.raw_log_level), kLogLevels)) {
    bad_values.push_back(fmt::format(
        "{}: nvidia-container-runtime.log-level = \"{}\": valid values {} (\"info\" is used)",
        facts.path, facts.raw_log_level, quoted_list(kLogLevels)));
    if (bad_key.empty()) bad_key = "nvidia-container-runtime.log-level";
  }
  if (!bad_values.empty()) {
    out.push_back(
        {"config.bad-value", Severity::kError,
         fmt::format("invalid value{} in {}", bad_values.size() == 1 ? "" : "s", facts.path),
         bad_values,
         fmt::format("nvidia-ctk config --set {}=VALUE --in-place",
                     bad_key.empty() ? "KEY" : bad_key)});
  }

  // config.path-missing
  std::vector<std::string> missing;
  auto check_path = [&](std::string_view key, const std::string& path) {
    if (path.empty() || path[0] != '/') return;  // a bare name is looked up on PATH
    if (!host.exists(path))
      missing.push_back(fmt::format("{}: {} = \"{}\": absent", facts.path, key, path));
  };
  check_path("nvidia-container-cli.root", cfg.cli.root);
  check_path("nvidia-container-cli.path", cfg.cli.path);
  check_path("nvidia-container-runtime-hook.path", cfg.hook.path);
  check_path("nvidia-ctk.path", cfg.ctk.path);
  if (cfg.runtime.mode == "csv") {
    check_path("nvidia-container-runtime.modes.csv.mount-spec-path",
               cfg.runtime.csv.mount_spec_path);
  }
  for (auto [key, file] : {std::pair<std::string_view, const std::string*>{
                               "nvidia-container-cli.debug", &cfg.cli.debug},
                           {"nvidia-container-runtime.debug", &cfg.runtime.debug}}) {
    if (file->empty() || (*file)[0] != '/' || *file == "/dev/null") continue;
    std::string dir = strings::dirname(*file);
    if (!host.exists(dir)) {
      missing.push_back(
          fmt::format("{}: {} = \"{}\": folder {} absent", facts.path, key, *file, dir));
    }
  }
  if (!missing.empty()) {
    out.push_back({"config.path-missing", Severity::kError,
                   fmt::format("{} configured path{} do{} not exist", missing.size(),
                               missing.size() == 1 ? "" : "s", missing.size() == 1 ? "es" : ""),
                   missing, "fix the path in " + facts.path});
  }

  // config.ldconfig
  std::string ldconfig = cfg.cli.ldconfig;
  if (ldconfig_error) {
    out.push_back({"config.ldconfig",
                   Severity::kError,
                   "nvidia-container-cli.ldconfig runs the container's ldconfig",
                   {fmt::format("{}: {}", facts.path, facts.value_error)},
                   "nvidia-ctk config --set nvidia-container-cli.ldconfig=@/sbin/ldconfig "
                   "--in-place"});
  } else if (strings::starts_with(ldconfig, "@") && !host.exists(ldconfig.substr(1))) {
    out.push_back({"config.ldconfig",
                   Severity::kError,
                   fmt::format("ldconfig {} does not exist on the host", ldconfig.substr(1)),
                   {fmt::format("{}: nvidia-container-cli.ldconfig = \"{}\"", facts.path, ldconfig),
                    fmt::format("{}: absent", ldconfig.substr(1))},
                   ldconfig != "@/sbin/ldconfig" && host.exists("/sbin/ldconfig")
                       ? "nvidia-ctk config --set nvidia-container-cli.ldconfig=@/sbin/ldconfig "
                         "--in-place"
                       : "install the host's ldconfig (libc-bin / glibc), or nvidia-ctk config "
                         "--set nvidia-container-cli.ldconfig=@<its path> --in-place"});
  }

  // config.mode (an invalid mode is config.bad-value's)
  if (one_of(cfg.runtime.mode, kModes)) {
    std::string mode = cfg.runtime.mode;
    std::string title;
    std::vector<std::string> evidence = {
        fmt::format("{}: nvidia-container-runtime.mode = \"{}\"", facts.path, mode)};
    if (mode == "auto") {
      std::string platform = host.exists("/etc/nv_tegra_release") ? "csv" : "jit-cdi";
      title = fmt::format("mode auto: {} on this host, cdi for requests made only of CDI names",
                          platform);
      mode = platform;
    } else {
      title = fmt::format("mode {}", mode);
    }
    if (mode == "jit-cdi") {
      evidence.push_back("jit-cdi: NVIDIA_REQUIRE_* are not evaluated");
    }
    out.push_back({"config.mode", Severity::kInfo, std::move(title), std::move(evidence), ""});
  }

  // config.env-override
  if (auto overrides = env_overrides(host); !overrides.empty()) {
    out.push_back({"config.env-override", Severity::kWarn,
                   "an engine's environment points the runtime at another config file", overrides,
                   fmt::format("put the settings in {} and remove the variable from the "
                               "engine's service environment; the hook always reads that file",
                               facts.path)});
  }

  add_ok_unless_worse(
      out, "config",
      facts.present ? fmt::format("{} valid", facts.path) : std::string("built-in defaults valid"),
      {fmt::format("{}: {}", facts.path, facts.present ? "loaded" : "absent")});
  return out;
}

}  // namespace nvct::diagnose
