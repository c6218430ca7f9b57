// The operating-system calls of `nvidia-ctk system ...` (spec/ctk.md §8), behind an interface so
// that the commands' logic is unit-tested with a fake; the real kernel is exercised by
// tests/e2e/e2e_ctk_system.sh on a mock driver root.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <string>

#include "nvct/base/error.hpp"
#include "nvct/driver/driver_root.hpp"

namespace nvct::ctk {

class SystemOps {
 public:
  virtual ~SystemOps() = default;
  // stat() of a root-relative path, symlinks resolved inside the root.
  virtual Result<struct stat> stat(const driver::DriverRoot& root, const std::string& path) = 0;
  // Creates the character device <root><path> with the given mode (missing parent directories
  // are created); an existing node of the same number is kept, anything else in the way is an
  // error.
  virtual Status mknod_char(const driver::DriverRoot& root, const std::string& path,
                            unsigned major, unsigned minor, mode_t mode) = 0;
  // Whether <root>/sbin/modprobe exists and is executable.
  virtual bool modprobe_available(const driver::DriverRoot& root) = 0;
  // Runs /sbin/modprobe <module> chrooted into the root, with a fixed environment.
  virtual Status modprobe(const driver::DriverRoot& root, const std::string& module) = 0;
  // Inside a user namespace no module can be loaded (driver.md §7).
  virtual bool in_user_namespace() = 0;
};

class RealSystemOps final : public SystemOps {
 public:
  Result<struct stat> stat(const driver::DriverRoot& root, const std::string& path) override;
  Status mknod_char(const driver::DriverRoot& root, const std::string& path, unsigned major,
                    unsigned minor, mode_t mode) override;
  bool modprobe_available(const driver::DriverRoot& root) override;
  Status modprobe(const driver::DriverRoot& root, const std::string& module) override;
  bool in_user_namespace() override;
};

}  // namespace nvct::ctk
