#include "nvct/driver/cuda_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <optional>

#include "nvct/base/file.hpp"
#include "nvct/driver/nvml_process.hpp"

namespace nvct::driver {
namespace {

// CUdevice_attribute values of the CUDA driver API.
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;

class Library {
 public:
  explicit Library(void* handle) : handle_(handle) {}
  ~Library() { ::dlclose(handle_); }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  template <class F>
  F sym(const char* name) const {
    return reinterpret_cast<F>(::dlsym(handle_, name));
  }

 private:
  void* handle_;
};

// Device 0's "major.minor", or why it is not known. Optional: the version alone is enough for
// `cuda` requirements, and a library without these entry points still answers it.
std::optional<std::string> device0_arch(const Library& lib, std::string& why) {
  auto init = lib.sym<int (*)(unsigned)>("cuInit");
  auto get = lib.sym<int (*)(int*, int)>("cuDeviceGet");
  auto attr = lib.sym<int (*)(int*, int, int)>("cuDeviceGetAttribute");
  if (!init || !get || !attr) {
    why = "cuInit, cuDeviceGet or cuDeviceGetAttribute not found in libcuda";
    return std::nullopt;
  }
  int device = 0, major = 0, minor = 0;
  int rc = init(0);
  if (rc == 0) rc = get(&device, 0);
  if (rc == 0) rc = attr(&major, kAttrComputeCapabilityMajor, device);
  if (rc == 0) rc = attr(&minor, kAttrComputeCapabilityMinor, device);
  if (rc != 0) {
    why = fmt::format("querying the compute capability of device 0 failed: CUDA error {}", rc);
    return std::nullopt;
  }
  return fmt::format("{}.{}", major, minor);
}

}  // namespace

Result<CudaDriverFacts> query_cuda_library(const std::string& path) {
  // dlopen of a FIFO planted as the library would block forever (issue 18).
  NVCT_TRY(with_context(check_regular_path(path), "load library failed"));
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* e = ::dlerror();
    return fail(ENOENT, fmt::format("load library failed: {}", e ? e : path));
  }
  Library lib(handle);
  auto version = lib.sym<int (*)(int*)>("cuDriverGetVersion");
  if (!version) return fail(ENOSYS, fmt::format("cuDriverGetVersion not found in {}", path));
  CudaDriverFacts facts;
  if (int rc = version(&facts.driver_version); rc != 0)
    return fail(EIO, fmt::format("cuDriverGetVersion failed: CUDA error {}", rc));
  facts.device0_arch = device0_arch(lib, facts.arch_error);
  return facts;
}

Result<CudaDriverFacts> query_cuda_here(const NvmlProcessOptions& o) {
  // The library is the driver root's code: it runs with nothing of the caller's privileges.
  NVCT_ASSIGN_OR_RETURN(std::string library, isolate_for_driver_library(o));
  return query_cuda_library(library);
}

}  // namespace nvct::driver
