// Read-modify-write of a host configuration file (daemon.json, containerd and CRI-O TOML, hooks.d
// JSON) under the rules of spec/ctk.md §2: a sidecar lock file, a check for foreign edits, an
// atomic replace that keeps mode and owner, symlinks written through, an optional backup.
#pragma once

#include <fcntl.h>
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "nvct/base/error.hpp"
#include "nvct/base/signal_cleanup.hpp"
#include "nvct/base/unique_fd.hpp"

namespace nvct::ctk {

// The file a path names once symlinks on its last component are followed (relative link targets
// resolve against the link's directory). A dangling link gives the path it points to, so the edit
// creates that file and keeps the link (spec/README.md decision table). Loops are errors.
Result<std::string> resolve_host_file(const std::string& path);

// An exclusive flock on "<dir>/.<name>.lock". The lock file is never the target itself: the
// rename of an atomic replace would swap the inode under the lock. The holder deletes the lock
// file when it lets go, so no command leaves one behind (a SIGKILLed holder's is reused and
// deleted by the next one); a waiter that wins the flock of a file that was deleted meanwhile
// (its inode is no longer the one at the path) starts over with the file now there. A holder
// stopped by SIGINT, SIGTERM, SIGHUP or SIGQUIT deletes it too (base/signal_cleanup.hpp).
class HostFileLock {
 public:
  // Creates the parent directory (0755) if needed. Waits up to `timeout` for another holder.
  static Result<HostFileLock> acquire(const std::string& target,
                                      std::chrono::milliseconds timeout = std::chrono::seconds(30));
  HostFileLock(HostFileLock&& other) noexcept = default;
  HostFileLock& operator=(HostFileLock&&) = delete;
  HostFileLock(const HostFileLock&) = delete;
  HostFileLock& operator=(const HostFileLock&) = delete;
  ~HostFileLock();

 private:
  HostFileLock(unique_fd fd, std::string path)
      : fd_(std::move(fd)), path_(std::move(path)), on_signal_(AT_FDCWD, path_) {}
  unique_fd fd_;
  std::string path_;
  CleanupOnSignal on_signal_;  // SIGINT/SIGTERM/SIGHUP/SIGQUIT while held: the file goes too
};

// What a file looked like when it was read; a replace refuses if it changed since.
struct HostFileStamp {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  timespec mtime{};
  bool operator==(const HostFileStamp& o) const;
};

struct HostFileContent {
  std::optional<std::string> text;  // nullopt: the file does not exist
  HostFileStamp stamp;
};

// Reads a (resolved) host file; a missing file is not an error, a directory is.
Result<HostFileContent> read_host_file(const std::string& path);

struct ReplaceOptions {
  bool backup = false;  // copy the old content to "<path>.bak" first
};

// Atomically replaces `path` (already resolved) with `text` after checking that it still matches
// `read_stamp`. Never deletes the file, whatever the content.
Status replace_host_file(const std::string& path, std::string_view text,
                         const HostFileStamp& read_stamp, ReplaceOptions options = {});

// Deletes `path` (already resolved) after checking that it still matches `read_stamp`; with
// `backup` its content is kept in "<path>.bak" first. The directory is fsynced so that the
// deletion survives a crash. Used by `runtime configure --remove` for drop-ins and hook files.
Status remove_host_file(const std::string& path, const HostFileStamp& read_stamp,
                        ReplaceOptions options = {});

// A host file opened for a read-modify-write by `runtime configure` (and --remove): resolved
// through symlinks, locked unless it is only read (dry run), and read.
struct HostFileEdit {
  std::string path;      // as given, for messages
  std::string resolved;  // the file actually written or deleted
  std::optional<HostFileLock> lock;
  HostFileContent content;
};
Result<HostFileEdit> open_host_file_edit(const std::string& path, bool lock);
// Replaces the file of `edit` with `text` and logs "Wrote updated config to <path>".
Status write_host_file_edit(const HostFileEdit& edit, std::string_view text,
                            ReplaceOptions options = {});
// Deletes the file of `edit` and logs "Removed <path>". The sidecar lock file goes too: a file
// that no longer exists should leave nothing behind in a drop-in directory. A waiter that still
// holds the old lock inode is safe: its replace refuses when the file changed under it.
Status remove_host_file_edit(const HostFileEdit& edit, ReplaceOptions options = {});

// The whole read-modify-write of one host file: symlinks on the path resolved (the link is kept and
// its target edited), the lock taken, the current text (nullopt when missing) given to `edit`, and
// its result written atomically unless the file changed meanwhile. An error from `edit` leaves the
// file untouched. Used by `runtime configure` and `config --in-place`.
using HostFileEditor = std::function<Result<std::string>(const std::optional<std::string>&)>;
Status edit_host_file(const std::string& path, const HostFileEditor& edit,
                      ReplaceOptions options = {});

}  // namespace nvct::ctk
