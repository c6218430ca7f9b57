#include "nvct/driver/driver_info.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/driver/nvml_library.hpp"
#include "nvct/driver/proc_devices.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::driver {
namespace {

std::optional<unsigned> read_cap_minor(const DriverRoot& root, const std::string& access) {
  auto text = root.read(access, 4096);
  if (!text) return std::nullopt;
  auto minor = parse_device_file_minor(*text);
  if (!minor) {
    log::warn("{}: {}", access, minor.error().message());
    return std::nullopt;
  }
  return *minor;
}

Gpu make_gpu(const DriverRoot& root, unsigned index, const NvmlGpu& g, bool fallback) {
  Gpu gpu;
  gpu.index = index;
  gpu.minor = g.minor;
  gpu.uuid = g.uuid;
  gpu.model = g.name;
  gpu.bus_id = g.bus_id;
  if (!fallback) {
    gpu.brand = brand_name(g.brand);
    gpu.arch = fmt::format("{}.{}", g.cc_major, g.cc_minor);
  }
  gpu.node = {fmt::format("/dev/nvidia{}", g.minor), kNvidiaMajor, g.minor};
  gpu.mig_capable = g.mig_capable;
  gpu.mig_enabled = g.mig_enabled;
  gpu.mig_caps_path = fmt::format("{}/gpu{}", kProcCapabilities, g.minor);
  for (const auto& m : g.migs) {
    MigDevice mig;
    mig.index = m.index;
    mig.uuid = m.uuid;
    mig.gi = m.gi;
    mig.ci = m.ci;
    mig.gi_caps_path = fmt::format("{}/mig/gi{}", gpu.mig_caps_path, m.gi);
    mig.ci_caps_path = fmt::format("{}/ci{}", mig.gi_caps_path, m.ci);
    mig.gi_cap_minor = read_cap_minor(root, mig.gi_caps_path + "/access");
    mig.ci_cap_minor = read_cap_minor(root, mig.ci_caps_path + "/access");
    gpu.migs.push_back(std::move(mig));
  }
  return gpu;
}

std::vector<DeviceNode> control_devices(const DriverRoot& root) {
  std::vector<DeviceNode> devs = {{"/dev/nvidiactl", kNvidiaMajor, kNvidiaCtlMinor}};
  // The UVM major is dynamic: take the node as it exists under the root.
  for (const char* name : {"/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"}) {
    auto st = root.stat(name);
    if (!st || !S_ISCHR(st->st_mode)) {
      log::warn("missing device {}", name);
      continue;
    }
    devs.push_back({name, major(st->st_rdev), minor(st->st_rdev)});
  }
  devs.push_back({"/dev/nvidia-modeset", kNvidiaMajor, kNvidiaModesetMinor});
  return devs;
}

std::vector<std::string> ipc_paths(const DriverRoot& root, const DiscoverOptions& o) {
  std::vector<std::string> wanted;
  if (!o.no_persistenced) wanted.emplace_back("/var/run/nvidia-persistenced/socket");
  if (!o.no_fabricmanager) wanted.emplace_back("/var/run/nvidia-fabricmanager/socket");
  wanted.push_back(o.mps_pipe_dir.empty() ? "/tmp/nvidia-mps" : o.mps_pipe_dir);
  std::vector<std::string> out;
  for (const auto& p : wanted) {
    auto resolved = root.resolve(p);
    if (!resolved) {
      log::warn("missing ipc path {}", p);
      continue;
    }
    out.push_back(std::move(*resolved));
  }
  return out;
}

std::vector<Firmware> firmwares(const DriverRoot& root, const std::string& version) {
  std::string dir = fmt::format("/lib/firmware/nvidia/{}", version);
  std::vector<Firmware> out;
  auto resolved = root.resolve(dir);
  if (!resolved) {
    log::warn("missing firmware path {}", dir);
    return out;
  }
  auto names = root.list_dir(*resolved);
  if (!names) {
    log::warn("{}", names.error().message());
    return out;
  }
  for (const auto& n : *names) {
    if (!strings::starts_with(n, "gsp") || !strings::ends_with(n, ".bin")) continue;
    out.push_back({dir + "/" + n, (*resolved == "/" ? "" : *resolved) + "/" + n});
  }
  return out;
}

}  // namespace

NvmlQuery isolated_nvml_query(std::optional<NvmlUser> user) {
  return [user](const DriverRoot& root, const std::string& library) {
    NvmlProcessOptions o;
    o.root = root.path();
    o.library = library;
    o.user = user;
    return query_nvml_in_child(o);
  };
}

