// A SystemOps fake for the `system` command tests: nodes are registered by path with their
// device number; mknod and modprobe calls are recorded.
#pragma once

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <map>
#include <string>
#include <vector>

#include "nvct/ctk/system_ops.hpp"

namespace nvct::ctk {

class FakeSystemOps final : public SystemOps {
 public:
  void add_node(const std::string& path, unsigned maj, unsigned min, mode_t type = S_IFCHR) {
    struct stat st {};
    st.st_mode = type | 0666;
    st.st_rdev = makedev(maj, min);
    nodes[path] = st;
  }
  Result<struct stat> stat(const driver::DriverRoot&, const std::string& path) override {
    auto it = nodes.find(path);
    if (it == nodes.end()) return fail(ENOENT, path + ": no such file or directory");
    return it->second;
  }
  Status mknod_char(const driver::DriverRoot&, const std::string& path, unsigned maj,
                    unsigned min, mode_t mode) override {
    mknods.push_back(path + " " + std::to_string(maj) + ":" + std::to_string(min) + " " +
                     std::to_string(mode));
    add_node(path, maj, min);
    return ok();
  }
  bool modprobe_available(const driver::DriverRoot&) override { return has_modprobe; }
  Status modprobe(const driver::DriverRoot&, const std::string& module) override {
    modprobes.push_back(module);
    if (module == failing_module) return fail(EIO, "modprobe " + module + " exited with status 1");
    return ok();
  }
  bool in_user_namespace() override { return userns; }

  std::map<std::string, struct stat> nodes;
  std::vector<std::string> mknods, modprobes;
  bool has_modprobe = true, userns = false;
  std::string failing_module;
};

}  // namespace nvct::ctk
