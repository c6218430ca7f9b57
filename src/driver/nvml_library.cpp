#include "nvct/driver/nvml_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <array>
#include <cstring>

#include "nvct/base/file.hpp"

namespace nvct::driver {
namespace {

using Handle = NvmlApi::Handle;

// nvmlPciInfo_t of the unversioned nvmlDeviceGetPciInfo: busId[16] then domain, bus, device.
// The tail is oversized so that a library filling a newer, larger struct cannot overrun it.
struct PciInfo {
  char bus_id_legacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pci_device_id;
  unsigned pci_subsystem_id;
  char tail[128];
};

class DlNvml final : public NvmlApi {
 public:
  explicit DlNvml(void* lib) : lib_(lib) {}
  ~DlNvml() override { ::dlclose(lib_); }
  DlNvml(const DlNvml&) = delete;
  DlNvml& operator=(const DlNvml&) = delete;

  int init() override { return call<int (*)()>("nvmlInit_v2"); }
  int shutdown() override { return call<int (*)()>("nvmlShutdown"); }
  std::string error_string(int code) override {
    auto f = sym<const char* (*)(int)>("nvmlErrorString");
    const char* s = f ? f(code) : nullptr;
    return s ? s : fmt::format("unknown error {}", code);
  }
  int system_driver_version(std::string& out) override {
    return string_call("nvmlSystemGetDriverVersion", out, 80);
  }
  int system_cuda_driver_version(int& out) override {
    return call<int (*)(int*)>("nvmlSystemGetCudaDriverVersion", &out);
  }
  int device_count(unsigned& out) override {
    return call<int (*)(unsigned*)>("nvmlDeviceGetCount_v2", &out);
  }
  int device_handle_by_index(unsigned index, Handle& out) override {
    return call<int (*)(unsigned, Handle*)>("nvmlDeviceGetHandleByIndex_v2", index, &out);
  }
  int device_minor_number(Handle h, unsigned& out) override {
    return call<int (*)(Handle, unsigned*)>("nvmlDeviceGetMinorNumber", h, &out);
  }
  int device_uuid(Handle h, std::string& out) override {
    return device_string_call("nvmlDeviceGetUUID", h, out, 96);
  }
  int device_name(Handle h, std::string& out) override {
    return device_string_call("nvmlDeviceGetName", h, out, 64);
  }
  int device_pci_info(Handle h, NvmlPci& out) override {
    PciInfo pci{};
    int rc = call<int (*)(Handle, PciInfo*)>("nvmlDeviceGetPciInfo", h, &pci);
    out = {pci.domain, pci.bus, pci.device};
    return rc;
  }
  int device_brand(Handle h, int& out) override {
    return call<int (*)(Handle, int*)>("nvmlDeviceGetBrand", h, &out);
  }
  int device_cuda_compute_capability(Handle h, int& major, int& minor) override {
    return call<int (*)(Handle, int*, int*)>("nvmlDeviceGetCudaComputeCapability", h, &major,
                                             &minor);
  }
  int device_mig_mode(Handle h, unsigned& current, unsigned& pending) override {
    return call<int (*)(Handle, unsigned*, unsigned*)>("nvmlDeviceGetMigMode", h, &current,
                                                       &pending);
  }
  int device_max_mig_device_count(Handle h, unsigned& out) override {
    return call<int (*)(Handle, unsigned*)>("nvmlDeviceGetMaxMigDeviceCount", h, &out);
  }
  int device_mig_device_handle_by_index(Handle h, unsigned index, Handle& out) override {
    return call<int (*)(Handle, unsigned, Handle*)>("nvmlDeviceGetMigDeviceHandleByIndex", h, index,
                                                    &out);
  }
  int device_gpu_instance_id(Handle h, unsigned& out) override {
    return call<int (*)(Handle, unsigned*)>("nvmlDeviceGetGpuInstanceId", h, &out);
  }
  int device_compute_instance_id(Handle h, unsigned& out) override {
    return call<int (*)(Handle, unsigned*)>("nvmlDeviceGetComputeInstanceId", h, &out);
  }

 private:
  template <class F>
  F sym(const char* name) {
    return reinterpret_cast<F>(::dlsym(lib_, name));
  }
  template <class F, class... Args>
  int call(const char* name, Args... args) {
    auto f = sym<F>(name);
    return f ? f(args...) : kNvmlErrorFunctionNotFound;
  }
  int string_call(const char* name, std::string& out, unsigned size) {
    std::array<char, 256> buf{};
    int rc = call<int (*)(char*, unsigned)>(name, buf.data(), size);
    out.assign(buf.data(), ::strnlen(buf.data(), size));
    return rc;
  }
  int device_string_call(const char* name, Handle h, std::string& out, unsigned size) {
    std::array<char, 256> buf{};
    int rc = call<int (*)(Handle, char*, unsigned)>(name, h, buf.data(), size);
    out.assign(buf.data(), ::strnlen(buf.data(), size));
    return rc;
  }

  void* lib_;
};

}  // namespace

Result<std::unique_ptr<NvmlApi>> open_nvml_library(const std::string& path) {
  // dlopen of a FIFO planted as the library would block forever (issue 18).
  NVCT_TRY(with_context(check_regular_path(path), "load library failed"));
  void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* err = ::dlerror();
    return fail(ENOENT, fmt::format("load library failed: {}", err ? err : path));
  }
  return std::unique_ptr<NvmlApi>(new DlNvml(lib));
}

}  // namespace nvct::driver
