// NVML behind an interface (driver.md §11): NvmlApi mirrors the 18 symbols the reference uses,
// query_nvml() holds the enumeration logic (tested with a fake), and NvmlFacts is what it learns.
#pragma once

#include <string>
#include <vector>

#include "nvct/base/error.hpp"

namespace nvct::driver {

// nvmlReturn_t values that change control flow.
inline constexpr int kNvmlSuccess = 0;
inline constexpr int kNvmlErrorNotSupported = 3;
inline constexpr int kNvmlErrorNotFound = 6;
inline constexpr int kNvmlErrorFunctionNotFound = 13;

// Caps of the reference's MIG enumeration.
inline constexpr unsigned kMaxMigDevicesPerGpu = 8;
inline constexpr unsigned kMaxGpus = 64;

struct NvmlPci {
  unsigned domain = 0, bus = 0, device = 0;
};

// One method per NVML function; each returns the nvmlReturn_t.
class NvmlApi {
 public:
  using Handle = void*;
  virtual ~NvmlApi() = default;
  virtual int init() = 0;
  virtual int shutdown() = 0;
  virtual std::string error_string(int code) = 0;
  virtual int system_driver_version(std::string& out) = 0;
  virtual int system_cuda_driver_version(int& out) = 0;
  virtual int device_count(unsigned& out) = 0;
  virtual int device_handle_by_index(unsigned index, Handle& out) = 0;
  virtual int device_minor_number(Handle h, unsigned& out) = 0;
  virtual int device_uuid(Handle h, std::string& out) = 0;
  virtual int device_name(Handle h, std::string& out) = 0;
  virtual int device_pci_info(Handle h, NvmlPci& out) = 0;
  virtual int device_brand(Handle h, int& out) = 0;
  virtual int device_cuda_compute_capability(Handle h, int& major, int& minor) = 0;
  virtual int device_mig_mode(Handle h, unsigned& current, unsigned& pending) = 0;
  virtual int device_max_mig_device_count(Handle h, unsigned& out) = 0;
  virtual int device_mig_device_handle_by_index(Handle h, unsigned index, Handle& out) = 0;
  virtual int device_gpu_instance_id(Handle h, unsigned& out) = 0;
  virtual int device_compute_instance_id(Handle h, unsigned& out) = 0;
};

struct NvmlMigDevice {
  unsigned index = 0;  // position in NVML's enumeration of the parent's MIG devices
  std::string uuid;
  unsigned gi = 0, ci = 0;
};

struct NvmlGpu {
  unsigned minor = 0;
  std::string uuid, name, bus_id;  // bus_id: %08x:%02x:%02x.0
  int brand = 0;
  int cc_major = 0, cc_minor = 0;
  bool mig_capable = false, mig_enabled = false;
  std::vector<NvmlMigDevice> migs;
};

struct NvmlFacts {
  std::string driver_version;
  std::string cuda_version;  // "12.4"
  std::vector<NvmlGpu> gpus;
};

// Init, query everything, shutdown. Errors read "nvml error: <nvmlErrorString>".
Result<NvmlFacts> query_nvml(NvmlApi& api);

// "%u.%u" of v/1000 and (v%100)/10: 12040 -> "12.4".
std::string format_cuda_version(int version);
// nvmlBrandType_t -> the names of request.md §10.4 ("Unknown" outside the table).
std::string brand_name(int brand);

}  // namespace nvct::driver
