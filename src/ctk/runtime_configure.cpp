#include "nvct/ctk/runtime_configure.hpp"

#include <fmt/format.h>
#include <glob.h>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/ctk/containerd_config.hpp"
#include "nvct/ctk/crio_config.hpp"
#include "nvct/ctk/docker_config.hpp"
#include "nvct/ctk/host_file.hpp"
#include "nvct/ctk/oci_hook.hpp"
#include "nvct/ctk/runtime_remove.hpp"
#include "nvct/ctk/toml_edit.hpp"
#include "nvct/ctk/toml_text.hpp"

namespace nvct::ctk {

namespace {

Status commit(const HostFileEdit& edit, const std::string& text, const ConfigureOptions& options) {
  return write_host_file_edit(edit, text, {.backup = options.backup});
}

// Where the engine's current configuration comes from: the main file or the engine itself.
Result<std::string> command_source(const ConfigureOptions& options, CommandRunner& runner) {
  std::vector<std::vector<std::string>> commands;
  if (options.runtime == "containerd") {
    std::string exe = options.executable_path.empty() ? "containerd" : options.executable_path;
    commands.push_back({exe, "config", "dump"});
  } else {
    std::string exe = options.executable_path.empty() ? "crio" : options.executable_path;
    commands.push_back({exe, "status", "config"});
    if (options.executable_path.empty()) commands.push_back({"crio-status", "config"});
  }
  std::string errors;
  for (const auto& argv : commands) {
    auto out = runner.run(argv);
    if (out && out->exit_status == 0) return out->out;
    std::string why = out ? fmt::format("exit status {}", out->exit_status) : out.error().message();
    errors += (errors.empty() ? "" : "; ") + fmt::format("{}: {}", fmt::join(argv, " "), why);
  }
  return fail(EINVAL, fmt::format("read the {} configuration from the command line: {}",
                                  options.runtime, errors));
}

// containerd 1.x reads a version-3 file without an error and without using it (spec §6.2), so a
// version-3 edit for an installed 1.x is refused instead of silently configuring nothing.
Status check_containerd_understands(int version, const ConfigureOptions& options,
                                    CommandRunner& runner) {
  if (version < 3) return ok();
  std::string exe = options.executable_path.empty() ? "containerd" : options.executable_path;
  auto out = runner.run({exe, "--version"});
  if (!out || out->exit_status != 0) {
    log::debug("cannot run {} --version; config version {} not checked against it", exe, version);
    return ok();
  }
  auto major = parse_containerd_major(out->out);
  if (major && *major < 2)
    return fail(
        EINVAL,
        fmt::format(
            "the configuration has version {}, but the installed containerd is {}.x, which "
            "silently ignores version-{} files (only versions 1 and 2 are understood); convert "
            "the file to version 2 first, or pass --executable-path of a containerd 2.x",
            version, *major, version));
  return ok();
}

// `target` as the text of the admin's file: `text` with only `edits` changed, so that comments,
// layout and key order stay (issue 14). A layout the text editor cannot handle (or no text) gets
// `serialized`, the whole tree in go-toml's layout, as the reference always writes it.
std::string kept_layout(const std::string& text, const toml::table& target, const TomlEdits& edits,
                        const std::string& path, std::string serialized) {
  if (strings::trim(text).empty()) return serialized;
  auto edited = edit_toml_text(text, target, edits);
  if (edited) return *edited;
  log::warn("cannot edit {} line by line ({}); writing it in full, without its comments and layout",
            path, edited.error().message());
  return serialized;
}

// What `runtime configure` may change in a containerd config edited in place.
TomlEdits containerd_edits(const ContainerdConfig& config, const std::string& name) {
  const std::string& cri = config.cri_plugin();
  TomlEdits edits;
  edits.tables = {{"plugins", cri, "containerd", "runtimes", name},
                  {"plugins", cri, "containerd", "runtimes", "runc"}};
  edits.keys = {
      {{}, "version"},
      {{"plugins", cri, "containerd"}, "default_runtime_name"},
      {config.version() == 1 ? TomlPath{"plugins", cri, "containerd"} : TomlPath{"plugins", cri},
       "enable_cdi"}};
  return edits;
}

// containerd 1.x replaces a whole plugin table with an imported file's (spec §6.2): the CRI
// settings in effect are those of the last imported file that has the CRI table, else the main
// file's. The drop-in is imported last and replaces them in turn, so it must start from those, or
// an admin's own drop-in with CRI settings would be dropped. Files of the main file's `imports`
// only (not the imports of imported files); nvct's own drop-in is skipped.
Result<ContainerdConfig> with_imported_cri(ContainerdConfig config, const std::string& config_path,
                                           const std::string& drop_in) {
  const auto* imports = config.tree().get_as<toml::array>("imports");
  if (imports == nullptr) return config;
  std::optional<toml::table> effective;
  for (const auto& item : *imports) {
    if (!item.is_string() || item.as_string()->get().empty()) continue;
    std::string pattern = item.as_string()->get();
    if (pattern.front() != '/') pattern = strings::dirname(config_path) + "/" + pattern;
    glob_t found{};
    std::vector<std::string> files;
    if (::glob(pattern.c_str(), 0, nullptr, &found) == 0)
      files.assign(found.gl_pathv, found.gl_pathv + found.gl_pathc);
    ::globfree(&found);
    for (const auto& file : files) {
      if (file == drop_in) continue;
      NVCT_ASSIGN_OR_RETURN(auto text,
                            with_context(read_file(file), fmt::format("read the import {}", file)));
      NVCT_ASSIGN_OR_RETURN(auto tree, parse_toml(text, file));
      const auto* plugins = tree.get_as<toml::table>("plugins");
      const auto* cri = plugins ? plugins->get_as<toml::table>(config.cri_plugin()) : nullptr;
      if (cri != nullptr) effective = *cri;
    }
  }
  if (!effective) return config;
  toml::table tree = config.tree();
  if (!tree.contains("plugins")) tree.insert("plugins", toml::table{});
  auto* plugins = tree.get_as<toml::table>("plugins");
  if (plugins == nullptr) return config;  // from_tree rejected that already
  plugins->insert_or_assign(config.cri_plugin(), std::move(*effective));
  return ContainerdConfig::from_tree(std::move(tree), config_path);
}

Result<std::string> configure_docker(const ConfigureOptions& o) {
  NVCT_ASSIGN_OR_RETURN(auto edit, open_host_file_edit(o.config_path, !o.dry_run));
  NVCT_ASSIGN_OR_RETURN(auto config,
                        DockerConfig::parse(edit.content.text.value_or(""), o.config_path));
  NVCT_TRY(config.add_runtime(o.runtime_name, o.runtime_path, o.set_as_default));
  if (o.enable_cdi) NVCT_TRY(config.enable_cdi());
  std::string text = config.serialize();
  if (o.dry_run) return text + "\n";
  NVCT_TRY(commit(edit, text, o));
  return std::string();
}

Result<std::string> configure_containerd(const ConfigureOptions& o, CommandRunner& runner) {
  NVCT_ASSIGN_OR_RETURN(auto main_edit, open_host_file_edit(o.config_path, !o.dry_run));
  std::string source_text;
  std::string origin = o.config_path;
  if (o.config_source == "command") {
    NVCT_ASSIGN_OR_RETURN(source_text, command_source(o, runner));
    origin = "containerd config dump";
  } else {
    source_text = main_edit.content.text.value_or("");
  }
  NVCT_ASSIGN_OR_RETURN(auto config, ContainerdConfig::parse(source_text, origin));
  NVCT_TRY(check_containerd_understands(config.version(), o, runner));

  const std::string drop_in = o.drop_in_path.value_or("");
  if (drop_in.empty() || config.version() == 1) {
    if (!drop_in.empty())
      log::info("config version 1 has no imports; editing {} in place", o.config_path);
    NVCT_TRY(config.add_runtime(o.runtime_name, o.runtime_path, o.set_as_default));
    if (o.enable_cdi) NVCT_TRY(config.enable_cdi());
    std::string text = config.serialize();
    // From the file: keep the admin's layout. From `containerd config dump`: the dump's tree.
    if (o.config_source != "command")
      text = kept_layout(source_text, config.tree(), containerd_edits(config, o.runtime_name),
                         o.config_path, std::move(text));
    if (o.dry_run) return text;
    if (main_edit.content.text && text == *main_edit.content.text) return std::string();
    NVCT_TRY(commit(main_edit, text, o));
    return std::string();
  }

  if (o.config_source != "command") {
    NVCT_ASSIGN_OR_RETURN(config, with_imported_cri(std::move(config), o.config_path, drop_in));
  }
  ContainerdConfig drop_config = config.drop_in_base();
  NVCT_TRY(drop_config.add_runtime(o.runtime_name, o.runtime_path, o.set_as_default));
  if (o.enable_cdi) NVCT_TRY(drop_config.enable_cdi());
  std::string drop_text = drop_config.serialize();

  const std::string main_text = main_edit.content.text.value_or("");
  NVCT_ASSIGN_OR_RETURN(auto top, parse_toml(main_text, o.config_path));
  const std::string import = strings::dirname(drop_in) + "/*.toml";
  bool imported = false;
  if (const auto* list = top.get_as<toml::array>("imports")) {
    for (const auto& item : *list)
      if (item.is_string() && item.as_string()->get() == import) imported = true;
  }
  NVCT_TRY(
      with_context(ContainerdConfig::add_import(top, import, config.version()), o.config_path));
  std::string top_text =
      kept_layout(main_text, top, {.tables = {}, .keys = {{{}, "imports"}, {{}, "version"}}},
                  o.config_path, write_toml(top));
  if (o.dry_run)
    return fmt::format("Drop-in config:\n{}\nTop-level config:\n{}", drop_text, top_text);

  NVCT_ASSIGN_OR_RETURN(auto drop_edit, open_host_file_edit(drop_in, true));
  NVCT_TRY(commit(drop_edit, drop_text, o));
  // A top-level file that already imports the drop-in directory is left byte for byte as it is.
  if (!imported) NVCT_TRY(commit(main_edit, top_text, o));
  return std::string();
}

Result<std::string> configure_crio(const ConfigureOptions& o, CommandRunner& runner) {
  const std::string drop_in = o.drop_in_path.value_or("");
  const bool in_place = drop_in.empty();
  std::string source_text;
  std::optional<HostFileEdit> main_edit;
  if (o.config_source == "command") {
    NVCT_ASSIGN_OR_RETURN(source_text, command_source(o, runner));
  } else {
    // The main file is only read in drop-in mode; the lock is taken only when it is written.
    NVCT_ASSIGN_OR_RETURN(auto edit, open_host_file_edit(o.config_path, in_place && !o.dry_run));
    source_text = edit.content.text.value_or("");
    if (in_place) main_edit.emplace(std::move(edit));
  }
  NVCT_ASSIGN_OR_RETURN(auto config, CrioConfig::parse(source_text, o.config_path, in_place));
  NVCT_TRY(config.add_runtime(o.runtime_name, o.runtime_path, o.set_as_default));
  std::string text = config.serialize();
  // In place from the file: keep the admin's layout, as for containerd.
  if (in_place && o.config_source != "command")
    text = kept_layout(source_text, config.destination(),
                       {.tables = {{"crio", "runtime", "runtimes", o.runtime_name}},
                        .keys = {{{"crio", "runtime"}, "default_runtime"}}},
                       o.config_path, std::move(text));
  if (o.dry_run) return text;
  if (in_place && main_edit && main_edit->content.text && text == *main_edit->content.text)
    return std::string();
  if (in_place && !main_edit) {
    NVCT_ASSIGN_OR_RETURN(auto edit, open_host_file_edit(o.config_path, true));
    main_edit.emplace(std::move(edit));
  }
  if (in_place) {
    NVCT_TRY(commit(*main_edit, text, o));
  } else {
    NVCT_ASSIGN_OR_RETURN(auto drop_edit, open_host_file_edit(drop_in, true));
    NVCT_TRY(commit(drop_edit, text, o));
  }
  return std::string();
}

Result<std::string> configure_oci_hook(const ConfigureOptions& o) {
  if (o.runtime != "crio")
    return fail(EINVAL, fmt::format("the '{}' runtime does not support the 'oci-hook' config mode",
                                    o.runtime));
  NVCT_ASSIGN_OR_RETURN(auto text, oci_hook_json(o.hook_path));
  if (o.dry_run || o.oci_hook_path.empty()) return text;
  NVCT_ASSIGN_OR_RETURN(auto edit, open_host_file_edit(o.oci_hook_path, true));
  NVCT_TRY(commit(edit, text, o));
  return std::string();
}

}  // namespace

std::string default_config_path(const std::string& runtime) {
  if (runtime == "containerd") return "/etc/containerd/config.toml";
  if (runtime == "crio") return "/etc/crio/crio.conf";
  return "/etc/docker/daemon.json";
}

std::string default_drop_in_path(const std::string& runtime) {
  if (runtime == "containerd") return "/etc/containerd/conf.d/99-nvidia.toml";
  if (runtime == "crio") return "/etc/crio/crio.conf.d/99-nvidia.toml";
  return "";
}

Result<ConfigureOptions> normalize_options(ConfigureOptions o) {
  if (o.runtime != "docker" && o.runtime != "containerd" && o.runtime != "crio")
    return fail(EINVAL, fmt::format("unrecognized runtime '{}' (--runtime takes docker, "
                                    "containerd or crio)",
                                    o.runtime));

  if (o.config_mode == "oci-hook" || o.config_mode == "hook") {
    o.config_mode = "oci-hook";
    if (o.hook_path.empty() || o.hook_path.front() != '/')
      return fail(EINVAL, fmt::format("the NVIDIA runtime hook path \"{}\" is not an absolute path",
                                      o.hook_path));
    return o;
  }
  if (o.config_mode != "config-file" && o.config_mode != "config" && !o.config_mode.empty())
    log::warn("Ignoring unsupported config mode for {}: \"{}\"", o.runtime, o.config_mode);
  o.config_mode = "config-file";

  if (o.config_source != "file" && o.config_source != "command")
    return fail(EINVAL,
                fmt::format("unrecognized config source '{}' (file or command)", o.config_source));
  if (o.runtime_name.empty()) return fail(EINVAL, "the NVIDIA runtime name is empty");

  if (o.runtime == "containerd" || o.runtime == "crio") {
    if (o.runtime_path == kDefaultRuntimeExecutable)
      o.runtime_path = default_runtime_executable_path();
    if (o.runtime_path.empty() || o.runtime_path.front() != '/')
      return fail(EINVAL, fmt::format("the NVIDIA runtime path \"{}\" is not an absolute path",
                                      o.runtime_path));
  }
  if (o.runtime_path.empty()) return fail(EINVAL, "the NVIDIA runtime path is empty");

  if (o.runtime == "docker") {
    if (o.drop_in_path && !o.drop_in_path->empty())
      return fail(EINVAL, "runtime docker does not support drop-in configs");
    o.drop_in_path = "";
    if (o.config_source == "command") {
      log::warn("Ignoring --config-source=command for docker: daemon.json is always read");
      o.config_source = "file";
    }
  } else {
    if (!o.drop_in_path) o.drop_in_path = default_drop_in_path(o.runtime);
    if (!o.drop_in_path->empty() && o.drop_in_path->front() != '/')
      return fail(EINVAL, fmt::format("the drop-in config path \"{}\" is not an absolute path",
                                      *o.drop_in_path));
  }
  if (o.runtime == "crio" && o.enable_cdi) {
    log::warn("Ignoring cdi.enabled flag for {}", o.runtime);
    o.enable_cdi = false;
  }
  if (o.config_path.empty()) o.config_path = default_config_path(o.runtime);
  return o;
}

Result<std::string> configure_runtime(const ConfigureOptions& options, CommandRunner& runner) {
  if (options.remove) return remove_runtime_configuration(options);
  Result<std::string> out;
  if (options.config_mode == "oci-hook") {
    out = configure_oci_hook(options);
  } else if (options.runtime == "docker") {
    out = configure_docker(options);
  } else if (options.runtime == "containerd") {
    out = configure_containerd(options, runner);
  } else {
    out = configure_crio(options, runner);
  }
  if (!out)
    return tl::unexpected(
        out.error().context(fmt::format("unable to configure {}", options.runtime)));
  if (!options.dry_run && options.config_mode != "oci-hook")
    log::info("It is recommended that {} daemon be restarted.", options.runtime);
  return out;
}

std::optional<int> parse_containerd_major(const std::string& version_output) {
  for (const auto& raw : strings::split_trimmed(strings::trim(version_output), ' ')) {
    std::string_view token = raw;
    if (!token.empty() && token.front() == 'v') token.remove_prefix(1);
    std::size_t digits = 0;
    while (digits < token.size() && token[digits] >= '0' && token[digits] <= '9') ++digits;
    if (digits == 0 || digits >= token.size() || token[digits] != '.') continue;
    return std::stoi(std::string(token.substr(0, digits)));
  }
  return std::nullopt;
}

}  // namespace nvct::ctk
