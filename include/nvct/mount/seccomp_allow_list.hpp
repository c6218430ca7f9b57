// The seccomp allow-lists of the two sandboxes that touch the container's files from the hook's
// side: the native ld.so.cache writer's scan (ldcache_sandbox.cpp) and the exec of the host's
// ldconfig (ldconfig_sandbox.cpp). Every syscall not listed fails with ENOSYS, so glibc falls back
// where it can (statx -> fstatat) and anything else fails cleanly instead of killing the child.
#pragma once

#include <seccomp.h>

#include <span>

namespace nvct::mount {

// A filter allowing exactly `names` (a name this architecture lacks is skipped), plus
// sigaltstack in AddressSanitizer builds only (ASan reads the alternate signal stack before every
// noreturn call, _exit included, and aborts when it cannot). nullptr when libseccomp fails; the
// caller owns the result (seccomp_release).
scmp_filter_ctx seccomp_allow_list(std::span<const char* const> names);

}  // namespace nvct::mount
