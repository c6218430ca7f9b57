/* The ldconfig stand-in of the exec-site tests (spec/security.md checklist #20, #23, #24).
 * Static, so it runs in any rootfs. By the name it is run as / its arguments:
 *   sh ...           the image's hostile /bin/sh: leaves /sh-ran in the rootfs and fails
 *   --seals PATH     (on the host) prints the memfd seals of PATH as "write grow shrink seal"
 *   anything else    ldconfig: when /probe-fifo exists in its root it opens it (fd 3) and
 *                    blocks reading it until a byte arrives (the test inspects the running
 *                    child meanwhile, or kills the hook), then writes /etc/ld.so.cache and
 *                    exits 0. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef F_GET_SEALS
#define F_GET_SEALS 1034
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#define F_SEAL_WRITE 0x0008
#endif

int main(int argc, char** argv) {
  const char* base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  if (strcmp(base, "sh") == 0) {
    int fd = open("/sh-ran", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) close(fd);
    return 66;
  }
  if (argc == 3 && strcmp(argv[1], "--seals") == 0) {
    int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      perror(argv[2]);
      return 1;
    }
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0) {
      perror("F_GET_SEALS");
      return 1;
    }
    printf("%s%s%s%s\n", seals & F_SEAL_WRITE ? "write " : "", seals & F_SEAL_GROW ? "grow " : "",
           seals & F_SEAL_SHRINK ? "shrink " : "", seals & F_SEAL_SEAL ? "seal" : "");
    return 0;
  }
  if (access("/probe-fifo", F_OK) == 0) {
    /* O_RDWR: the open returns at once (fd 3 is visible to the test), the read blocks. */
    int fd = open("/probe-fifo", O_RDWR);
    char c;
    if (fd >= 0) {
      ssize_t ignored = read(fd, &c, 1);
      (void)ignored;
    }
  }
  int out = open("/etc/ld.so.cache", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0) return 3;
  close(out);
  return 0;
}
