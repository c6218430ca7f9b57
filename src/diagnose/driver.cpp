// Family `driver` (spec/doctor.md §3.1): kernel module, the driver root's ld.so.cache, userspace
// and kernel versions, NVML. NVML runs in its child process only when the module is loaded and
// every node it would otherwise create exists (§4): the library may create nodes or load modules.
#include <sys/stat.h>

#include <fmt/format.h>
#include <algorithm>
#include <set>

#include "nvct/base/strings.hpp"
#include "nvct/diagnose/config_facts.hpp"
#include "nvct/diagnose/families.hpp"
#include "nvct/diagnose/proc_facts.hpp"
#include "nvct/driver/ldcache.hpp"

namespace nvct::diagnose {
namespace {

constexpr std::size_t kMaxLdcacheSize = 64u << 20;

struct CachedLibrary {
  std::string soname;
  std::string path;     // the cache entry's value (root-relative)
  std::string real;     // the file it resolves to, "" when dangling
  std::string version;  // the suffix after ".so." of the real file
};

std::string version_suffix(std::string_view file) {
  auto at = file.find(".so.");
  return at == std::string_view::npos ? "" : std::string(file.substr(at + 4));
}

std::optional<CachedLibrary> find_library(const driver::DriverRoot& root,
                                          const driver::LdCache& cache, std::string_view soname) {
  for (const auto& entry : cache.entries) {
    if (entry.key != soname ||
        !driver::ldcache_entry_matches(entry.flags, driver::native_ldcache_arch())) {
      continue;
    }
    CachedLibrary lib{std::string(soname), entry.value, "", ""};
    if (auto real = root.resolve(entry.value)) {
      lib.real = *real;
      lib.version = version_suffix(strings::basename(*real));
    }
    return lib;
  }
  return std::nullopt;
}

// Files lib*.so.<version> in the folders of the driver's libraries that no cache entry points to:
// installed after the last `ldconfig`, so the loader cannot find them by soname.
std::vector<std::string> uncached_libraries(const driver::DriverRoot& root,
                                            const driver::LdCache& cache,
                                            const std::vector<CachedLibrary>& libs,
                                            const std::string& version) {
  std::set<std::string> dirs;
  for (const auto& lib : libs) {
    if (!lib.real.empty()) dirs.insert(strings::dirname(lib.real));
  }
  std::set<std::string> cached;
  for (const auto& entry : cache.entries) {
    if (!dirs.count(strings::dirname(entry.value))) continue;
    if (auto real = root.resolve(entry.value)) cached.insert(*real);
  }
  std::vector<std::string> out;
  const std::string suffix = ".so." + version;
  for (const auto& dir : dirs) {
    auto names = root.list_dir(dir);
    if (!names) continue;
    for (const auto& name : *names) {
      if (!strings::starts_with(name, "lib") || !strings::ends_with(name, suffix)) continue;
      std::string path = dir == "/" ? "/" + name : dir + "/" + name;
      auto st = root.stat(path);
      if (!st || !S_ISREG(st->st_mode) || cached.count(path)) continue;
      out.push_back(path);
    }
  }
  return out;
}

// Why NVML may not be started, or "" when it may.
std::string nvml_gate(Host& host, const ProcFacts& proc, const std::optional<CachedLibrary>& nvml) {
  if (host.options().no_nvml) return "NVML not queried (--no-nvml)";
  if (!proc.module_loaded) return "NVML not queried: the kernel module is not loaded";
  if (!nvml || nvml->real.empty()) return "NVML not queried: libnvidia-ml.so.1 not found";
  if (!host.lstat("/dev/nvidiactl")) {
    return "NVML not queried: /dev/nvidiactl absent (NVML could create it)";
  }
  for (const auto& gpu : proc.gpus) {
    std::string node = fmt::format("/dev/nvidia{}", gpu.info.minor);
    if (!host.lstat(node)) {
      return fmt::format("NVML not queried: {} absent (NVML could create it)", node);
    }
  }
  return "";
}

bool is_version_mismatch(std::string_view message) {
  return strings::to_lower(message).find("version mismatch") != std::string::npos;
}

}  // namespace

std::vector<Finding> check_driver(Host& host) {
  std::vector<Finding> out;
  const ProcFacts& proc = host.proc();
  const std::string version_file(driver::kProcDriverVersion);

  // driver.module-not-loaded
  if (!proc.module_loaded) {
    out.push_back({"driver.module-not-loaded",
                   Severity::kError,
                   "NVIDIA kernel module not loaded",
                   {version_file + ": absent"},
                   "modprobe nvidia (or install the NVIDIA driver); doctor never loads it"});
  }

  // The driver root's ld.so.cache.
  const auto& root = host.driver_root();
  const std::string ldcache_path = host.config().config.cli.ldcache.empty()
                                       ? "/etc/ld.so.cache"
                                       : host.config().config.cli.ldcache;
  std::optional<driver::LdCache> cache;
  std::string cache_problem;
  if (!root) {
    cache_problem = root.error().message();
  } else if (auto data = root->read(ldcache_path, kMaxLdcacheSize); !data) {
    cache_problem = fmt::format("{}: {}", ldcache_path, data.error().message());
  } else if (auto parsed = driver::parse_ldcache(*data); !parsed) {
    cache_problem = fmt::format("{}: {}", ldcache_path, parsed.error().message());
  } else {
    cache = std::move(*parsed);
  }
  std::optional<CachedLibrary> nvml, cuda;
  if (cache) {
    nvml = find_library(*root, *cache, "libnvidia-ml.so.1");
    cuda = find_library(*root, *cache, "libcuda.so.1");
  }
  auto library_missing = [&](const std::optional<CachedLibrary>& lib, std::string_view soname) {
    std::vector<std::string> evidence;
    if (!cache_problem.empty()) {
      evidence.push_back(cache_problem);
    } else if (!lib) {
      evidence.push_back(fmt::format("{}: no {} entry (driver root {})", ldcache_path, soname,
                                     host.driver_root_display()));
    } else {
      evidence.push_back(fmt::format("{}: {} -> {}: absent", ldcache_path, soname, lib->path));
    }
    return evidence;
  };

  // driver.nvml-not-found
  if (!nvml || nvml->real.empty()) {
    auto evidence = library_missing(nvml, "libnvidia-ml.so.1");
    evidence.push_back("load library failed: libnvidia-ml.so.1: cannot open shared object file");
    out.push_back({"driver.nvml-not-found", Severity::kError,
                   "libnvidia-ml.so.1 not found in the driver root's ld.so.cache",
                   std::move(evidence),
                   "install the driver's utility libraries and run ldconfig, or set "
                   "nvidia-container-cli.root to the driver root"});
  }
  // driver.libcuda-missing
  if (!cuda || cuda->real.empty()) {
    out.push_back({"driver.libcuda-missing", Severity::kError,
                   "libcuda.so.1 not found in the driver root's ld.so.cache",
                   library_missing(cuda, "libcuda.so.1"),
                   "install the driver's compute libraries, then run ldconfig"});
  }

  // NVML, gated (§4); the facts feed version-mismatch, nvml-init-failed and cuda-version.
  std::string gate = nvml_gate(host, proc, nvml);
  std::optional<driver::NvmlFacts> nvml_facts;
  std::string nvml_error;
  if (gate.empty()) {
    driver::NvmlQuery query =
        host.options().nvml ? host.options().nvml : driver::isolated_nvml_query(std::nullopt);
    auto facts = query(*root, nvml->path);
    if (facts) {
      nvml_facts = std::move(*facts);
      host.nvml_facts = nvml_facts;
    } else {
      nvml_error = facts.error().message();
    }
  }

  // driver.version-mismatch
  if (!proc.driver_version.empty()) {
    std::vector<std::string> evidence;
    for (const auto* lib : {&nvml, &cuda}) {
      if (*lib && !(*lib)->version.empty() && (*lib)->version != proc.driver_version) {
        evidence.push_back(fmt::format("{}: {} -> {}", ldcache_path, (*lib)->soname, (*lib)->real));
      }
    }
    if (!nvml_error.empty() && is_version_mismatch(nvml_error)) {
      evidence.push_back(fmt::format("NVML: {}", nvml_error));
    }
    if (!evidence.empty()) {
      evidence.insert(evidence.begin(),
                      fmt::format("{}: kernel module {}", version_file, proc.driver_version));
      out.push_back({"driver.version-mismatch", Severity::kError,
                     fmt::format("driver libraries do not match the loaded kernel module {}",
                                 proc.driver_version),
                     std::move(evidence),
                     "reboot, or unload and reload the nvidia modules (rmmod nvidia_uvm "
                     "nvidia_drm nvidia_modeset nvidia && modprobe nvidia)"});
    }
  }

  // driver.ldcache-stale
  if (cache && !proc.driver_version.empty()) {
    std::vector<CachedLibrary> libs;
    for (const auto* lib : {&nvml, &cuda}) {
      if (*lib) libs.push_back(**lib);
    }
    auto stale = uncached_libraries(*root, *cache, libs, proc.driver_version);
    if (!stale.empty()) {
      std::vector<std::string> evidence;
      for (auto& path : stale) path += fmt::format(": not in {}", ldcache_path);
      add_capped_evidence(evidence, stale);
      out.push_back({"driver.ldcache-stale", Severity::kWarn,
                     fmt::format("{} driver {} librar{} missing from ld.so.cache", stale.size(),
                                 proc.driver_version, stale.size() == 1 ? "y" : "ies"),
                     std::move(evidence), "ldconfig"});
    }
  }

  // driver.nvml-init-failed
  if (!nvml_error.empty() && !is_version_mismatch(nvml_error)) {
    out.push_back({"driver.nvml-init-failed",
                   Severity::kError,
                   "NVML failed to initialize",
                   {fmt::format("{}: {}", nvml->path, nvml_error)},
                   "check the driver installation (dmesg | grep -i nvrm) and the device nodes"});
  }

  // driver.cuda-version
  if (proc.module_loaded) {
    std::string version = proc.driver_version.empty() ? "(unknown version)" : proc.driver_version;
    if (nvml_facts && !nvml_facts->cuda_version.empty()) {
      out.push_back(
          {"driver.cuda-version",
           Severity::kInfo,
           fmt::format("driver {} supports CUDA <= {}", version, nvml_facts->cuda_version),
           {fmt::format("NVML: nvmlSystemGetCudaDriverVersion: {}", nvml_facts->cuda_version),
            fmt::format("images that need CUDA > {} fail with \"unsatisfied "
                        "condition: cuda>=…\"",
                        nvml_facts->cuda_version)},
           ""});
    } else {
      out.push_back({"driver.cuda-version",
                     Severity::kInfo,
                     fmt::format("driver {}: supported CUDA version not known", version),
                     {gate.empty() ? fmt::format("NVML: {}", nvml_error) : gate},
                     ""});
    }
  }

  // driver.ok
  std::string nvml_state = nvml_facts ? "NVML loads" : gate.empty() ? "NVML fails" : gate;
  std::size_t gpu_count = nvml_facts ? nvml_facts->gpus.size() : proc.gpus.size();
  std::vector<std::string> evidence = {
      fmt::format("{}: {}", version_file,
                  proc.driver_version.empty() ? "unreadable" : proc.driver_version),
      fmt::format("{}: {} GPUs", driver::kProcGpus, proc.gpus.size())};
  if (nvml)
    evidence.push_back(fmt::format("{}: libnvidia-ml.so.1 -> {}", ldcache_path, nvml->real));
  if (cuda) evidence.push_back(fmt::format("{}: libcuda.so.1 -> {}", ldcache_path, cuda->real));
  add_ok_unless_worse(out, "driver",
                      fmt::format("NVIDIA driver {} loaded, {} GPU{}, {}", proc.driver_version,
                                  gpu_count, gpu_count == 1 ? "" : "s", nvml_state),
                      std::move(evidence));
  return out;
}

}  // namespace nvct::diagnose
