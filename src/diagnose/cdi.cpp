// Family `cdi` (spec/doctor.md §3.6): the CDI specs in the spec folders (read with the cdi::
// reader, 10 MiB cap, each parsed once), checked against the loaded driver, the host's files, each
// other and the current MIG devices; and the refresh unit.
#include <sys/stat.h>

#include <fmt/format.h>

#include <map>
#include <set>

#include "nvct/base/strings.hpp"
#include "nvct/cdi/spec_io.hpp"
#include "nvct/cdi/validate.hpp"
#include "nvct/diagnose/config_facts.hpp"
#include "nvct/diagnose/families.hpp"
#include "nvct/diagnose/proc_facts.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::diagnose {
namespace {

constexpr std::size_t kMaxSpecSize = 10u << 20;

struct LoadedSpec {
  std::string path;
  cdi::Spec spec;
};

// The driver version a driver file names: libcuda.so.<v>, libnvidia-ml.so.<v>,
// /lib/firmware/nvidia/<v>/...; "" for other files.
std::string named_version(std::string_view path) {
  constexpr std::string_view kFirmware = "/lib/firmware/nvidia/";
  if (auto at = path.find(kFirmware); at != std::string_view::npos) {
    auto rest = path.substr(at + kFirmware.size());
    return std::string(rest.substr(0, rest.find('/')));
  }
  auto base = strings::basename(path);
  for (std::string_view lib : {"libcuda.so.", "libnvidia-ml.so."}) {
    if (strings::starts_with(base, lib)) return std::string(base.substr(lib.size()));
  }
  return "";
}

template <class Fn>
void each_edits(const cdi::Spec& spec, Fn&& fn) {
  fn(spec.container_edits);
  for (const auto& device : spec.devices) fn(device.container_edits);
}

// Current MIG devices per GPU index (GPUs in bus order), from the capability folders.
std::map<unsigned, unsigned> current_migs(Host& host) {
  std::map<unsigned, unsigned> out;
  const auto& gpus = host.proc().gpus;
  for (unsigned i = 0; i < gpus.size(); ++i) {
    std::string mig = fmt::format("{}/gpu{}/mig", driver::kProcCapabilities, gpus[i].info.minor);
    for (const auto& gi : host.list_dir(mig)) {
      if (!strings::starts_with(gi, "gi")) continue;
      for (const auto& ci : host.list_dir(fmt::format("{}/{}", mig, gi))) {
        if (strings::starts_with(ci, "ci")) ++out[i];
      }
    }
  }
  return out;
}

}  // namespace

