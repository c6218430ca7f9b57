// Family `imex` (spec/doctor.md §3.8): IMEX channel device nodes, which NVIDIA_IMEX_CHANNELS
// requests need, against the nvidia-caps-imex-channels major of /proc/devices.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fmt/format.h>

#include "nvct/base/strings.hpp"
#include "nvct/diagnose/families.hpp"
#include "nvct/diagnose/proc_facts.hpp"

namespace nvct::diagnose {

std::vector<Finding> check_imex(Host& host) {
  std::vector<Finding> out;
  const ProcFacts& proc = host.proc();
  auto major_number = proc.major_of("nvidia-caps-imex-channels");
  if (!major_number) {
    add_ok_unless_worse(out, "imex", "IMEX not in use",
                        {"/proc/devices: no nvidia-caps-imex-channels major"});
    return out;
  }
  constexpr std::string_view kDir = "/dev/nvidia-caps-imex-channels";
  std::vector<std::string> channels;
  for (const auto& name : host.list_dir(kDir)) {
    if (!strings::starts_with(name, "channel")) continue;
    auto st = host.lstat(fmt::format("{}/{}", kDir, name));
    if (st && S_ISCHR(st->st_mode) && major(st->st_rdev) == *major_number) channels.push_back(name);
  }
  if (channels.empty()) {
    // Info, not a warning: the driver creates no channel by default (NVreg_CreateImexChannel0=0,
    // seen on an H200 host with driver 580); only IMEX (multi-node NVLink) workloads need one.
    out.push_back({"imex.channels-missing",
                   Severity::kInfo,
                   "IMEX channels enabled in the kernel but no channel nodes: "
                   "NVIDIA_IMEX_CHANNELS requests fail",
                   {fmt::format("/proc/devices: {} nvidia-caps-imex-channels", *major_number),
                    fmt::format("{}/channel*: absent", kDir)},
                   fmt::format("mkdir -p {0} && mknod {0}/channel0 c {1} 0", kDir, *major_number)});
  }
  add_ok_unless_worse(
      out, "imex",
      fmt::format("{} IMEX channel{}", channels.size(), channels.size() == 1 ? "" : "s"),
      {fmt::format("{}: {}", kDir, strings::join(channels, ", "))});
  return out;
}

}  // namespace nvct::diagnose
