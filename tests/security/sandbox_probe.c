/* Stands in for ldconfig inside the sandbox (checklist #23/#24): records what the helper can
 * see and do into /probe.txt in the rootfs. Static, so it runs without the image's libc. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

extern char** environ;

int main(int argc, char** argv) {
  struct stat hang;
  if (stat("/hang", &hang) == 0) {
    /* Spins (sleep syscalls are not on the allow-list): the wall-clock deadline must kill it. */
    for (volatile unsigned long i = 0;; ++i) {
    }
  }
  char buf[4096];
  int len = 0;
  len += snprintf(buf + len, sizeof buf - len, "pid=%d uid=%d\n", (int)getpid(), (int)getuid());
  len += snprintf(buf + len, sizeof buf - len, "argc=%d", argc);
  for (int i = 0; i < argc && len < 3000; ++i)
    len += snprintf(buf + len, sizeof buf - len, " %s", argv[i]);
  int envc = 0;
  while (environ && environ[envc]) ++envc;
  len += snprintf(buf + len, sizeof buf - len, "\nenv=%d\nfds=", envc);
  for (int fd = 0; fd < 1024 && len < 3500; ++fd)
    if (fcntl(fd, F_GETFD) >= 0) len += snprintf(buf + len, sizeof buf - len, "%d,", fd);
  int s = socket(AF_INET, SOCK_STREAM, 0);
  len += snprintf(buf + len, sizeof buf - len, "\nsocket=%s\n", s >= 0 ? "ok" : strerror(errno));
  struct stat st;
  len += snprintf(buf + len, sizeof buf - len, "proc_self=%s\n",
                  stat("/proc/self", &st) == 0 ? "visible" : "hidden");
  int out = open("/probe.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0) return 3;
  if (write(out, buf, (size_t)len) != len) return 4;
  close(out);
  return 0;
}
