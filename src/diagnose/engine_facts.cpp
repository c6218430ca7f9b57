// The engines' configs as doctor needs them (spec/doctor.md §3.2, §3.4), read once per run with
// the ctk:: readers that `nvidia-ctk runtime configure` uses.
#include "nvct/diagnose/engine_facts.hpp"

#include <fnmatch.h>
#include <toml++/toml.h>

#include <fmt/format.h>
#include <cerrno>
#include <nlohmann/json.hpp>

#include "nvct/base/strings.hpp"
#include "nvct/ctk/containerd_config.hpp"
#include "nvct/ctk/docker_config.hpp"
#include "nvct/ctk/toml_text.hpp"
#include "nvct/diagnose/host.hpp"

namespace nvct::diagnose {
namespace {

// Engine configs are small; a larger file is refused rather than read (hostile input, §7).
constexpr std::size_t kMaxConfigSize = 4u << 20;

// Reads the config; false when it is absent or unreadable (error set for the latter).
std::optional<std::string> read_config(const Host& host, const SourceFile& file,
                                       EngineConfig& engine) {
  engine.config_path = file.path;
  auto text = host.read(file, kMaxConfigSize);
  if (!text) {
    if (text.error().code() != ENOENT) {
      engine.config_exists = true;
      engine.error = text.error().message();
    }
    return std::nullopt;
  }
  engine.config_exists = true;
  return std::move(*text);
}

void set_presence(const Host& host, EngineConfig& engine, std::string_view daemon) {
  engine.binary = find_on_path(host, daemon);
  engine.present = engine.config_exists || !engine.binary.empty();
}

EngineConfig read_docker(const Host& host) {
  EngineConfig engine;
  engine.name = "docker";
  auto text = read_config(host, host.docker_config(), engine);
  set_presence(host, engine, "dockerd");
  if (!text) return engine;
  auto parsed = ctk::DockerConfig::parse(*text, engine.config_path);
  if (!parsed) {
    engine.error = parsed.error().message();
    return engine;
  }
  const auto& doc = parsed->document();
  if (auto it = doc.find("runtimes"); it != doc.end() && it->is_object()) {
    for (const auto& [name, value] : it->items()) {
      engine.runtimes.push_back({name, parsed->runtime_path(name), std::nullopt});
    }
  }
  if (auto it = doc.find("default-runtime"); it != doc.end() && it->is_string()) {
    engine.default_runtime = it->get<std::string>();
  }
  if (auto it = doc.find("exec-opts"); it != doc.end() && it->is_array()) {
    for (const auto& opt : *it) {
      if (!opt.is_string()) continue;
      std::string value = opt.get<std::string>();
      std::string compact;
      for (char c : value) {
        if (c != ' ') compact.push_back(c);
      }
      if (compact == "native.cgroupdriver=systemd") {
        engine.systemd_cgroup = true;
        engine.cgroup_evidence =
            fmt::format("{}: exec-opts native.cgroupdriver=systemd", engine.config_path);
      }
    }
  }
  return engine;
}

// Runtimes of a containerd tree: plugins.<cri>.containerd.runtimes.<name>.
void add_containerd_runtimes(const ctk::ContainerdConfig& config, EngineConfig& engine) {
  auto containerd = config.tree()["plugins"][config.cri_plugin()]["containerd"];
  const auto* runtimes = containerd["runtimes"].as_table();
  if (runtimes == nullptr) return;
  for (const auto& [key, value] : *runtimes) {
    std::string name(key.str());
    EngineRuntime runtime{name, config.runtime_binary(name), std::nullopt};
    if (const auto* table = value.as_table()) {
      if (auto systemd = (*table)["options"]["SystemdCgroup"].value<bool>()) {
        runtime.systemd_cgroup = *systemd;
      }
    }
    // A later file's entry replaces an earlier one of the same name.
    std::erase_if(engine.runtimes, [&](const EngineRuntime& r) { return r.name == name; });
    engine.runtimes.push_back(std::move(runtime));
  }
}

// containerd's major version from the module path its Go build info embeds (the binary is
// never executed): github.com/containerd/containerd/v2 is 2.x, the path without /v2 is 1.x.
int containerd_major(const Host& host, const std::string& binary) {
  if (binary.empty()) return 0;
  auto data = host.read(binary, 512u << 20);
  if (!data) return 0;
  if (data->find("github.com/containerd/containerd/v2") != std::string::npos) return 2;
  if (data->find("github.com/containerd/containerd") != std::string::npos) return 1;
  return 0;
}

// The files an `imports` pattern names (glob in the last component), relative patterns taken
// from the main file's folder.
std::vector<std::string> expand_import(const Host& host, const std::string& main_dir,
                                       const std::string& pattern) {
  std::string full = pattern.empty() || pattern[0] == '/' ? pattern : main_dir + "/" + pattern;
  std::string dir = strings::dirname(full);
  std::string base(strings::basename(full));
  std::vector<std::string> out;
  for (const auto& name : host.list_dir(dir)) {
    if (::fnmatch(base.c_str(), name.c_str(), 0) == 0) out.push_back(dir + "/" + name);
  }
  return out;
}

EngineConfig read_containerd(const Host& host) {
  EngineConfig engine;
  engine.name = "containerd";
  auto text = read_config(host, host.containerd_config(), engine);
  set_presence(host, engine, "containerd");
  if (!text) return engine;
  auto parsed = ctk::ContainerdConfig::parse(*text, engine.config_path);
  if (!parsed) {
    engine.error = parsed.error().message();
    return engine;
  }
  const toml::table& tree = parsed->tree();
  engine.version = parsed->version();
  engine.cri_plugin = parsed->cri_plugin();
  auto containerd = tree["plugins"][parsed->cri_plugin()]["containerd"];
  if (auto name = containerd["default_runtime_name"].value<std::string>()) {
    engine.default_runtime = *name;
  }
  add_containerd_runtimes(*parsed, engine);
  if (const auto* disabled = tree["disabled_plugins"].as_array()) {
    for (const auto& item : *disabled) {
      if (auto name = item.value<std::string>()) engine.disabled_plugins.push_back(*name);
    }
  }
  if (const auto* imports = tree["imports"].as_array()) {
    for (const auto& item : *imports) {
      if (auto pattern = item.value<std::string>()) engine.imports.push_back(*pattern);
    }
  }
  // Imports are read below the root only when the main file is (a flag names a host file).
  const SourceFile& main_file = host.containerd_config();
  for (const auto& pattern : engine.imports) {
    if (!main_file.under_root) break;
    for (const auto& path : expand_import(host, strings::dirname(main_file.path), pattern)) {
      auto drop_in_text = host.read(path, kMaxConfigSize);
      if (!drop_in_text) continue;
      auto drop_in = ctk::ContainerdConfig::parse(*drop_in_text, path);
      if (!drop_in) {
        if (engine.error.empty()) engine.error = drop_in.error().message();
        continue;
      }
      ContainerdImport imported{path, drop_in->version(), false, {}};
      auto cri = drop_in->tree()["plugins"][parsed->cri_plugin()];
      imported.has_cri_table = cri.as_table() != nullptr;
      if (const auto* runtimes = cri["containerd"]["runtimes"].as_table()) {
        for (const auto& [key, value] : *runtimes) imported.runtime_names.emplace_back(key.str());
      }
      add_containerd_runtimes(*drop_in, engine);
      engine.imported.push_back(std::move(imported));
    }
  }
  // The binary is read (tens of MiB) only when its major version decides a check: a version 3
  // file, or a drop-in that replaces the CRI plugin table.
  bool version_matters = engine.version == 3;
  for (const auto& i : engine.imported) version_matters |= i.version == 3 || i.has_cri_table;
  if (version_matters) engine.daemon_major = containerd_major(host, engine.binary);
  for (const auto& runtime : engine.runtimes) {
    if (runtime.name == "runc" && runtime.systemd_cgroup.value_or(false)) {
      engine.systemd_cgroup = true;
      engine.cgroup_evidence =
          fmt::format("{}: runtimes.runc options SystemdCgroup = true", engine.config_path);
    }
  }
  return engine;
}

// Deep merge of a CRI-O drop-in onto the main file: tables merge, other values replace.
void merge_into(toml::table& into, const toml::table& from) {
  for (const auto& [key, value] : from) {
    auto* existing = into.get(key);
    if (existing != nullptr && existing->is_table() && value.is_table()) {
      merge_into(*existing->as_table(), *value.as_table());
    } else {
      into.insert_or_assign(key, value);
    }
  }
}

EngineConfig read_crio(const Host& host) {
  EngineConfig engine;
  engine.name = "crio";
  auto text = read_config(host, host.crio_config(), engine);
  toml::table merged;
  if (text) {
    auto parsed = ctk::parse_toml(*text, engine.config_path);
    if (!parsed) {
      engine.error = parsed.error().message();
    } else {
      merged = std::move(*parsed);
    }
  }
  const SourceFile& drop_ins = host.crio_drop_in_dir();
  for (const auto& name : host.list_dir(drop_ins)) {
    if (!strings::ends_with(name, ".conf")) continue;
    SourceFile file{drop_ins.path + "/" + name, drop_ins.under_root};
    auto drop_in = host.read(file, kMaxConfigSize);
    if (!drop_in) continue;
    engine.config_exists = true;
    auto parsed = ctk::parse_toml(*drop_in, file.path);
    if (!parsed) {
      if (engine.error.empty()) engine.error = parsed.error().message();
      continue;
    }
    merge_into(merged, *parsed);
  }
  set_presence(host, engine, "crio");
  auto runtime = merged["crio"]["runtime"];
  engine.default_runtime = runtime["default_runtime"].value_or(std::string("runc"));
  if (const auto* runtimes = runtime["runtimes"].as_table()) {
    for (const auto& [name, value] : *runtimes) {
      std::string path;
      if (const auto* table = value.as_table()) {
        path = (*table)["runtime_path"].value_or(std::string());
      }
      engine.runtimes.push_back({std::string(name.str()), path, std::nullopt});
    }
  }
  // CRI-O's cgroup_manager defaults to systemd.
  std::string manager = runtime["cgroup_manager"].value_or(std::string("systemd"));
  if (engine.present && manager == "systemd") {
    engine.systemd_cgroup = true;
    engine.cgroup_evidence = fmt::format("{}: cgroup_manager = \"systemd\"{}", engine.config_path,
                                         runtime["cgroup_manager"] ? "" : " (the default)");
  }
  return engine;
}

}  // namespace

EngineFacts read_engine_facts(Host& host) {
  EngineFacts facts;
  facts.docker = read_docker(host);
  facts.containerd = read_containerd(host);
  facts.crio = read_crio(host);
  return facts;
}

}  // namespace nvct::diagnose
