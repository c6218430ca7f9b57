// Family `engines` (spec/doctor.md §3.4): is the NVIDIA runtime registered in Docker, containerd
// (CRI plugin, imports, drop-ins) and CRI-O, does what they name exist, and what the defaults and
// Kubernetes handlers are. Engine daemons are never executed: the containerd version comes from
// its binary's embedded module path, dockerd's start time and PATH from /proc.
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "nvct/base/strings.hpp"
#include "nvct/diagnose/engine_facts.hpp"
#include "nvct/diagnose/families.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::diagnose {
namespace {

constexpr std::string_view kShim = "nvidia-container-runtime";
constexpr std::string_view kHook = "nvidia-container-runtime-hook";

// nvidia-container-runtime, or its .cdi/.legacy forms.
bool is_shim(std::string_view path) {
  auto base = strings::basename(path);
  return base == kShim || strings::starts_with(base, std::string(kShim) + ".");
}

const EngineRuntime* nvidia_runtime(const EngineConfig& engine) {
  for (const auto& r : engine.runtimes) {
    if (is_shim(r.path)) return &r;
  }
  return nullptr;
}

// The root-relative file a runtime path names: absolute as is, a bare name on `path_env`.
std::string locate(Host& host, const std::string& path, std::string_view path_env = kDefaultPath) {
  if (path.empty()) return "";
  if (path[0] == '/') return path;
  for (const auto& dir : strings::split(path_env, ':')) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + path;
    auto st = host.stat(candidate);
    if (st && S_ISREG(st->st_mode)) return candidate;
  }
  return "";
}

bool executable(Host& host, const std::string& path) {
  auto st = host.stat(path);
  return st && S_ISREG(st->st_mode) && (st->st_mode & 0111) != 0;
}

struct Daemon {
  unsigned pid = 0;
  std::string environ_path;
  std::string path_env;         // PATH of its environment, "" when unreadable
  std::optional<double> start;  // seconds since the epoch
};

std::optional<Daemon> dockerd(Host& host) {
  auto pid_text = host.read("/run/docker.pid", 64);
  if (!pid_text) return std::nullopt;
  auto pid = driver::parse_unsigned(strings::trim(*pid_text));
  if (!pid) return std::nullopt;
  Daemon d;
  d.pid = *pid;
  d.environ_path = fmt::format("/proc/{}/environ", *pid);
  if (auto environ = host.read(d.environ_path, 1u << 20)) {
    for (const auto& entry : strings::split(*environ, '\0')) {
      if (strings::starts_with(entry, "PATH=")) d.path_env = entry.substr(5);
    }
  }
  // /proc/<pid>/stat field 22 (after the parenthesised name): start time in clock ticks since
  // boot; /proc/stat btime: boot time.
  auto stat = host.read(fmt::format("/proc/{}/stat", *pid), 64u << 10);
  auto proc_stat = host.read("/proc/stat", 1u << 20);
  if (stat && proc_stat) {
    auto close = stat->rfind(')');
    auto fields =
        strings::split_trimmed(close == std::string::npos ? "" : stat->substr(close + 1), ' ');
    std::optional<unsigned long long> btime;
    for (const auto& line : strings::split(*proc_stat, '\n')) {
      if (strings::starts_with(line, "btime ")) btime = std::stoull("0" + line.substr(6));
    }
    // fields[0] is field 3 (state): field 22 is fields[19].
    if (fields.size() > 19 && btime) {
      long ticks = ::sysconf(_SC_CLK_TCK);
      d.start = static_cast<double>(*btime) +
                static_cast<double>(std::stoull("0" + fields[19])) / (ticks > 0 ? ticks : 100);
    }
  }
  return d;
}

}  // namespace

