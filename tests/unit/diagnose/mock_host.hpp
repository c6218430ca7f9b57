// A healthy mock GPU host in a TempDir for the doctor's tests (spec/doctor.md §7): procfs files,
// device nodes (real character devices: the unit tests run as root; tests that need nodes skip
// otherwise), /dev/char links, a driver root with libraries and an ld.so.cache, a toolkit config
// and engine configs. Each test introduces one defect. A snapshot of the tree taken before a test
// must equal the one after it: doctor never writes.
#pragma once

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../base/elf_note_writer.hpp"
#include "../driver/ldcache_writer.hpp"
#include "nvct/diagnose/doctor.hpp"
#include "nvct/driver/ldcache.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::diagnose::testing {

inline constexpr const char* kVersion = "550.54.14";
inline constexpr const char* kLibDir = "/usr/lib/x86_64-linux-gnu";
// The version note of the mock host's toolkit programs.
inline constexpr const char* kToolkitVersion = "1.20.0+nvct-mock";

class MockHost {
 public:
  explicit MockHost(unsigned gpus = 2) : gpus_(gpus) {
    file("/proc/driver/nvidia/version",
         fmt::format("NVRM version: NVIDIA UNIX x86_64 Kernel Module  {}  Thu Feb 22 01:44:30 "
                     "UTC 2024\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n",
                     kVersion));
    file("/proc/devices",
         "Character devices:\n  1 mem\n195 nvidia-frontend\n235 nvidia-caps\n238 nvidia-uvm\n\n"
         "Block devices:\n  8 sd\n");
    file("/proc/driver/nvidia/params", "DeviceFileUID: 0\nDeviceFileGID: 0\nDeviceFileMode: 438\n");
    for (unsigned i = 0; i < gpus_; ++i) {
      file(fmt::format("/proc/driver/nvidia/gpus/0000:{:02x}:00.0/information", i + 1),
           fmt::format("Model: \t\t NVIDIA H100\nIRQ:   \t\t 100\nGPU UUID: \t "
                       "GPU-0000000{}-1111-2222-3333-444444444444\nBus Location: \t "
                       "0000:{:02x}:00.0\nDevice Minor: \t {}\n",
                       i, i + 1, i));
    }
    if (can_mknod()) {
      node("/dev/nvidiactl", 195, 255);
      for (unsigned i = 0; i < gpus_; ++i) node(fmt::format("/dev/nvidia{}", i), 195, i);
      node("/dev/nvidia-uvm", 238, 0);
      node("/dev/nvidia-uvm-tools", 238, 1);
    }
    library("libnvidia-ml.so");
    library("libcuda.so");
    write_cache();
    file("/sbin/ldconfig", "#!/bin/sh\n", 0755);
    file("/proc/self/mountinfo",
         "25 1 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
         "rw,nsdelegate\n");
    file("/run/nvidia-persistenced/socket", "");
    for (const char* program : {"nvidia-container-runtime", "nvidia-container-runtime-hook",
                                "nvidia-ctk", "nvidia-cdi-hook", "nvidia-container-cli"}) {
      file(fmt::format("/usr/bin/{}", program), nvct::testing::nvct_program(kToolkitVersion),
           0755);
    }
    symlink("nvidia-container-runtime-hook", "/usr/bin/nvidia-container-toolkit");
    file("/etc/cdi/nvidia.yaml", cdi_spec());
    symlink("/etc/systemd/system/nvidia-cdi-refresh.path",
            "/etc/systemd/system/multi-user.target.wants/nvidia-cdi-refresh.path");
    file("/etc/nvidia-container-runtime/config.toml",
         "[nvidia-container-runtime]\nmode = \"auto\"\n");
    file("/etc/docker/daemon.json",
         "{\n  \"runtimes\": {\n    \"nvidia\": {\n      \"args\": [],\n      \"path\": "
         "\"nvidia-container-runtime\"\n    }\n  }\n}\n");
    options_.root = dir_.path();
    options_.nvml = [this](const driver::DriverRoot&, const std::string& library) {
      nvml_calls.push_back(library);
      return nvml_result;
    };
    nvml_result = driver::NvmlFacts{kVersion, "12.4", {}};
    nvml_result->gpus.resize(gpus_);
    for (unsigned i = 0; i < gpus_; ++i) nvml_result->gpus[i].minor = i;
  }

  static bool can_mknod() { return ::geteuid() == 0; }

  // A valid NVIDIA CDI spec for this host: GPU 0, MIG devices "<gpu>:<n>" as given, libcuda.
  static std::string cdi_spec(std::string_view version = kVersion,
                              std::string_view extra_devices = "") {
    return fmt::format(
        "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: \"0\"\n  containerEdits:\n"
        "    deviceNodes:\n    - path: /dev/nvidia0\n{}containerEdits:\n  mounts:\n"
        "  - hostPath: {}/libcuda.so.{}\n    containerPath: {}/libcuda.so.{}\n"
        "    options: [ro, nosuid, nodev, bind]\n",
        extra_devices, kLibDir, version, kLibDir, version);
  }

  const std::string& path() const { return dir_.path(); }
  std::string host_path(std::string_view rel) const { return dir_.path() + std::string(rel); }