std::vector<Finding> check_cdi(Host& host) {
  std::vector<Finding> out;
  const ConfigFacts& config = host.config();
  const std::vector<std::string>& dirs = host.options().cdi_spec_dirs.empty()
                                             ? config.config.runtime.cdi.spec_dirs
                                             : host.options().cdi_spec_dirs;
  std::vector<LoadedSpec> specs;
  std::vector<std::string> invalid;
  for (const auto& dir : dirs) {
    for (const auto& name : host.list_dir(dir)) {
      if (!strings::ends_with(name, ".yaml") && !strings::ends_with(name, ".json")) continue;
      std::string path = fmt::format("{}/{}", dir, name);
      auto text = host.read(path, kMaxSpecSize);
      if (!text) {
        invalid.push_back(fmt::format("{}: {}", path, text.error().message()));
        continue;
      }
      auto spec = cdi::parse_spec(*text, path);
      if (!spec) {
        invalid.push_back(fmt::format("{}: {}", path, spec.error().message()));
        continue;
      }
      if (auto valid = cdi::validate_spec(*spec); !valid) {
        invalid.push_back(fmt::format("{}: {}", path, valid.error().message()));
        continue;
      }
      specs.push_back({path, std::move(*spec)});
    }
  }
  std::vector<const LoadedSpec*> nvidia;
  for (const auto& s : specs) {
    if (strings::starts_with(s.spec.kind, "nvidia.com/")) nvidia.push_back(&s);
  }

  // cdi.none
  if (nvidia.empty()) {
    const bool cdi_mode = config.config.runtime.mode == "cdi";
    const bool podman = !find_on_path(host, "podman").empty() && oci_hook_file(host).empty();
    std::vector<std::string> evidence = {
        fmt::format("{}: no nvidia.com spec", strings::join(dirs, ", "))};
    if (cdi_mode) evidence.push_back(fmt::format("{}: mode = \"cdi\"", config.path));
    if (podman) evidence.push_back(find_on_path(host, "podman") + ": Podman without the OCI hook");
    out.push_back({"cdi.none", cdi_mode || podman ? Severity::kError : Severity::kInfo,
                   "no NVIDIA CDI spec", std::move(evidence),
                   "nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml"});
  }
  // cdi.invalid
  if (!invalid.empty()) {
    std::vector<std::string> evidence;
    add_capped_evidence(evidence, invalid);
    out.push_back({"cdi.invalid", Severity::kError,
                   fmt::format("{} CDI spec{} cannot be used", invalid.size(),
                               invalid.size() == 1 ? "" : "s"),
                   std::move(evidence), "regenerate: nvidia-ctk cdi generate --output=<file>"});
  }
  // cdi.stale
  const std::string& loaded = host.proc().driver_version;
  std::vector<std::string> stale;
  for (const auto* s : nvidia) {
    std::set<std::string> seen;
    each_edits(s->spec, [&](const cdi::ContainerEdits& edits) {
      std::vector<std::string> paths;
      for (const auto& m : edits.mounts) paths.push_back(m.host_path);
      for (const auto& d : edits.device_nodes) {
        paths.push_back(d.host_path.empty() ? d.path : d.host_path);
      }
      for (const auto& p : paths) {
        if (p.empty() || p[0] != '/' || !seen.insert(p).second) continue;
        std::string version = named_version(p);
        if (!loaded.empty() && !version.empty() && version != loaded) {
          stale.push_back(
              fmt::format("{}: {} names driver {}, loaded {}", s->path, p, version, loaded));
        } else if (!host.lstat(p)) {
          stale.push_back(fmt::format("{}: {}: absent", s->path, p));
        }
      }
    });
  }
  if (!stale.empty()) {
    std::vector<std::string> evidence;
    add_capped_evidence(evidence, stale);
    out.push_back({"cdi.stale", Severity::kError,
                   "a CDI spec names driver files that are not on the host (driver upgraded?)",
                   std::move(evidence),
                   "nvidia-ctk cdi generate --output=<file>; systemctl enable --now "
                   "nvidia-cdi-refresh.path"});
  }
  // cdi.duplicate-device
  std::map<std::string, std::string> first_file;
  std::vector<std::string> duplicates;
  for (const auto& s : specs) {
    for (const auto& device : s.spec.devices) {
      std::string qualified = fmt::format("{}={}", s.spec.kind, device.name);
      auto [it, inserted] = first_file.emplace(qualified, s.path);
      if (!inserted && it->second != s.path) {
        duplicates.push_back(fmt::format("{}: in {} and {}", qualified, it->second, s.path));
      }
    }
  }
  if (!duplicates.empty()) {
    std::vector<std::string> evidence;
    add_capped_evidence(evidence, duplicates);
    out.push_back({"cdi.duplicate-device", Severity::kError,
                   "the same CDI device in two specs: the CDI cache refuses both "
                   "(unresolvable CDI devices)",
                   std::move(evidence), "delete the older file"});
  }
  // cdi.mig-stale
  std::map<unsigned, unsigned> in_spec;
  for (const auto* s : nvidia) {
    for (const auto& device : s->spec.devices) {
      auto colon = device.name.find(':');
      if (colon == std::string::npos) continue;
      auto gpu = driver::parse_unsigned(std::string_view(device.name).substr(0, colon));
      auto mig = driver::parse_unsigned(std::string_view(device.name).substr(colon + 1));
      if (gpu && mig) ++in_spec[*gpu];
    }
  }
  auto now = current_migs(host);
  if (!nvidia.empty() && in_spec != now) {
    std::vector<std::string> evidence;
    std::set<unsigned> gpus;
    for (const auto& [g, n] : in_spec) gpus.insert(g);
    for (const auto& [g, n] : now) gpus.insert(g);
    for (unsigned g : gpus) {
      unsigned a = in_spec.count(g) ? in_spec[g] : 0, b = now.count(g) ? now[g] : 0;
      if (a != b) {
        evidence.push_back(fmt::format("GPU {}: {} MIG devices in the spec, {} now", g, a, b));
      }
    }
    out.push_back({"cdi.mig-stale", Severity::kWarn,
                   "the CDI spec's MIG devices differ from the current ones", std::move(evidence),
                   "regenerate after MIG changes: nvidia-ctk cdi generate --output=<file>"});
  }
  // cdi.refresh-disabled
  bool refresh = false;
  for (const auto& wants : host.list_dir("/etc/systemd/system")) {
    if (!strings::ends_with(wants, ".wants")) continue;
    if (host.lstat(fmt::format("/etc/systemd/system/{}/nvidia-cdi-refresh.path", wants))) {
      refresh = true;
    }
  }
  if (!refresh) {
    out.push_back({"cdi.refresh-disabled",
                   Severity::kInfo,
                   "nvidia-cdi-refresh.path is not enabled: specs are not regenerated after a "
                   "driver upgrade",
                   {"/etc/systemd/system/*.wants/nvidia-cdi-refresh.path: absent"},
                   "systemctl enable --now nvidia-cdi-refresh.path"});
  }
  std::vector<std::string> evidence;
  for (const auto* s : nvidia) {
    evidence.push_back(
        fmt::format("{}: {}, {} devices", s->path, s->spec.kind, s->spec.devices.size()));
  }
  add_ok_unless_worse(out, "cdi",
                      nvidia.empty() ? std::string("CDI specs checked: none for NVIDIA")
                                     : fmt::format("{} NVIDIA CDI spec{}", nvidia.size(),
                                                   nvidia.size() == 1 ? "" : "s"),
                      std::move(evidence));
  return out;
}

}  // namespace nvct::diagnose