std::vector<Finding> check_engines(Host& host) {
  std::vector<Finding> out;
  const EngineFacts& facts = host.engines();
  const EngineConfig& docker = facts.docker;
  const EngineConfig& containerd = facts.containerd;
  const EngineConfig& crio = facts.crio;
  auto daemon = docker.present ? dockerd(host) : std::nullopt;

  // engines.docker-not-registered
  if (docker.present && !nvidia_runtime(docker)) {
    out.push_back(
        {"engines.docker-not-registered",
         Severity::kError,
         "Docker has no runtime that runs nvidia-container-runtime",
         {docker.error.empty()
              ? fmt::format("{}: {}", docker.config_path,
                            docker.config_exists ? "no runtimes.<name>.path naming it" : "absent")
              : docker.error},
         "nvidia-ctk runtime configure --runtime=docker && systemctl restart docker"});
  }
  // engines.docker-restart-needed
  if (daemon && daemon->start && docker.config_exists) {
    auto st = host.stat(host.docker_config());
    if (st && static_cast<double>(st->st_mtime) > *daemon->start) {
      out.push_back(
          {"engines.docker-restart-needed",
           Severity::kWarn,
           "daemon.json changed after dockerd started: the change is not in effect",
           {fmt::format("{}: modified at {}", docker.config_path, st->st_mtime),
            fmt::format("/proc/{}/stat: dockerd started at {:.0f}", daemon->pid, *daemon->start)},
           "systemctl restart docker (the usual cause of: could not select device "
           "driver \"\" with capabilities: [[gpu]])"});
    }
  }
  // engines.docker-gpus-hook
  if (docker.present) {
    std::string path_env =
        daemon && !daemon->path_env.empty() ? daemon->path_env : std::string(kDefaultPath);
    if (locate(host, std::string(kHook), path_env).empty()) {
      out.push_back(
          {"engines.docker-gpus-hook",
           Severity::kError,
           "nvidia-container-runtime-hook is not on dockerd's PATH: docker run --gpus "
           "fails",
           {fmt::format("{}: {}",
                        daemon && !daemon->path_env.empty() ? daemon->environ_path : "default PATH",
                        path_env),
            fmt::format("{}: not found in any of these folders", kHook)},
           "install nvidia-container-toolkit (the hook goes to /usr/bin), then "
           "systemctl restart docker"});
    }
  }
  // engines.containerd-not-registered
  if (containerd.present && !nvidia_runtime(containerd)) {
    out.push_back(
        {"engines.containerd-not-registered",
         Severity::kError,
         "containerd's CRI plugin has no runtime that runs nvidia-container-runtime",
         {containerd.error.empty()
              ? fmt::format("{}: no plugins.\"{}\".containerd.runtimes.<name> with "
                            "BinaryName naming it",
                            containerd.config_path,
                            containerd.cri_plugin.empty() ? "<cri>" : containerd.cri_plugin)
              : containerd.error},
         "nvidia-ctk runtime configure --runtime=containerd && systemctl restart "
         "containerd"});
  }
  // engines.containerd-cri-disabled
  for (const auto& plugin : containerd.disabled_plugins) {
    if (plugin == "cri" || plugin == containerd.cri_plugin ||
        plugin == "io.containerd.grpc.v1.cri") {
      out.push_back(
          {"engines.containerd-cri-disabled",
           Severity::kError,
           "containerd's CRI plugin is disabled: Kubernetes cannot use containerd",
           {fmt::format("{}: disabled_plugins holds \"{}\"", containerd.config_path, plugin)},
           fmt::format("remove \"{}\" from disabled_plugins in {}", plugin,
                       containerd.config_path)});
      break;
    }
  }
  // engines.containerd-drop-in-not-imported
  if (containerd.config_exists && host.containerd_config().under_root) {
    std::string drop_in =
        strings::dirname(host.containerd_config().path) + "/conf.d/99-nvidia.toml";
    bool imported = false;
    for (const auto& i : containerd.imported) imported = imported || i.path == drop_in;
    if (host.exists(drop_in) && !imported) {
      out.push_back({"engines.containerd-drop-in-not-imported",
                     Severity::kError,
                     "the NVIDIA drop-in is not imported by containerd's config",
                     {fmt::format("{}: present", drop_in),
                      fmt::format("{}: imports = [{}]", containerd.config_path,
                                  strings::join(containerd.imports, ", "))},
                     fmt::format("add imports = [\"{}/*.toml\"] to {}", strings::dirname(drop_in),
                                 containerd.config_path)});
    }
  }
  // engines.containerd-runc-lost
  if (containerd.daemon_major == 1) {
    for (const auto& i : containerd.imported) {
      if (!i.has_cri_table) continue;
      auto has = [&](const std::string& name) {
        return std::find(i.runtime_names.begin(), i.runtime_names.end(), name) !=
               i.runtime_names.end();
      };
      std::vector<std::string> lost;
      if (!has("runc")) lost.push_back("runc");
      if (!containerd.default_runtime.empty() && containerd.default_runtime != "runc" &&
          !has(containerd.default_runtime)) {
        lost.push_back(containerd.default_runtime);
      }
      if (lost.empty()) continue;
      out.push_back({"engines.containerd-runc-lost",
                     Severity::kError,
                     fmt::format("containerd 1.x: {} replaces the CRI plugin table and drops {}",
                                 i.path, strings::join(lost, ", ")),
                     {fmt::format("{}: defines plugins.\"{}\" without {}", i.path,
                                  containerd.cri_plugin, strings::join(lost, ", ")),
                      fmt::format("{}: containerd 1.x (embedded module path)", containerd.binary)},
                     "nvidia-ctk runtime configure --runtime=containerd --config-source=command"});
    }
  }
  // engines.containerd-version3-on-1x
  if (containerd.daemon_major == 1) {
    std::vector<std::string> v3;
    if (containerd.version == 3) v3.push_back(containerd.config_path + ": version = 3");
    for (const auto& i : containerd.imported) {
      if (i.version == 3) v3.push_back(i.path + ": version = 3");
    }
    if (!v3.empty()) {
      v3.push_back(fmt::format("{}: containerd 1.x (embedded module path)", containerd.binary));
      out.push_back({"engines.containerd-version3-on-1x", Severity::kError,
                     "a version 3 containerd config with containerd 1.x, which cannot read it", v3,
                     "write a version 2 file (nvidia-ctk runtime configure "
                     "--runtime=containerd --config-source=command)"});
    }
  }
  // engines.containerd-systemd-mismatch
  if (const auto* nvidia = nvidia_runtime(containerd)) {
    bool runc_systemd = false;
    for (const auto& r : containerd.runtimes) {
      if (r.name == "runc") runc_systemd = r.systemd_cgroup.value_or(false);
    }
    if (nvidia->systemd_cgroup.value_or(false) != runc_systemd) {
      out.push_back({"engines.containerd-systemd-mismatch",
                     Severity::kWarn,
                     fmt::format("runtime {} and runc use different cgroup drivers", nvidia->name),
                     {fmt::format("{}: runtimes.{} SystemdCgroup = {}", containerd.config_path,
                                  nvidia->name, nvidia->systemd_cgroup.value_or(false)),
                      fmt::format("{}: runtimes.runc SystemdCgroup = {}", containerd.config_path,
                                  runc_systemd)},
                     fmt::format("set SystemdCgroup = {} in the {} runtime's options", runc_systemd,
                                 nvidia->name)});
    }
  }
  // engines.crio-not-registered
  if (crio.present && !nvidia_runtime(crio) && oci_hook_file(host).empty()) {
    out.push_back(
        {"engines.crio-not-registered",
         Severity::kError,
         "CRI-O has no runtime that runs nvidia-container-runtime and no OCI hook",
         {crio.error.empty()
              ? fmt::format("{}: no crio.runtime.runtimes.<name>.runtime_path naming it",
                            crio.config_path)
              : crio.error,
          "/usr/share/containers/oci/hooks.d: no file naming nvidia-container-runtime-hook"},
         "nvidia-ctk runtime configure --runtime=crio && systemctl restart crio"});
  }
  // engines.runtime-path-missing
  std::vector<std::string> missing;
  for (const auto* engine : {&docker, &containerd, &crio}) {
    for (const auto& r : engine->runtimes) {
      if (!is_shim(r.path)) continue;
      std::string file = locate(host, r.path);
      if (file.empty() || !executable(host, file)) {
        missing.push_back(fmt::format("{}: runtime {} = \"{}\": {}", engine->config_path, r.name,
                                      r.path, file.empty() ? "not found" : "not an executable"));
      }
    }
  }
  if (!missing.empty()) {
    out.push_back({"engines.runtime-path-missing", Severity::kError,
                   "a registered NVIDIA runtime names a file that does not exist", missing,
                   "fix the path: nvidia-ctk runtime configure --nvidia-runtime-path=<path>"});
  }
  // engines.default-runtime
  {
    std::vector<std::string> evidence;
    bool docker_default = false;
    for (const auto* engine : {&docker, &containerd, &crio}) {
      if (!strings::starts_with(engine->default_runtime, "nvidia")) continue;
      evidence.push_back(
          fmt::format("{}: default runtime \"{}\"", engine->config_path, engine->default_runtime));
      docker_default = docker_default || engine == &docker;
    }
    if (!evidence.empty()) {
      if (docker_default) {
        evidence.push_back(
            "docker build then runs with the driver files mounted: images built "
            "so fail later with \"file creation failed: … file exists\"");
      }
      out.push_back({"engines.default-runtime", docker_default ? Severity::kWarn : Severity::kInfo,
                     "the NVIDIA runtime is a default runtime", std::move(evidence),
                     docker_default ? "set default-runtime back to runc and use docker run "
                                      "--runtime=nvidia"
                                    : ""});
    }
  }
  // engines.k8s-handler
  {
    std::vector<std::string> handlers;
    for (const auto* engine : {&containerd, &crio}) {
      for (const auto& r : engine->runtimes) {
        if (is_shim(r.path)) handlers.push_back(fmt::format("{} ({})", r.name, engine->name));
      }
    }
    if (!handlers.empty()) {
      out.push_back(
          {"engines.k8s-handler",
           Severity::kInfo,
           fmt::format("Kubernetes RuntimeClass handlers: {}", strings::join(handlers, ", ")),
           {"a RuntimeClass whose handler is not listed fails with: no runtime for "
            "\"<handler>\" is configured"},
           ""});
    }
  }
  std::vector<std::string> present;
  for (const auto* engine : {&docker, &containerd, &crio}) {
    if (engine->present) present.push_back(engine->name);
  }
  add_ok_unless_worse(out, "engines",
                      present.empty() ? std::string("no container engine found")
                                      : fmt::format("NVIDIA runtime registered in {}",
                                                    strings::join(present, ", ")));
  return out;
}

}  // namespace nvct::diagnose
