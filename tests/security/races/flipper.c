/* flipper A B [PAUSE_US]: swaps the names A and B with renameat2(RENAME_EXCHANGE) in a loop
 * (pausing PAUSE_US microseconds after each swap, default 0: a tight loop) until SIGTERM/SIGINT,
 * then prints the number of swaps done (spec/security.md checklist #6/#8: a
 * sibling container flipping a shared directory between a real directory and a symlink out of
 * the rootfs while the hooks run). A and B must both exist; the pair is left as it was found
 * (an even number of swaps), so the caller can inspect the rootfs afterwards. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static volatile sig_atomic_t stop;
static void on_signal(int sig) {
  (void)sig;
  stop = 1;
}

static int swap(const char* a, const char* b) {
  return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
}

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: flipper A B [PAUSE_US]\n");
    return 2;
  }
  long pause_us = argc == 4 ? strtol(argv[3], NULL, 10) : 0;
  struct timespec pause = {pause_us / 1000000, (pause_us % 1000000) * 1000};
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  unsigned long swaps = 0;
  while (!stop) {
    if (swap(argv[1], argv[2]) != 0) {
      fprintf(stderr, "flipper: renameat2(%s, %s, RENAME_EXCHANGE): %s\n", argv[1], argv[2],
              strerror(errno));
      return 1;
    }
    ++swaps;
    if (pause_us > 0) nanosleep(&pause, NULL);
  }
  if (swaps % 2 == 1 && swap(argv[1], argv[2]) == 0) ++swaps;
  printf("%lu\n", swaps);
  return 0;
}
