/* nvct-mock-mksock PATH...: creates each PATH as a bound AF_UNIX socket file (the IPC sockets of
 * driver.md §4). Nothing listens on it; the toolkit only stats and bind-mounts these. Binds a
 * name relative to the socket's directory so long mock roots do not hit sun_path's limit. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int make_socket(const char *path) {
  char dir[4096];
  if ((size_t)snprintf(dir, sizeof dir, "%s", path) >= sizeof dir) return -1;
  char *slash = strrchr(dir, '/');
  const char *name = path;
  int dir_fd = AT_FDCWD;
  if (slash != NULL) {
    *slash = '\0';
    name = slash + 1;
    dir_fd = open(slash == dir ? "/" : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0) return -1;
  }
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  if (snprintf(addr.sun_path, sizeof addr.sun_path, "/proc/self/fd/%d/%s", dir_fd, name) >=
          (int)sizeof addr.sun_path ||
      dir_fd == AT_FDCWD) {
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", name);
  }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int rc = -1;
  if (fd >= 0) {
    unlinkat(dir_fd, name, 0);
    rc = bind(fd, (struct sockaddr *)&addr, sizeof addr);
    close(fd);
  }
  if (dir_fd != AT_FDCWD) close(dir_fd);
  return rc;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (make_socket(argv[i]) != 0) {
      fprintf(stderr, "nvct-mock-mksock: create socket %s: %s\n", argv[i], strerror(errno));
      return 1;
    }
  }
  return 0;
}
