// Files a process removes if SIGINT, SIGTERM, SIGHUP or SIGQUIT stops it while they exist: the
// sidecar lock of a host file edit and the temporary file of an atomic replace (issue 14: no
// .lock or temporary file is left behind on success, failure or a signal). SIGKILL cannot be
// caught; those leftovers are the hardening issue's.
//
// The handler is installed at registration for the signals whose disposition is the default (an
// ignored or otherwise handled signal is left alone). It unlinks every registered
// file (async-signal-safe: a fixed table, unlinkat), restores the default disposition and raises
// the signal again, so the exit status still says which signal ended the process.
#pragma once

#include <string>

namespace nvct {

// Registered while alive; a path too long for the table, or a full table, is simply not
// registered (the file is then only removed by the normal paths).
class CleanupOnSignal {
 public:
  CleanupOnSignal() = default;
  // `name` relative to `dirfd` (AT_FDCWD: relative to the cwd, or absolute). The fd must stay
  // open while registered.
  CleanupOnSignal(int dirfd, const std::string& name);
  ~CleanupOnSignal();
  CleanupOnSignal(CleanupOnSignal&& other) noexcept;
  CleanupOnSignal& operator=(CleanupOnSignal&& other) noexcept;
  CleanupOnSignal(const CleanupOnSignal&) = delete;
  CleanupOnSignal& operator=(const CleanupOnSignal&) = delete;

  bool registered() const { return slot_ >= 0; }
  void release();  // forget the file (it was renamed or deleted by the normal path)

 private:
  int slot_ = -1;
};

}  // namespace nvct
