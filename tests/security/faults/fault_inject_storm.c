/* fault_inject storm: runs the command under a SIGSTOP/SIGCONT storm (the comment at the top of
 * fault_inject.c). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault_inject.h"

int storm_main(int argc, char** argv) {
  uint64_t period = 200;
  int i = 0;
  for (; i < argc && strcmp(argv[i], "--") != 0; ++i)
    if (!strcmp(argv[i], "--period-us") && i + 1 < argc) period = strtoull(argv[++i], NULL, 0);
  if (i + 1 >= argc) usage("storm [--period-us P] -- CMD...");
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    execv(argv[i + 1], argv + i + 1);
    _exit(127);
  }
  unsigned long pairs = 0;
  int st = 0;
  for (;;) {
    pid_t p = waitpid(pid, &st, WNOHANG);
    if (p == pid) break;
    if (kill(pid, SIGSTOP) == 0) {
      sleep_us(period / 4 + 1);
      kill(pid, SIGCONT);
      ++pairs;
    }
    sleep_us(period);
  }
  fprintf(stderr, "storm: %lu SIGSTOP/SIGCONT pairs\n", pairs);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return WEXITSTATUS(st);
}
