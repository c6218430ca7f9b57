// A scriptable NvmlApi for tests: GPUs and MIG devices as data, and per-function return codes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "nvct/driver/nvml.hpp"

namespace nvct::driver::testing {

struct FakeMig {
  std::string uuid;
  unsigned gi = 0, ci = 0;
};

struct FakeGpu {
  unsigned minor = 0;
  std::string uuid, name;
  NvmlPci pci;
  int brand = 2;
  int cc_major = 8, cc_minor = 0;
  int mig_mode_rc = kNvmlErrorNotSupported;
  unsigned mig_current = 0;
  unsigned max_migs = 7;
  std::vector<FakeMig> migs;
};

class FakeNvml : public NvmlApi {
 public:
  std::string driver = "550.54.14";
  int cuda = 12040;
  std::vector<FakeGpu> gpus;
  std::map<std::string, int> fail;  // function name -> return code
  bool shut_down = false;
  int mig_handle_calls = 0;

  int rc(const char* f) {
    auto it = fail.find(f);
    return it == fail.end() ? kNvmlSuccess : it->second;
  }
  // Handles: GPU i -> 1 + i; MIG j of GPU i -> 1000 * (1 + i) + j.
  static Handle h(std::size_t v) { return reinterpret_cast<Handle>(v); }
  static std::size_t v(Handle h) { return reinterpret_cast<std::size_t>(h); }
  const FakeGpu& gpu(Handle x) { return gpus[(v(x) >= 1000 ? v(x) / 1000 : v(x)) - 1]; }

  int init() override { return rc("init"); }
  int shutdown() override {
    shut_down = true;
    return kNvmlSuccess;
  }
  std::string error_string(int code) override {
    switch (code) {
      case 18:
        return "driver/library version mismatch";
      case 9:
        return "Driver Not Loaded";
      default:
        return "Unknown Error";
    }
  }
  int system_driver_version(std::string& out) override {
    out = driver;
    return rc("driver_version");
  }
  int system_cuda_driver_version(int& out) override {
    out = cuda;
    return rc("cuda_version");
  }
  int device_count(unsigned& out) override {
    out = static_cast<unsigned>(gpus.size());
    return rc("count");
  }
  int device_handle_by_index(unsigned i, Handle& out) override {
    out = h(i + 1);
    return rc("handle");
  }
  int device_minor_number(Handle x, unsigned& out) override {
    out = gpu(x).minor;
    return rc("minor");
  }
  int device_uuid(Handle x, std::string& out) override {
    out = v(x) >= 1000 ? gpu(x).migs[v(x) % 1000].uuid : gpu(x).uuid;
    return rc("uuid");
  }
  int device_name(Handle x, std::string& out) override {
    out = gpu(x).name;
    return rc("name");
  }
  int device_pci_info(Handle x, NvmlPci& out) override {
    out = gpu(x).pci;
    return rc("pci");
  }
  int device_brand(Handle x, int& out) override {
    out = gpu(x).brand;
    return rc("brand");
  }
  int device_cuda_compute_capability(Handle x, int& major, int& minor) override {
    major = gpu(x).cc_major;
    minor = gpu(x).cc_minor;
    return rc("cc");
  }
  int device_mig_mode(Handle x, unsigned& current, unsigned& pending) override {
    current = pending = gpu(x).mig_current;
    return gpu(x).mig_mode_rc;
  }
  int device_max_mig_device_count(Handle x, unsigned& out) override {
    out = gpu(x).max_migs;
    return rc("max_mig");
  }
  int device_mig_device_handle_by_index(Handle x, unsigned i, Handle& out) override {
    ++mig_handle_calls;
    if (i >= gpu(x).migs.size()) return kNvmlErrorNotFound;
    out = h(1000 * v(x) + i);
    return rc("mig_handle");
  }
  int device_gpu_instance_id(Handle x, unsigned& out) override {
    out = gpu(x).migs[v(x) % 1000].gi;
    return rc("gi");
  }
  int device_compute_instance_id(Handle x, unsigned& out) override {
    out = gpu(x).migs[v(x) % 1000].ci;
    return rc("ci");
  }
};

// GPU0: H100, Nvidia, 9.0, MIG enabled with gi1/ci0 and gi2/ci0; GPU1: A100, Tesla, 8.0, no MIG.
inline FakeNvml mig_topology() {
  FakeNvml f;
  FakeGpu g0{0, "GPU-0", "NVIDIA H100 80GB HBM3",           {0, 0x17, 0}, 14, 9, 0, kNvmlSuccess,
             1, 7,       {{"MIG-0", 1, 0}, {"MIG-1", 2, 0}}};
  FakeGpu g1{1, "GPU-1", "NVIDIA A100-SXM4-40GB", {0, 0x2a, 0}, 2, 8, 0, kNvmlErrorNotSupported, 0,
             0, {}};
  f.gpus = {g0, g1};
  return f;
}

}  // namespace nvct::driver::testing
