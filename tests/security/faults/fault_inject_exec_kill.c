/* fault_inject exec-kill: becomes the command with a killer armed against it (the comment at the
 * top of fault_inject.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fault_inject.h"

int exec_kill_main(int argc, char** argv) {
  if (argc < 3 || strcmp(argv[1], "--") != 0) usage("exec-kill MAX_US -- CMD...");
  uint64_t max_us = strtoull(argv[0], NULL, 0);
  rng_seed(now_us() ^ ((uint64_t)getpid() << 32));
  uint64_t delay = max_us ? rng_next() % (max_us + 1) : 0;
  int sync[2];
  if (pipe2(sync, O_CLOEXEC) != 0) die("pipe");
  pid_t self = getpid();
  pid_t killer = fork();
  if (killer < 0) die("fork");
  if (killer == 0) {
    int pidfd = (int)syscall(SYS_pidfd_open, self, 0);
    ssize_t ignored = write(sync[1], pidfd >= 0 ? "k" : "e", 1);
    (void)ignored;
    int nul = open("/dev/null", O_RDWR);
    dup2(nul, 0);
    dup2(nul, 1);
    dup2(nul, 2);
    for (int fd = 3; fd < 1024; ++fd)
      if (fd != pidfd) close(fd);
    if (pidfd < 0) _exit(1);
    sleep_us(delay);
    syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
    _exit(0);
  }
  close(sync[1]);
  char c = 0;
  while (read(sync[0], &c, 1) < 0 && errno == EINTR) {
  }
  if (c != 'k') usage("pidfd_open failed in the killer");
  close(sync[0]);
  execv(argv[2], argv + 2);
  die(argv[2]);
  return 127;
}
