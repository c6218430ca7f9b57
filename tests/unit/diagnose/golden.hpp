// Golden outputs of doctor (spec/doctor.md §7): a healthy mock host and a broken one (one error
// and one warning per family). The temp root is masked as <root>, the duration as 0.
// NVCT_UPDATE_GOLDEN=1 rewrites the files.
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "mock_host.hpp"

namespace nvct::diagnose::testing {

inline std::string golden_path(std::string_view name) {
  return std::string(NVCT_SOURCE_DIR) + "/tests/unit/diagnose/golden/" + std::string(name);
}

inline void expect_golden(std::string_view name, const std::string& actual) {
  std::string path = golden_path(name);
  if (std::getenv("NVCT_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << actual;
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path << " is missing (NVCT_UPDATE_GOLDEN=1 writes it)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "differs from " << path;
}

inline std::string mask_root(std::string text, const std::string& root) {
  for (std::size_t at = text.find(root); at != std::string::npos; at = text.find(root, at)) {
    text.replace(at, root.size(), "<root>");
  }
  return text;
}

// The broken host: per family one error and one warning.
inline void break_host(MockHost& host) {
  // driver: libcuda.so.1 gone from the cache (error), its file still there (stale cache, warn).
  host.drop_cache_entry("libcuda.so.1");
  // devices: a GPU node missing (error), a /dev/char link missing (warn).
  host.remove("/dev/nvidia1");
  host.remove("/dev/char/195:1");
  host.remove("/dev/char/195:255");
  // cgroups: a rootless Podman beside the rootful Docker (warn; the family has no error).
  host.file("/home/alice/.config/containers/storage.conf", "");
  // ipc: an NVSwitch without fabric manager (error), no persistenced on an H100 (warn).
  host.file("/proc/devices",
            "Character devices:\n195 nvidia-frontend\n237 nvidia-nvswitch\n238 nvidia-uvm\n\n");
  host.file("/proc/driver/nvidia-nvswitch/devices/0000:05:00.0/information", "");
  host.remove("/run/nvidia-persistenced");
  // engines: the hook missing from dockerd's PATH (error), nvidia as Docker's default (warn).
  host.remove("/usr/bin/nvidia-container-runtime-hook");
  host.file(
      "/etc/docker/daemon.json",
      R"({"default-runtime": "nvidia", "runtimes": {"nvidia": {"path": "nvidia-container-runtime"}}})");
  // cdi: a spec that does not parse (error), the refresh unit off (info), MIG devices of the
  // spec gone (warn: the spec lists 1:0, the host has none).
  host.file("/etc/cdi/broken.json", "{");
  host.file("/etc/cdi/nvidia.yaml",
            MockHost::cdi_spec("550.54.14",
                               "- name: \"1:0\"\n  containerEdits:\n    deviceNodes:\n"
                               "    - path: /dev/nvidia0\n"));
  host.remove("/etc/systemd");
  // mig: GPU 0 with an instance whose capability node is missing (error); GPU 1 with MIG on
  // and no instance (warn).
  host.file("/proc/driver/nvidia/capabilities/gpu0/mig/gi1/access", "DeviceFileMinor: 12\n");
  host.file("/proc/driver/nvidia/capabilities/gpu1/mig/.keep", "");
  // imex: the channel major without channel nodes (warn; the family has no error).
  host.file(
      "/proc/devices",
      "Character devices:\n195 nvidia-frontend\n234 nvidia-caps-imex-channels\n235 nvidia-caps\n"
      "237 nvidia-nvswitch\n238 nvidia-uvm\n\n");
  // config: a bad enum value (error), an unknown key (warn).
  host.file("/etc/nvidia-container-runtime/config.toml",
            "[nvidia-container-runtime]\nmode = \"legcy\"\n\n[nvidia-container-cli]\nldcach = "
            "\"/etc/ld.so.cache\"\n");
}

}  // namespace nvct::diagnose::testing