  void file(std::string_view rel, std::string_view content, mode_t mode = 0644) const {
    std::string p = dir_.write(rel.substr(1), content);
    ::chmod(p.c_str(), mode);
  }
  void remove(std::string_view rel) const { std::filesystem::remove_all(host_path(rel)); }
  void symlink(std::string_view target, std::string_view rel) const {
    std::filesystem::create_directories(std::filesystem::path(host_path(rel)).parent_path());
    std::filesystem::create_symlink(target, host_path(rel));
  }
  // A character device and its /dev/char link.
  void node(std::string_view rel, unsigned major, unsigned minor, mode_t mode = 0666,
            bool link = true) const {
    std::filesystem::create_directories(std::filesystem::path(host_path(rel)).parent_path());
    std::string p = host_path(rel);
    EXPECT_EQ(::mknod(p.c_str(), S_IFCHR | mode, makedev(major, minor)), 0) << p;
    ::chmod(p.c_str(), mode);
    if (link)
      symlink(fmt::format("..{}", rel.substr(4)), fmt::format("/dev/char/{}:{}", major, minor));
  }
  // lib<name>.<version> and its soname link lib<name>.1, registered in the cache.
  void library(std::string_view name, std::string_view version = kVersion, bool cached = true) {
    std::string file_name = fmt::format("{}.{}", name, version);
    std::string soname = fmt::format("{}.1", name);
    file(fmt::format("{}/{}", kLibDir, file_name), std::string("\x7f"
                                                               "ELF",
                                                               4));
    if (!cached) return;
    std::filesystem::remove(host_path(fmt::format("{}/{}", kLibDir, soname)));
    symlink(file_name, fmt::format("{}/{}", kLibDir, soname));
    entries_.push_back({static_cast<std::int32_t>(0x0003 | driver::native_ldcache_arch()), soname,
                        fmt::format("{}/{}", kLibDir, soname)});
  }
  void drop_cache_entry(std::string_view soname) {
    std::erase_if(entries_, [&](const auto& e) { return e.key == soname; });
    write_cache();
  }
  void write_cache() const { file("/etc/ld.so.cache", driver::testing::build_ldcache(entries_)); }

  Options& options() { return options_; }
  Report run() {
    auto report = run_doctor(options_);
    EXPECT_TRUE(report.has_value()) << (report ? "" : report.error().message());
    return report ? *report : Report{};
  }

  Result<driver::NvmlFacts> nvml_result;
  std::vector<std::string> nvml_calls;

 private:
  nvct::testing::TempDir dir_;
  unsigned gpus_;
  std::vector<driver::testing::CacheEntrySpec> entries_;
  Options options_;
};

// Findings of one family, or every finding whose severity is not ok/info.
inline std::vector<Finding> of_family(const Report& r, std::string_view family) {
  std::vector<Finding> out;
  for (const auto& f : r.findings) {
    if (f.family() == family) out.push_back(f);
  }
  return out;
}
inline std::vector<std::string> problem_ids(const Report& r) {
  std::vector<std::string> out;
  for (const auto& f : r.findings) {
    if (f.severity == Severity::kError || f.severity == Severity::kWarn) out.push_back(f.id);
  }
  return out;
}
inline const Finding* find(const Report& r, std::string_view id) {
  for (const auto& f : r.findings) {
    if (f.id == id) return &f;
  }
  return nullptr;
}
inline bool evidence_has(const Finding& f, std::string_view needle) {
  for (const auto& e : f.evidence) {
    if (e.find(needle) != std::string::npos) return true;
  }
  return false;
}

// Path, type, mode, size, mtime and content of every entry below a folder.
inline std::map<std::string, std::string> snapshot(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (auto it = std::filesystem::recursive_directory_iterator(dir);
       it != std::filesystem::recursive_directory_iterator(); ++it) {
    struct stat st {};
    ::lstat(it->path().c_str(), &st);
    std::string content;
    if (S_ISREG(st.st_mode)) {
      std::ifstream in(it->path(), std::ios::binary);
      content.assign(std::istreambuf_iterator<char>(in), {});
    } else if (S_ISLNK(st.st_mode)) {
      content = std::filesystem::read_symlink(it->path()).string();
    }
    out[it->path().string()] =
        fmt::format("{:o} {} {} {}.{} {}", st.st_mode, st.st_rdev, st.st_size, st.st_mtim.tv_sec,
                    st.st_mtim.tv_nsec, std::hash<std::string>{}(content));
  }
  return out;
}

// Asserts that the test's doctor runs left the tree as it was.
class ReadOnlyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!MockHost::can_mknod()) {
      GTEST_SKIP() << "device nodes need root";
    }
  }
  // Call after the defect is in place; TearDown compares.
  void seal() {
    before_ = snapshot(host.path());
    sealed_ = true;
  }
  void TearDown() override {
    if (sealed_) {
      EXPECT_EQ(before_, snapshot(host.path())) << "doctor changed the host tree";
    }
  }
  Report run() {
    seal();
    return host.run();
  }

  MockHost host;
  std::map<std::string, std::string> before_;
  bool sealed_ = false;
};

}  // namespace nvct::diagnose::testing
