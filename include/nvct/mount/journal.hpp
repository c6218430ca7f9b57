// The rollback journal: everything one run changed in a rootfs (mounts, files, dirs, links),
// undone in reverse order on failure (mount.md §13.3 "nvct rollback rules"). Only objects this
// run created are removed, each checked by (dev, ino) through its parent fd; never a recursive
// or path-based delete.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/base/unique_fd.hpp"

namespace nvct::mount {

class Journal {
 public:
  enum class Kind { kMount, kFile, kDirectory, kSymlink };
  struct Entry {
    Kind kind;
    unique_fd fd;      // mount: the mount's root (O_PATH); others: the parent directory
    std::string name;  // created entry name in the parent; for mounts, a description
    dev_t dev = 0;
    ino_t ino = 0;
  };

  Journal() = default;
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  Journal(Journal&&) = default;
  Journal& operator=(Journal&&) = default;

  // Records a created entry `name` in directory `parent_fd` (the fd is duplicated).
  Status record_created(Kind kind, int parent_fd, const std::string& name);
  // Records a mount whose root is `mount_root_fd` (duplicated).
  Status record_mount(int mount_root_fd, const std::string& description);
  // The same, keeping `mount_root` itself (no dup); returns its descriptor, which stays open
  // until commit() or rollback().
  int adopt_mount(unique_fd mount_root, const std::string& description);

  // Undoes every entry, newest first. Keeps going past errors and reports the first one.
  Status rollback();
  // Forgets every entry (the run succeeded).
  void commit() { entries_.clear(); }

  std::size_t size() const { return entries_.size(); }
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

}  // namespace nvct::mount
