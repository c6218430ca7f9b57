// Runs NVML in a child process (driver.md §11.1). The library comes from the driver root, so its
// constructors and NVML itself never run in the CLI's (privileged) process: the child chroots
// into the driver root when it can, drops to the NVML user, sets no_new_privs, dlopens the
// library by the path our own ld.so.cache lookup found (the loader's cache was mapped before the
// chroot, so a bare soname would be looked up in the host's cache), and reports back over a pipe.
#pragma once

#include <sys/types.h>

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "nvct/base/error.hpp"
#include "nvct/driver/nvml.hpp"

namespace nvct::driver {

struct NvmlUser {
  uid_t uid = 0;
  gid_t gid = 0;
};

struct NvmlProcessOptions {
  std::string root = "/";        // host path of the driver root
  std::string library;           // root-relative path of libnvidia-ml.so.1
  std::optional<NvmlUser> user;  // nullopt: keep the caller's ids
  int timeout_ms = 10000;        // the reference's RPC timeout
};

Result<NvmlFacts> query_nvml_in_child(const NvmlProcessOptions& options);

// Where query_nvml_in_child runs the query. Unset (the default), it forks this process. The
// statically linked runtime shim cannot dlopen the library in a fork of itself, so its main()
// installs nvml_helper_runner() (nvml_helper.hpp), which executes a dynamically linked helper.
// A process-wide choice made by the binary's linkage: set it once in main(), before any query;
// an empty runner restores forking.
using NvmlProcessRunner = std::function<Result<NvmlFacts>(const NvmlProcessOptions&)>;
void set_nvml_process_runner(NvmlProcessRunner runner);

// The isolation every driver-library query runs under, irreversibly: chroot into options.root
// (or, without CAP_SYS_CHROOT, the library's host path is returned), drop to options.user, clear
// every capability set, no_new_privs. Returns the path to dlopen.
Result<std::string> isolate_for_driver_library(const NvmlProcessOptions& options);

// The child's steps in the calling process, irreversibly: chroot into options.root (or the
// library's host path without CAP_SYS_CHROOT), drop to options.user, clear every capability set,
// no_new_privs, dlopen and query. For a process that exists only to do this: the forked child
// above and the nvidia-container-runtime-nvml helper (nvml_helper.hpp). timeout_ms is not used.
Result<NvmlFacts> query_nvml_here(const NvmlProcessOptions& options);

// JSON wire form between the child and the parent (exposed for tests).
std::string encode_nvml_result(const Result<NvmlFacts>& result);
Result<NvmlFacts> decode_nvml_result(std::string_view text);
// The same from the parsed reply object (the driver facts cache holds one inside its file).
Result<NvmlFacts> decode_nvml_reply(const nlohmann::json& reply);

// The reference's default NVML user: /proc/sys/kernel/overflowuid and overflowgid.
// Errors read "open failed: /proc/sys/kernel/overflowuid: permission denied".
Result<NvmlUser> default_nvml_user();

}  // namespace nvct::driver
