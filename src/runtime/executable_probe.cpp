#include "nvct/runtime/executable_probe.hpp"

#include <sys/stat.h>
#include <unistd.h>

namespace nvct::runtime {

std::optional<ExecutableInfo> SystemExecutableProbe::probe(const std::string& path) const {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  ExecutableInfo info;
  info.id = FileId{st.st_dev, st.st_ino};
  info.regular = S_ISREG(st.st_mode);
  // access() rather than mode bits: it answers for this process's credentials (root included,
  // where any x bit is enough).
  info.executable = info.regular && ::access(path.c_str(), X_OK) == 0;
  return info;
}

std::optional<FileId> SystemExecutableProbe::self() const {
  struct stat st {};
  if (::stat("/proc/self/exe", &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

}  // namespace nvct::runtime
