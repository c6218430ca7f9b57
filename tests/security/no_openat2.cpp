// no_openat2 [--no-new-mount-api] PROGRAM [ARGS...]
// Runs PROGRAM with a seccomp filter that makes openat2 fail with ENOSYS (and, with the flag,
// open_tree/move_mount/mount_setattr/fsopen/fsconfig/fsmount/fspick too), the way an old kernel
// or a container's seccomp profile would. crun tests its fallbacks the same way.
#include <seccomp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <initializer_list>

int main(int argc, char** argv) {
  int first = 1;
  bool no_mount_api = false;
  if (argc > 1 && std::strcmp(argv[1], "--no-new-mount-api") == 0) {
    no_mount_api = true;
    first = 2;
  }
  if (first >= argc) {
    std::fprintf(stderr, "usage: no_openat2 [--no-new-mount-api] PROGRAM [ARGS...]\n");
    return 2;
  }
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) {
    std::fprintf(stderr, "no_openat2: seccomp_init failed\n");
    return 2;
  }
  int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0);
  if (no_mount_api) {
    for (int nr : {SCMP_SYS(open_tree), SCMP_SYS(move_mount), SCMP_SYS(mount_setattr),
                   SCMP_SYS(fsopen), SCMP_SYS(fsconfig), SCMP_SYS(fsmount), SCMP_SYS(fspick)})
      rc = rc ? rc : seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
  }
  if (rc == 0) rc = seccomp_load(ctx);
  seccomp_release(ctx);
  if (rc != 0) {
    std::fprintf(stderr, "no_openat2: installing the filter failed: %s\n", std::strerror(-rc));
    return 2;
  }
  ::execv(argv[first], argv + first);
  std::fprintf(stderr, "no_openat2: exec %s: %s\n", argv[first], std::strerror(errno));
  return 127;
}
