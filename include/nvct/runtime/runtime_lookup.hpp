// Finding the low-level OCI runtime (runc, crun) the shim execs (spec/runtime.md §13).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/runtime/executable_probe.hpp"

namespace nvct::runtime {

// Directories searched for a bare name: the entries of $PATH (empty entries skipped), then
// /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin, each directory once.
std::vector<std::string> search_dirs(std::string_view path_env);

// The first executable regular file named `name` in `dirs`; an absolute name is checked as is.
// Candidates whose identity equals `probe.self()` are skipped (the shim must never exec itself).
// Returns "" when nothing matches.
std::string find_executable(std::string_view name, const std::vector<std::string>& dirs,
                            const ExecutableProbe& probe);

// Tries each candidate in order (config nvidia-container-runtime.runtimes) and returns the
// absolute path of the first one found. Errors: "at least one runtime candidate must be
// specified", "no runtime binary found from candidate list: [runc crun]" (with the reason a
// candidate that exists was refused).
Result<std::string> find_runtime(const std::vector<std::string>& candidates,
                                 std::string_view path_env, const ExecutableProbe& probe);

}  // namespace nvct::runtime