Result<NvmlFacts> nvml_facts_from_procfs(const DriverRoot& root) {
  NVCT_ASSIGN_OR_RETURN(std::string vtext, root.read(kProcDriverVersion, 64 * 1024));
  NvmlFacts facts;
  NVCT_ASSIGN_OR_RETURN(facts.driver_version,
                        with_context(parse_proc_driver_version(vtext), kProcDriverVersion));
  auto dirs = root.list_dir(kProcGpus);
  if (!dirs) return facts;  // driver loaded, no GPU
  for (const auto& d : *dirs) {
    std::string file = fmt::format("{}/{}/information", kProcGpus, d);
    NVCT_ASSIGN_OR_RETURN(std::string text, root.read(file, 64 * 1024));
    NVCT_ASSIGN_OR_RETURN(auto info, with_context(parse_proc_gpu_information(text), file));
    NvmlGpu g;
    g.minor = info.minor;
    g.uuid = info.uuid;
    g.name = info.model;
    g.bus_id = info.bus_id;
    facts.gpus.push_back(std::move(g));
  }
  std::sort(facts.gpus.begin(), facts.gpus.end(),
            [](const NvmlGpu& a, const NvmlGpu& b) { return a.bus_id < b.bus_id; });
  return facts;
}

Result<DriverContext> initialize_driver(const DiscoverOptions& o, const NvmlQuery& nvml) {
  NVCT_ASSIGN_OR_RETURN(DriverRoot root, DriverRoot::open(o.root));
  DriverContext ctx{root, std::nullopt, std::nullopt, {}, false};
  auto data = root.read(o.ldcache, 256u << 20);
  Result<LdCache> cache = data ? parse_ldcache(*data) : tl::unexpected(data.error());
  if (cache) {
    ctx.ldcache = std::move(*cache);
  } else {
    ctx.ldcache_error = cache.error();
    if (data) {
      const std::string& msg = cache.error().message();
      ctx.ldcache_error = Error(EINVAL, strings::starts_with(msg, "unsupported file format")
                                            ? fmt::format("unsupported file format: {}", o.ldcache)
                                            : fmt::format("{}: {}", o.ldcache, msg));
    }
  }
  auto library = find_library(ctx.ldcache ? &*ctx.ldcache : nullptr, root, native_ldcache_arch(),
                              kNvmlLibrary);
  Result<NvmlFacts> facts =
      library
          ? nvml(root, *library)
          : tl::unexpected(Error(library.error().code(), fmt::format("load library failed: {}",
                                                                     library.error().message())));
  if (facts) {
    ctx.nvml = std::move(*facts);
    return ctx;
  }
  // Better than the reference: a driver whose NVML cannot be used is still described from procfs.
  auto proc = nvml_facts_from_procfs(root);
  if (!proc) return tl::unexpected(facts.error());
  const std::string& why = facts.error().message();
  log::warn("{}; using /proc/driver/nvidia instead of NVML{}", why,
            why.find("mismatch") != std::string::npos
                ? " (the driver's libraries and the loaded kernel module are different versions, "
                  "usually a driver upgrade without a reboot: reboot, or reload the nvidia kernel "
                  "modules; nvidia-ctk doctor shows both versions)"
                : " (nvidia-smi shows the same failure; nvidia-ctk doctor checks the driver)");
  ctx.nvml = std::move(*proc);
  ctx.nvml_fallback = true;
  return ctx;
}

Result<DriverInfo> discover_driver(const DriverContext& ctx, const DiscoverOptions& o) {
  if (ctx.ldcache_error) return tl::unexpected(*ctx.ldcache_error);
  const DriverRoot& root = ctx.root;
  DriverInfo info;
  info.root = root.path();
  info.nvrm_version = ctx.nvml.driver_version;
  info.cuda_version = ctx.nvml.cuda_version;
  info.nvml_fallback = ctx.nvml_fallback;
  if (auto text = read_proc_devices(root))
    info.char_majors = parse_proc_devices(*text);
  else  // issue 18: a FIFO or device planted there is named, not silently ignored
    log::warn("{}", text.error().message());
  if (info.char_majors.count("nvidia-caps"))
    info.caps_style = CapsStyle::kDev;
  else if (root.exists(kProcCapabilities))
    info.caps_style = CapsStyle::kProc;
  info.devices = control_devices(root);
  for (std::size_t i = 0; i < ctx.nvml.gpus.size(); ++i)
    info.gpus.push_back(
        make_gpu(root, static_cast<unsigned>(i), ctx.nvml.gpus[i], ctx.nvml_fallback));
  info.libs = select_libraries(*ctx.ldcache, root, native_ldcache_arch(), info.nvrm_version, false);
  if (auto arch32 = compat32_ldcache_arch(); arch32 && o.libs32)
    info.libs32 = select_libraries(*ctx.ldcache, root, *arch32, info.nvrm_version, true);
  info.bins = find_binaries(root, o.path_env, *o.binary_names);
  info.ipcs = ipc_paths(root, o);
  if (!o.no_gsp_firmware) info.firmwares = firmwares(root, info.nvrm_version);
  return info;
}

}  // namespace nvct::driver
