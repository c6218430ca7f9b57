// Opening a log file to append to, for the shim's and the hook's debug logs and runc's --log
// (security.md §9 row 41). A log path comes from a config file or an engine's argv and is often
// in a directory others can write to (/tmp, /var/log of a badly set-up host), so whatever is found
// there is distrusted: it must be a regular file we may append to without hurting anyone.
#pragma once

#include <string>

#include "nvct/base/error.hpp"
#include "nvct/base/unique_fd.hpp"

namespace nvct {

// Opens `path` O_WRONLY|O_APPEND|O_CREAT|O_CLOEXEC|O_NOFOLLOW|O_NOCTTY|O_NONBLOCK, mode 0644, and
// refuses (EINVAL, ELOOP or EMLINK, the message naming the path, what it is and the fix):
//   - a symbolic link (never followed: a planted link would redirect root's appends);
//   - anything but a regular file (a FIFO would block the open or the writes, a device would
//     run its driver): an existing object is lstat()ed before it is opened, and the opened fd is
//     checked again;
//   - a file with more than one hard link (another name for it may be a host file);
//   - in a directory that others may write to (mode o+w, e.g. a sticky /tmp), a file owned by
//     another user (what fs.protected_regular refuses: it may have been planted).
// O_NONBLOCK is cleared once the fd is known to be a regular file.
Result<unique_fd> open_log_file_for_append(const std::string& path);

}  // namespace nvct
