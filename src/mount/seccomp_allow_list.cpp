#include "nvct/mount/seccomp_allow_list.hpp"

#include <cerrno>

#include "nvct/base/sanitizer.hpp"

namespace nvct::mount {

scmp_filter_ctx seccomp_allow_list(std::span<const char* const> names) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(ENOSYS));
  if (!ctx) return nullptr;
  for (const char* name : names) {
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture
    if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0) != 0) {
      seccomp_release(ctx);
      return nullptr;
    }
  }
#if NVCT_ASAN_BUILD
  if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(sigaltstack), 0) != 0) {
    seccomp_release(ctx);
    return nullptr;
  }
#endif
  return ctx;
}

}  // namespace nvct::mount
