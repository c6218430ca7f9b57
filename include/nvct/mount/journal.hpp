// The rollback journal: everything one run changed in a rootfs (mounts, files, dirs, links),
// undone in reverse order on failure (mount.md §13.3 "nvct rollback rules"). Only objects this
// run created are removed, each checked by (dev, ino) through its parent fd; never a recursive
// or path-based delete.
//
// It also remembers the directories one run opened in the rootfs (mkdir_all_in_root's answer
// for a path, and the mount each is on), so that the next mount into the same directory does not
// resolve and check it again. Any directory mounted on, and any rollback, forgets them all: a
// directory mount can hide or replace what a remembered path leads to. File mounts cannot.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
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
  // Records a mount whose root is `mount_root_fd` (duplicated). A directory mount forgets the
  // remembered directories.
  Status record_mount(int mount_root_fd, const std::string& description);
  // The same, keeping `mount_root` itself (no dup); returns its descriptor, which stays open
  // until commit() or rollback(). The caller says whether it mounted a directory.
  int adopt_mount(unique_fd mount_root, const std::string& description, bool directory);

  // Undoes every entry, newest first. Keeps going past errors and reports the first one.
  Status rollback();
  // Forgets every entry (the run succeeded).
  void commit() {
    entries_.clear();
    forget_dirs();
  }

  // The directory opened for `path` earlier in this run (mkdir_all_in_root), or -1.
  int known_dir(const std::string& path) const;
  // Remembers `fd` (duplicated) as the directory for `path`.
  Status remember_dir(const std::string& path, int fd);
  // The mount a directory at in-root path `in_root` was found on: its id and whether it is
  // private (the propagation check before mounting into it).
  struct DirMount {
    std::uint64_t mount_id = 0;
    bool is_private = false;
  };
  std::optional<DirMount> known_dir_mount(const std::string& in_root) const;
  void remember_dir_mount(const std::string& in_root, DirMount m) { dir_mounts_[in_root] = m; }
  void forget_dirs() {
    dirs_.clear();
    dir_mounts_.clear();
  }

  std::size_t size() const { return entries_.size(); }
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  void forget_dirs_if_directory(int fd);
  std::vector<Entry> entries_;
  std::map<std::string, unique_fd> dirs_;
  std::map<std::string, DirMount> dir_mounts_;
};

}  // namespace nvct::mount
