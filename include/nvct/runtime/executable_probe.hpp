// The filesystem questions the shim asks while looking up executables, behind an interface so
// that lookup rules are tested without touching the host's /usr/bin.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace nvct::runtime {

// Identity of a file (stat after following symlinks).
struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(const FileId&) const = default;
};

struct ExecutableInfo {
  FileId id;
  bool regular = false;     // a regular file (after following symlinks)
  bool executable = false;  // access(X_OK) succeeds
};

class ExecutableProbe {
 public:
  virtual ~ExecutableProbe() = default;
  // nullopt when the path does not exist (or cannot be stat'ed).
  virtual std::optional<ExecutableInfo> probe(const std::string& path) const = 0;
  // Identity of the running binary (/proc/self/exe); nullopt when it cannot be determined.
  virtual std::optional<FileId> self() const = 0;
};

// The real filesystem: stat(2) and access(2).
class SystemExecutableProbe : public ExecutableProbe {
 public:
  std::optional<ExecutableInfo> probe(const std::string& path) const override;
  std::optional<FileId> self() const override;
};

}  // namespace nvct::runtime
