// The update-ldcache hook (spec/cdi.md §8): ld.so.conf.d drop-ins for the injected folders,
// written through in-root fds, then the host ldconfig run in the mount module's sandbox
// (mount.md §11.4: sealed memfd, new namespaces, pivot into the rootfs). CVE-2025-23267: an
// image whose /etc/ld.so.conf.d is a symlink to a host directory gets its drop-in inside the
// rootfs, never on the host.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/mount/in_root.hpp"

namespace nvct::cdi_hooks {

struct UpdateLdcacheOptions {
  std::vector<std::string> folders;              // --folder (repeatable), container paths
  std::string ldconfig_path = "/sbin/ldconfig";  // --ldconfig-path, a host path ('@' accepted)
  std::chrono::milliseconds timeout{30000};
};

// What the hook wrote, for logs and tests (in-root paths).
struct LdcacheResult {
  std::vector<std::string> written;  // drop-ins or the musl path file
  bool ran_ldconfig = false;
};

// Whether a folder is one of the loader's default directories: those go to the zz- drop-in so
// that the image's own ordering of user libraries is unchanged.
bool is_system_folder(const std::string& folder);

// The host ldconfig to run: '@' stripped, "<path>.real" preferred when it exists (Ubuntu's
// /sbin/ldconfig is a shell script that would run the image's /bin/sh). "" is an error.
Result<std::string> resolve_host_ldconfig(const std::string& path);

Result<LdcacheResult> update_ldcache(const mount::Root& rootfs,
                                     const UpdateLdcacheOptions& options);

}  // namespace nvct::cdi_hooks
