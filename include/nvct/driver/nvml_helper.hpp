// NVML through the nvidia-container-runtime-nvml helper executable. The runtime shim is linked
// statically, and a static binary cannot reliably dlopen a glibc shared library (static dlopen
// needs the very glibc it was built with, as libc.so.6, at run time; a driver root without one
// fails). So the shim does not run query_nvml_in_child's child itself: it fork+execve's this small
// dynamically linked helper, which runs the same steps (query_nvml_here) and prints the same JSON
// reply (encode_nvml_result) on stdout.
//
// The helper is found by absolute path, never through PATH: the directory of /proc/self/exe
// first (the shim's own directory, where it is installed and where the build puts it), then the
// install bindir given at build time, then /usr/bin and /usr/local/bin. A candidate is used only
// when it is a regular file, executable, owned by root or by the caller's euid, and writable by
// neither group nor others, since it starts with the caller's privileges.
//
// It runs with an empty environment, stdin on /dev/null, no inherited fd but stdout and stderr
// pipes, PR_SET_PDEATHSIG and a deadline after which it is killed.
//
// Helper command line:  nvidia-container-runtime-nvml [--query nvml|cuda] --root <host path>
//                         --library <path in root> [--user <uid>:<gid>]
// --query cuda (the runtime's csv mode) loads libcuda instead of NVML and replies with
// encode_cuda_result (cuda_driver_query.hpp); the default is nvml.
// Exit codes: 0 facts written; 1 the NVML query failed (an error reply is written); 2 usage or
// internal error (message on stderr, nothing on stdout); 3 stdout could not be written.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/base/program_path.hpp"
#include "nvct/driver/cuda_driver_query.hpp"
#include "nvct/driver/nvml_process.hpp"

namespace nvct::driver {

inline constexpr std::string_view kNvmlHelperName = "nvidia-container-runtime-nvml";

enum NvmlHelperExit : int {
  kNvmlHelperOk = 0,
  kNvmlHelperQueryFailed = 1,
  kNvmlHelperUsage = 2,
  kNvmlHelperWriteFailed = 3,
};

// argv for the helper at `helper` (argv[0] is the absolute path). timeout_ms is not passed: the
// caller enforces it.
std::vector<std::string> nvml_helper_argv(const std::string& helper,
                                          const NvmlProcessOptions& options);

// The helper's side: its arguments after argv[0]. Every option once; --root and --library are
// required and absolute; --user is "<uid>:<gid>" in decimal.
Result<NvmlProcessOptions> parse_nvml_helper_args(const std::vector<std::string>& args);

enum class HelperQuery { kNvml, kCuda };

struct HelperRequest {
  HelperQuery query = HelperQuery::kNvml;
  NvmlProcessOptions options;
};

// nvml_helper_argv with "--query cuda" after argv[0].
std::vector<std::string> cuda_helper_argv(const std::string& helper,
                                          const NvmlProcessOptions& options);

// The helper's side with the query: "--query nvml|cuda" at most once (default nvml), the rest as
// parse_nvml_helper_args.
Result<HelperRequest> parse_helper_request(const std::vector<std::string>& args);

// `self_dir` (the directory of /proc/self/exe unless the caller already has it), then
// `helper_dir`, the helper's install directory as configured at build time (the shim passes
// install_helper_dir(), libexecdir/nvct); without duplicates or relative entries.
std::vector<std::string> nvml_helper_search_dirs(const std::string& helper_dir,
                                                 const std::string& self_dir = self_exe_dir());

// The first acceptable kNvmlHelperName in `dirs`. The error lists every directory tried and why
// each candidate was refused.
Result<std::string> find_nvml_helper(const std::vector<std::string>& dirs);

// Runs the helper at `helper` (absolute path) for `options` and decodes its reply. Errors:
// ETIMEDOUT past options.timeout_ms (the helper is killed), EIO when it exits without a reply
// (its exit status and the start of its stderr are in the message), EPROTO for a malformed reply,
// or the NVML error it reported.
Result<NvmlFacts> query_nvml_through_helper(const std::string& helper,
                                            const NvmlProcessOptions& options);

// query_nvml_through_helper's protocol for `--query cuda`: libcuda's version and device 0's compute
// capability, or the error the helper reported (EIO) or the failure to run it.
Result<CudaDriverFacts> query_cuda_through_helper(const std::string& helper,
                                                  const NvmlProcessOptions& options);

// The runner the static shim installs with set_nvml_process_runner(): finds the helper in
// `search_dirs` at each query and runs it with the query's options (timeout included). A missing
// or refused helper is an error like any NVML failure, so initialize_driver falls back to
// /proc/driver/nvidia with a warning that names the reason.
NvmlProcessRunner nvml_helper_runner(std::vector<std::string> search_dirs);

}  // namespace nvct::driver
