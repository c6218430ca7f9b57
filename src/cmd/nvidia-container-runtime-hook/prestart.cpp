#include "prestart.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include "configure_options.hpp"
#include "hook_failure.hpp"
#include "nvct/base/log.hpp"
#include "nvct/config/load.hpp"
#include "nvct/oci/spec_document.hpp"
#include "nvct/request/capabilities.hpp"
#include "nvct/request/mount_request.hpp"
#include "nvct/request/request.hpp"
#include "nvct/request/spec_fields.hpp"

namespace nvct::hook {
namespace {

bool present(const nlohmann::ordered_json& spec, const char* key) {
  auto it = spec.find(key);
  return it != spec.end() && !it->is_null();
}

}  // namespace

Result<config::Config> load_hook_config(const std::optional<std::string>& config_path) {
  auto cfg = config_path ? config::load_file(*config_path, true)
                         : config::load_file(kDefaultConfigPath, false);
  if (!cfg) return with_context(std::move(cfg), "load config");
  NVCT_TRY(with_context(request::supported_capabilities(*cfg), "load config"));
  return cfg;
}

Result<oci::State> read_prestart_state(std::string_view json) {
  auto state = oci::parse_state(json);
  if (!state) return with_context(std::move(state), "read OCI state from stdin");
  if (state->pid <= 0) {
    return fail(EINVAL,
                fmt::format("read OCI state from stdin: invalid pid {} (must be > 0)", state->pid));
  }
  return state;
}

Status check_spec_fields(const nlohmann::ordered_json& spec) {
  if (!spec.is_object()) return fail(EINVAL, "OCI spec is not a JSON object");
  for (const char* key : {"ociVersion", "process", "root"}) {
    if (!present(spec, key))
      return fail(EINVAL, fmt::format("OCI spec field \"{}\" is missing", key));
  }
  if (!spec["ociVersion"].is_string())
    return fail(EINVAL, "OCI spec field \"ociVersion\" is not a string");
  return ok();
}

Result<std::string> container_rootfs(const nlohmann::ordered_json& spec,
                                     const std::string& bundle) {
  const auto& root = spec["root"];
  if (!root.is_object() || !root.contains("path") || !root["path"].is_string() ||
      root["path"].get_ref<const std::string&>().empty()) {
    return fail(EINVAL, "OCI spec field \"root.path\" is missing or empty");
  }
  const auto& path = root["path"].get_ref<const std::string&>();
  std::string joined = path.front() == '/' ? path : bundle + "/" + path;
  std::string rootfs = request::clean_path(joined);
  if (rootfs.empty() || rootfs.front() != '/') {
    return fail(EINVAL, fmt::format("container root {} is not absolute", rootfs));
  }
  if (rootfs == "/") return fail(EINVAL, "container root is the host root \"/\"");
  return rootfs;
}

Result<std::string> real_container_rootfs(const nlohmann::ordered_json& spec,
                                          const std::string& bundle) {
  auto real_path = [](const std::string& path) -> Result<std::string> {
    char* resolved = ::realpath(path.c_str(), nullptr);
    if (!resolved) return fail_errno(fmt::format("resolve {}", path));
    std::string out = resolved;
    std::free(resolved);
    return out;
  };
  NVCT_ASSIGN_OR_RETURN(std::string real_bundle, real_path(bundle));
  NVCT_ASSIGN_OR_RETURN(std::string rootfs, container_rootfs(spec, real_bundle));
  NVCT_ASSIGN_OR_RETURN(std::string real_rootfs,
                        with_context(real_path(rootfs), "container root"));
  if (real_rootfs != rootfs)
    return fail(ELOOP, fmt::format("container root {} resolves to {}: root.path must not go "
                                   "through a symbolic link",
                                   rootfs, real_rootfs));
  return rootfs;
}

int run_prestart(const config::Config& cfg, std::string_view state_json, bool debug,
                 const PrestartEnv& env) {
  FailureReporter reporter(env.print);
  auto fail_with = [&](const Error& error) {
    return reporter.fail(fmt::format("nvidia-container-runtime-hook: {}", error.message()));
  };

  auto state = read_prestart_state(state_json);
  if (!state) return fail_with(state.error());
  reporter.set_container(state->id, state->bundle);
  auto spec_doc = oci::SpecDocument::load(state->bundle);
  if (!spec_doc) return fail_with(spec_doc.error());
  const auto& spec = spec_doc->json();
  if (auto checked = check_spec_fields(spec); !checked) {
    return fail_with(checked.error().context(fmt::format("read {}", spec_doc->path())));
  }

  auto req = request::from_spec(spec, cfg);
  if (!req) return fail_with(req.error());
  if (!req->is_gpu_container()) {
    log::debug("container {} requests no GPU; nothing to do", state->id);
    return 0;
  }
  auto mount_req = request::mount_request(*req, cfg);
  if (!mount_req) return fail_with(mount_req.error());

  auto mode = assert_legacy_mode(cfg, *req, env.probe_platform(cfg.cli.root));
  if (!mode) {
    // The reference's two lines: the mode line, then the error.
    const std::string& text = mode.error().message();
    auto newline = text.rfind('\n');
    if (newline != std::string::npos) env.print(text.substr(0, newline));
    return reporter.fail(newline == std::string::npos ? text : text.substr(newline + 1));
  }
  if (*mode) env.print((*mode)->line);

  auto rootfs = real_container_rootfs(spec, state->bundle);
  if (!rootfs) return fail_with(rootfs.error());

  auto options = configure_options(cfg, *mount_req, HookContext{state->pid, *rootfs, debug});
  log::info("configuring container {} (pid {}, rootfs {})", state->id, state->pid, *rootfs);
  auto configured = env.configure(options);
  if (!configured) {
    // The mount library's messages carry the reference's stage prefix ("requirement error:
    // ..."); runc shows them after the cli's name in the reference, and users search for that.
    return reporter.fail(fmt::format("nvidia-container-cli: {}", configured.error().message()));
  }
  return 0;
}

}  // namespace nvct::hook
