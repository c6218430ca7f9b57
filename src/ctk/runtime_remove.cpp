#include "nvct/ctk/runtime_remove.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <functional>
#include <optional>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/ctk/containerd_config.hpp"
#include "nvct/ctk/crio_config.hpp"
#include "nvct/ctk/docker_config.hpp"
#include "nvct/ctk/go_json.hpp"
#include "nvct/ctk/host_file.hpp"

namespace nvct::ctk {

namespace {

constexpr std::string_view kRuntimeSuffixes[] = {"", ".cdi", ".legacy"};
constexpr std::string_view kHookExecutable = "nvidia-container-runtime-hook";

// What one run did: the --dry-run output, and whether an engine file changed.
struct Outcome {
  std::string out;
  bool changed = false;
};

// The managed names present in a file, split by whose executable they run.
struct Found {
  std::vector<std::string> own;
  std::vector<std::string> foreign;  // kept, with a warning
};

// `executable(name)` gives the entry's executable, or nullopt when there is no such entry.
using ExecutableOf = std::function<std::optional<std::string>(const std::string&)>;

Found find_managed(const ConfigureOptions& o, const std::string& file,
                   const ExecutableOf& executable) {
  Found found;
  for (const auto& name : managed_runtime_names(o.runtime_name)) {
    auto exe = executable(name);
    if (!exe) continue;
    if (is_own_runtime_path(*exe, o.runtime_path)) {
      found.own.push_back(name);
    } else {
      log::warn(
          "Keeping runtime {} in {}: its executable \"{}\" is not the NVIDIA Container "
          "Runtime",
          name, file, *exe);
      found.foreign.push_back(name);
    }
  }
  return found;
}

// Opens an existing file for the edit; nullopt (logged) when there is none. Nothing is created
// for a missing file, not even the lock file or its directory.
Result<std::optional<HostFileEdit>> open_existing(const std::string& path, bool dry_run) {
  NVCT_ASSIGN_OR_RETURN(std::string resolved, resolve_host_file(path));
  struct stat st {};
  bool exists = ::lstat(resolved.c_str(), &st) == 0;
  std::optional<HostFileEdit> edit;
  if (exists) {
    NVCT_ASSIGN_OR_RETURN(auto opened, open_host_file_edit(path, !dry_run));
    if (opened.content.text) edit.emplace(std::move(opened));
  }
  if (!edit) log::info("Nothing to remove: {} does not exist", path);
  return edit;
}

// A file left as it is: --dry-run prints it unchanged.
Outcome unchanged(const HostFileEdit& edit, const ConfigureOptions& o) {
  log::info("Nothing to remove from {}: no runtime of the NVIDIA Container Runtime in it",
            edit.path);
  if (!o.dry_run) return {};
  std::string text = *edit.content.text;
  if (!text.empty() && text.back() != '\n') text += '\n';
  return {text, false};
}

void log_removed(const std::vector<std::string>& names, const std::string& path) {
  log::info("Removed runtime{} {} from {}", names.size() > 1 ? "s" : "", fmt::join(names, ", "),
            path);
}

// Writes the edited text of a file that had entries of ours (or prints it for --dry-run).
Result<Outcome> write_back(const HostFileEdit& edit, const std::vector<std::string>& removed,
                           const std::string& text, const ConfigureOptions& o) {
  if (o.dry_run) return Outcome{text, false};
  NVCT_TRY(write_host_file_edit(edit, text, {.backup = o.backup}));
  log_removed(removed, edit.path);
  return Outcome{"", true};
}

// A drop-in holds only what configure wrote (for containerd also a copy of the main file's CRI
// section, which the main file still has), so once our runtimes are gone it is deleted. One that
// also carries another program's runtime under a managed name is rewritten without ours, and one
// without any runtime of ours is not ours to delete.
Result<Outcome> finish_drop_in(const HostFileEdit& edit, const Found& found,
                               const ConfigureOptions& o,
                               const std::function<Result<std::string>()>& text_without_own) {
  if (found.own.empty()) return unchanged(edit, o);
  if (!found.foreign.empty()) {
    NVCT_ASSIGN_OR_RETURN(auto text, text_without_own());
    return write_back(edit, found.own, text, o);
  }
  if (o.dry_run) return Outcome{fmt::format("Would remove {}\n", edit.path), false};
  log_removed(found.own, edit.path);
  NVCT_TRY(remove_host_file_edit(edit, {.backup = o.backup}));
  return Outcome{"", true};
}

// The drop-in must never be the main file: --remove deletes drop-ins, never the main file.
Status check_drop_in_is_not_main(const ConfigureOptions& o, const std::string& drop_in) {
  NVCT_ASSIGN_OR_RETURN(auto main, resolve_host_file(o.config_path));
  NVCT_ASSIGN_OR_RETURN(auto drop, resolve_host_file(drop_in));
  if (main == drop)
    return fail(EINVAL,
                fmt::format("the drop-in config {} is the main config file {}; refusing to "
                            "delete it (pass --drop-in-config=\"\" to edit the file in place)",
                            drop_in, o.config_path));
  return ok();
}

// In drop-in mode the main file is not edited: configure never writes runtimes into it there.
// Entries of ours that an in-place configure (or NVIDIA's tool before v1.18) left in it are
// named, with the command that removes them.
void hint_main_file_entries(const ConfigureOptions& o, const ExecutableOf& executable) {
  std::vector<std::string> names;
  for (const auto& name : managed_runtime_names(o.runtime_name)) {
    auto exe = executable(name);
    if (exe && is_own_runtime_path(*exe, o.runtime_path)) names.push_back(name);
  }
  if (!names.empty())
    log::warn(
        "{} also has runtime {} of the NVIDIA Container Runtime in place; run "
        "`nvidia-ctk runtime configure --remove --runtime={} --config={} "
        "--drop-in-config=\"\"` to remove it",
        o.config_path, fmt::join(names, ", "), o.runtime, o.config_path);
}

Result<Outcome> remove_docker(const ConfigureOptions& o) {
  NVCT_ASSIGN_OR_RETURN(auto edit, open_existing(o.config_path, o.dry_run));
  if (!edit) return Outcome{};
  NVCT_ASSIGN_OR_RETURN(auto config, DockerConfig::parse(*edit->content.text, o.config_path));
  Found found = find_managed(o, o.config_path, [&](const std::string& name) {
    return config.has_runtime(name) ? std::optional(config.runtime_path(name)) : std::nullopt;
  });
  if (found.own.empty()) return unchanged(*edit, o);
  for (const auto& name : found.own) NVCT_TRY(config.remove_runtime(name));
  std::string text = config.serialize();
  return write_back(*edit, found.own, o.dry_run ? text + "\n" : text, o);
}

ExecutableOf containerd_executables(const ContainerdConfig& config) {
  return [&config](const std::string& name) {
    return config.has_runtime(name) ? std::optional(config.runtime_binary(name)) : std::nullopt;
  };
}

Result<Outcome> remove_containerd_in_place(const ConfigureOptions& o) {
  NVCT_ASSIGN_OR_RETURN(auto edit, open_existing(o.config_path, o.dry_run));
  if (!edit) return Outcome{};
  NVCT_ASSIGN_OR_RETURN(auto config, ContainerdConfig::parse(*edit->content.text, o.config_path));
  Found found = find_managed(o, o.config_path, containerd_executables(config));
  if (found.own.empty()) return unchanged(*edit, o);
  for (const auto& name : found.own) NVCT_TRY(config.remove_runtime(name));
  return write_back(*edit, found.own, config.serialize(), o);
}

Result<Outcome> remove_containerd(const ConfigureOptions& o) {
  const std::string drop_in = o.drop_in_path.value_or("");
  if (drop_in.empty()) return remove_containerd_in_place(o);

  // The main file decides the mode as in configure: version 1 has no imports and was edited in
  // place. It is only read here; a broken one does not block removing the drop-in.
  NVCT_ASSIGN_OR_RETURN(auto main, open_host_file_edit(o.config_path, false));
  if (main.content.text) {
    auto config = ContainerdConfig::parse(*main.content.text, o.config_path);
    if (!config) {
      log::warn("cannot read {} ({}); removing the drop-in {} only", o.config_path,
                config.error().message(), drop_in);
    } else if (config->version() == 1) {
      log::info("config version 1 has no imports; removing from {} in place", o.config_path);
      return remove_containerd_in_place(o);
    } else {
      hint_main_file_entries(o, containerd_executables(*config));
    }
  }
  NVCT_TRY(check_drop_in_is_not_main(o, drop_in));
  NVCT_ASSIGN_OR_RETURN(auto edit, open_existing(drop_in, o.dry_run));
  if (!edit) return Outcome{};
  NVCT_ASSIGN_OR_RETURN(auto config, ContainerdConfig::parse(*edit->content.text, drop_in));
  Found found = find_managed(o, drop_in, containerd_executables(config));
  return finish_drop_in(*edit, found, o, [&]() -> Result<std::string> {
    for (const auto& name : found.own) NVCT_TRY(config.remove_runtime(name));
    return config.serialize();
  });
}

ExecutableOf crio_executables(const CrioConfig& config) {
  return [&config](const std::string& name) {
    return config.has_runtime(name) ? std::optional(config.runtime_path(name)) : std::nullopt;
  };
}

Result<Outcome> remove_crio(const ConfigureOptions& o) {
  const std::string drop_in = o.drop_in_path.value_or("");
  const std::string& file = drop_in.empty() ? o.config_path : drop_in;
  if (!drop_in.empty()) {
    NVCT_ASSIGN_OR_RETURN(auto main, open_host_file_edit(o.config_path, false));
    if (main.content.text) {
      if (auto config = CrioConfig::parse(*main.content.text, o.config_path, true))
        hint_main_file_entries(o, crio_executables(*config));
    }
    NVCT_TRY(check_drop_in_is_not_main(o, drop_in));
  }
  NVCT_ASSIGN_OR_RETURN(auto edit, open_existing(file, o.dry_run));
  if (!edit) return Outcome{};
  // Parsed "in place": the destination starts as a copy of the file, and loses our handlers.
  NVCT_ASSIGN_OR_RETURN(auto config, CrioConfig::parse(*edit->content.text, file, true));
  Found found = find_managed(o, file, crio_executables(config));
  auto without_own = [&]() -> Result<std::string> {
    for (const auto& name : found.own) NVCT_TRY(config.remove_runtime(name));
    return config.serialize();
  };
  if (!drop_in.empty()) return finish_drop_in(*edit, found, o, without_own);
  if (found.own.empty()) return unchanged(*edit, o);
  NVCT_ASSIGN_OR_RETURN(auto text, without_own());
  return write_back(*edit, found.own, text, o);
}

Result<Outcome> remove_oci_hook(const ConfigureOptions& o) {
  if (o.runtime != "crio")
    return fail(EINVAL, fmt::format("the '{}' runtime does not support the 'oci-hook' config mode",
                                    o.runtime));
  if (o.oci_hook_path.empty())
    return fail(EINVAL,
                "--remove with --config-mode=oci-hook needs --oci-hook-path, the hook "
                "file to remove");
  NVCT_ASSIGN_OR_RETURN(auto edit, open_existing(o.oci_hook_path, o.dry_run));
  if (!edit) return Outcome{};
  NVCT_ASSIGN_OR_RETURN(auto doc, parse_json(*edit->content.text, o.oci_hook_path));
  std::string hook;
  if (doc.is_object() && doc.contains("hook") && doc["hook"].is_object() &&
      doc["hook"].contains("path") && doc["hook"]["path"].is_string())
    hook = doc["hook"]["path"].get<std::string>();
  if (!is_own_hook_path(hook, o.hook_path)) {
    log::warn("Keeping {}: its hook \"{}\" is not the NVIDIA Container Runtime hook",
              o.oci_hook_path, hook);
    return Outcome{o.dry_run ? *edit->content.text : "", false};
  }
  if (o.dry_run) return Outcome{fmt::format("Would remove {}\n", o.oci_hook_path), false};
  NVCT_TRY(remove_host_file_edit(*edit, {.backup = o.backup}));
  return Outcome{"", true};
}

}  // namespace

std::vector<std::string> managed_runtime_names(const std::string& name) {
  return {name, name + "-cdi", name + "-legacy"};
}

bool is_own_runtime_path(std::string_view path, std::string_view configured_path) {
  std::string_view base = strings::basename(path);
  for (auto suffix : kRuntimeSuffixes) {
    if (base == fmt::format("nvidia-container-runtime{}", suffix)) return true;
    if (!configured_path.empty() && path == fmt::format("{}{}", configured_path, suffix))
      return true;
  }
  return false;
}

bool is_own_hook_path(std::string_view path, std::string_view configured_hook) {
  if (path.empty()) return false;
  return path == configured_hook || strings::basename(path) == kHookExecutable;
}

Result<std::string> remove_runtime_configuration(const ConfigureOptions& o) {
  if (o.set_as_default || o.enable_cdi)
    return fail(EINVAL, "--remove cannot be combined with --set-as-default or --cdi.enabled");
  if (o.config_source == "command")
    log::warn(
        "Ignoring --config-source=command with --remove: the {} configuration files "
        "themselves are edited",
        o.runtime);
  Result<Outcome> outcome;
  if (o.config_mode == "oci-hook") {
    outcome = remove_oci_hook(o);
  } else if (o.runtime == "docker") {
    outcome = remove_docker(o);
  } else if (o.runtime == "containerd") {
    outcome = remove_containerd(o);
  } else {
    outcome = remove_crio(o);
  }
  if (!outcome)
    return tl::unexpected(outcome.error().context(
        fmt::format("unable to remove the NVIDIA runtime from {}", o.runtime)));
  if (outcome->changed && o.config_mode != "oci-hook")
    // The systemd units are named after the engines; nothing is restarted here.
    log::info("It is recommended that {} daemon be restarted: systemctl restart {}", o.runtime,
              o.runtime);
  return outcome->out;
}

}  // namespace nvct::ctk
