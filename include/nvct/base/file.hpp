// Whole-file reads and atomic file replacement for host files (config.json, daemon.json, ...).
// Paths inside a container rootfs are never handled here: see mount/ for in-root resolution.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "nvct/base/error.hpp"

namespace nvct {

inline constexpr std::size_t kDefaultMaxFileSize = 16u << 20;

// Reads a whole file. Fails with EFBIG when it is larger than max_size.
Result<std::string> read_file(const std::string& path, std::size_t max_size = kDefaultMaxFileSize);
// Reads from an fd until EOF (pipes, stdin). Fails with EFBIG past max_size.
Result<std::string> read_fd(int fd, std::size_t max_size = kDefaultMaxFileSize);
// Reads a file relative to a directory fd (O_NOFOLLOW on the last component).
Result<std::string> read_file_at(int dirfd, const std::string& name,
                                 std::size_t max_size = kDefaultMaxFileSize);

struct AtomicWriteOptions {
  // Mode of a new file. An existing file keeps its mode and owner regardless.
  mode_t default_mode = 0644;
};

// Replaces dir/name atomically: a temp file ".<name>.XXXXXX" in the same directory (O_EXCL),
// full write, fsync, renameat over the target, fsync of the directory. An existing target's
// mode and owner are kept. On any error the temp file is removed and the target is untouched.
Status write_file_atomic_at(int dirfd, const std::string& name, std::string_view content,
                            AtomicWriteOptions options = {});
// Same for a path: the directory is opened and the basename replaced.
Status write_file_atomic(const std::string& path, std::string_view content,
                         AtomicWriteOptions options = {});

// Writes all bytes, retrying on EINTR and short writes.
Status write_all(int fd, std::string_view data);

}  // namespace nvct
