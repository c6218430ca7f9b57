#include "nvct/driver/proc_devices.hpp"

#include <cerrno>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::driver {

namespace {
constexpr std::size_t kMaxProcDevices = 64 * 1024;
}

Result<std::string> read_proc_devices(const DriverRoot& root) {
  auto text = root.read(kProcDevices, kMaxProcDevices);
  if (text || root.path() == "/" || text.error().code() != ENOENT) return text;
  log::debug("no {} under {}: reading the host's", kProcDevices, root.path());
  return read_file(std::string(kProcDevices), kMaxProcDevices);
}

}  // namespace nvct::driver
