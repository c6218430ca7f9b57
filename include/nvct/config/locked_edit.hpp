// Read-modify-write of a host config file (spec/ctk.md §2): under flock(LOCK_EX) on a sidecar
// lock file (the target's inode changes at every rename, so it cannot carry the lock), with a check
// that nobody replaced the file behind our back, and an atomic replace that keeps mode and owner.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "nvct/base/error.hpp"

namespace nvct::config {

// "<dir>/.<name>.lock" next to the target.
std::string lock_path_for(const std::string& path);

// edit() gets the current contents (nullopt when the file does not exist) and returns the new ones.
Status edit_file_locked(
    const std::string& path,
    const std::function<Result<std::string>(const std::optional<std::string>&)>& edit);

}  // namespace nvct::config
