#include "nvct/driver/nvml.hpp"

#include <fmt/format.h>

#include <array>

#include "nvct/base/strings.hpp"

namespace nvct::driver {
namespace {

class NvmlCaller {
 public:
  explicit NvmlCaller(NvmlApi& api) : api_(api) {}
  Status operator()(int rc) {
    if (rc == kNvmlSuccess) return ok();
    // As the reference prints it: NVML's own string in lower case ("Driver Not Loaded" from
    // the real libnvidia-ml without its kernel module reads "nvml error: driver not loaded").
    return fail(EIO, fmt::format("nvml error: {}", strings::to_lower(api_.error_string(rc))));
  }

 private:
  NvmlApi& api_;
};

Status query_migs(NvmlApi& api, NvmlApi::Handle gpu, NvmlGpu& out) {
  NvmlCaller call(api);
  unsigned current = 0, pending = 0;
  int rc = api.device_mig_mode(gpu, current, pending);
  if (rc == kNvmlErrorNotSupported || rc == kNvmlErrorFunctionNotFound) return ok();
  NVCT_TRY(call(rc));
  out.mig_capable = true;
  out.mig_enabled = current == 1;
  if (!out.mig_enabled) return ok();
  unsigned max = 0;
  NVCT_TRY(call(api.device_max_mig_device_count(gpu, max)));
  if (max > kMaxMigDevicesPerGpu) max = kMaxMigDevicesPerGpu;
  for (unsigned i = 0; i < max; ++i) {
    NvmlApi::Handle mig = nullptr;
    rc = api.device_mig_device_handle_by_index(gpu, i, mig);
    if (rc == kNvmlErrorNotFound) break;
    NVCT_TRY(call(rc));
    NvmlMigDevice m;
    m.index = i;
    NVCT_TRY(call(api.device_uuid(mig, m.uuid)));
    NVCT_TRY(call(api.device_gpu_instance_id(mig, m.gi)));
    NVCT_TRY(call(api.device_compute_instance_id(mig, m.ci)));
    out.migs.push_back(std::move(m));
  }
  return ok();
}

Result<NvmlFacts> query_all(NvmlApi& api) {
  NvmlCaller call(api);
  NvmlFacts facts;
  NVCT_TRY(call(api.system_driver_version(facts.driver_version)));
  int cuda = 0;
  NVCT_TRY(call(api.system_cuda_driver_version(cuda)));
  facts.cuda_version = format_cuda_version(cuda);
  unsigned count = 0;
  NVCT_TRY(call(api.device_count(count)));
  if (count > kMaxGpus)
    return fail(fmt::format("nvml reports {} GPUs, more than {}", count, kMaxGpus));
  for (unsigned i = 0; i < count; ++i) {
    NvmlApi::Handle h = nullptr;
    NVCT_TRY(call(api.device_handle_by_index(i, h)));
    NvmlGpu g;
    NVCT_TRY(call(api.device_minor_number(h, g.minor)));
    NVCT_TRY(call(api.device_uuid(h, g.uuid)));
    NVCT_TRY(call(api.device_name(h, g.name)));
    NvmlPci pci;
    NVCT_TRY(call(api.device_pci_info(h, pci)));
    g.bus_id = fmt::format("{:08x}:{:02x}:{:02x}.0", pci.domain, pci.bus, pci.device);
    NVCT_TRY(call(api.device_brand(h, g.brand)));
    NVCT_TRY(call(api.device_cuda_compute_capability(h, g.cc_major, g.cc_minor)));
    NVCT_TRY(query_migs(api, h, g));
    facts.gpus.push_back(std::move(g));
  }
  return facts;
}

}  // namespace

Result<NvmlFacts> query_nvml(NvmlApi& api) {
  NVCT_TRY(NvmlCaller(api)(api.init()));
  auto facts = query_all(api);
  api.shutdown();
  return facts;
}

std::string format_cuda_version(int version) {
  auto v = static_cast<unsigned>(version);
  return fmt::format("{}.{}", v / 1000, (v % 100) / 10);
}

std::string brand_name(int brand) {
  static constexpr std::array<const char*, 17> kNames = {
      "Unknown",   "Quadro",    "Tesla",  "NVS",        "GRID",    "GeForce",
      "TITAN",     "VApps",     "VPC",    "VCS",        "VWS",     "CloudGaming",
      "QuadroRTX", "NvidiaRTX", "Nvidia", "GeForceRTX", "TitanRTX"};
  if (brand < 0 || static_cast<std::size_t>(brand) >= kNames.size()) return "Unknown";
  return kNames[static_cast<std::size_t>(brand)];
}

}  // namespace nvct::driver
