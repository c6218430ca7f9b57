// Family `mig` (spec/doctor.md §3.8): per GPU, whether MIG is on and its instances, and the
// /dev/nvidia-caps nodes that the MIG capability files (DeviceFileMinor) name. MIG state comes
// from procfs: a GPU with MIG on has /proc/driver/nvidia/capabilities/gpu<minor>/mig, with one
// gi<N> folder per GPU instance. A MIG-capable GPU with MIG off has the folder too, empty: an
// empty folder is MIG on only when the driver family's NVML query says so.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fmt/format.h>

#include "nvct/base/strings.hpp"
#include "nvct/diagnose/families.hpp"
#include "nvct/diagnose/proc_facts.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::diagnose {
namespace {

// "<cap node>: absent (<access file>)" when the node for an access file is missing or wrong.
void check_cap(Host& host, unsigned caps_major, const std::string& access,
               std::vector<std::string>& missing) {
  auto text = host.read(access, 64u << 10);
  if (!text) return;
  auto minor_number = driver::parse_device_file_minor(*text);
  if (!minor_number) return;
  std::string node = fmt::format("/dev/nvidia-caps/nvidia-cap{}", *minor_number);
  auto st = host.lstat(node);
  if (!st) {
    missing.push_back(fmt::format("{}: absent ({})", node, access));
  } else if (!S_ISCHR(st->st_mode) || major(st->st_rdev) != caps_major ||
             minor(st->st_rdev) != *minor_number) {
    missing.push_back(fmt::format("{}: not character device {}:{} ({})", node, caps_major,
                                  *minor_number, access));
  }
}

}  // namespace

std::vector<Finding> check_mig(Host& host) {
  std::vector<Finding> out;
  const ProcFacts& proc = host.proc();
  const auto caps_major = proc.major_of("nvidia-caps");
  const std::string caps(driver::kProcCapabilities);

  std::vector<std::string> missing, states, no_instances;
  unsigned enabled = 0;
  for (const auto& gpu : proc.gpus) {
    std::string mig = fmt::format("{}/gpu{}/mig", caps, gpu.info.minor);
    if (!is_dir(host, mig)) {
      states.push_back(fmt::format("/dev/nvidia{}: MIG off", gpu.info.minor));
      continue;
    }
    unsigned instances = 0;
    for (const auto& gi : host.list_dir(mig)) {
      if (strings::starts_with(gi, "gi")) ++instances;
    }
    // A MIG-capable GPU has the folder with MIG off too (seen on an H200, driver 580): without
    // instances, only NVML tells whether MIG is on.
    if (instances == 0) {
      const driver::NvmlGpu* nv = nullptr;
      if (host.nvml_facts) {
        for (const auto& g : host.nvml_facts->gpus)
          if (g.minor == gpu.info.minor) nv = &g;
      }
      if (nv == nullptr || !nv->mig_enabled) {
        states.push_back(fmt::format("/dev/nvidia{}: MIG {}", gpu.info.minor,
                                     nv ? "off (NVML)"
                                        : "off or on without instances (no gi* entries; NVML "
                                          "not queried)"));
        continue;
      }
    }
    ++enabled;
    for (const auto& gi : host.list_dir(mig)) {
      if (!strings::starts_with(gi, "gi")) continue;
      if (!caps_major) continue;
      std::string gi_dir = fmt::format("{}/{}", mig, gi);
      check_cap(host, *caps_major, gi_dir + "/access", missing);
      for (const auto& ci : host.list_dir(gi_dir)) {
        if (strings::starts_with(ci, "ci")) {
          check_cap(host, *caps_major, fmt::format("{}/{}/access", gi_dir, ci), missing);
        }
      }
    }
    states.push_back(fmt::format("/dev/nvidia{}: MIG on, {} GPU instance{}", gpu.info.minor,
                                 instances, instances == 1 ? "" : "s"));
    if (instances == 0) no_instances.push_back(fmt::format("{}: no gi* entries", mig));
  }
  if (enabled > 0 && caps_major) {
    for (const char* name : {"config", "monitor"}) {
      std::string access = fmt::format("{}/mig/{}", caps, name);
      if (host.exists(access)) check_cap(host, *caps_major, access, missing);
    }
  }

  // mig.caps-missing
  if (!missing.empty()) {
    std::vector<std::string> evidence;
    add_capped_evidence(evidence, missing);
    out.push_back({"mig.caps-missing", Severity::kError,
                   fmt::format("{} MIG capability node{} missing: MIG devices cannot be given to "
                               "containers",
                               missing.size(), missing.size() == 1 ? "" : "s"),
                   std::move(evidence),
                   "run nvidia-smi once (it creates the capability nodes), or nvidia-ctk system "
                   "create-device-nodes"});
  }
  // mig.no-instances
  if (!no_instances.empty()) {
    out.push_back({"mig.no-instances", Severity::kWarn,
                   fmt::format("MIG on without GPU instances on {} GPU{}: no usable device",
                               no_instances.size(), no_instances.size() == 1 ? "" : "s"),
                   no_instances, "create instances: nvidia-smi mig -cgi <profiles> -C"});
  }
  std::string title = proc.gpus.empty() ? std::string("no GPUs: MIG not checked")
                      : enabled == 0
                          ? fmt::format("MIG off on all {} GPUs", proc.gpus.size())
                          : fmt::format("MIG on {} of {} GPUs", enabled, proc.gpus.size());
  add_ok_unless_worse(out, "mig", std::move(title), std::move(states));
  return out;
}

}  // namespace nvct::diagnose
