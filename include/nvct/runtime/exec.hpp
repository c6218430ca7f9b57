// Handing over to the low-level runtime: execve, never fork (spec/runtime.md §13). The PID,
// signals, exit code, stdio, cwd (--pid-file is relative to it) and inherited fds
// (--preserve-fds, LISTEN_FDS, conmon's _OCI_SYNCPIPE) stay exactly as the caller set them.
#pragma once

#include <string>
#include <vector>

#include "nvct/base/error.hpp"

namespace nvct::runtime {

// [runtime] + argv[1:]: argv[0] replaced by the runtime's absolute path.
std::vector<std::string> runtime_argv(const std::string& runtime, int argc,
                                      const char* const* argv);

// execve(runtime, argv, environ). Returns only on failure.
Status exec_runtime(const std::string& runtime, const std::vector<std::string>& argv);

}  // namespace nvct::runtime
