/* nvct-run-timed OUTFILE PROGRAM ARGS...: forks and execs PROGRAM (stdio inherited), reaps it
 * with wait4 and writes "<wall microseconds> <peak RSS KiB>" to OUTFILE; exits with the child's
 * status. Static, so that its own start-up is outside the interval and nothing is loaded. The
 * RSS is the largest of the process image's peaks across execve (the kernel keeps the maximum),
 * i.e. the peak of the program and of anything it execs without forking. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: nvct-run-timed OUTFILE PROGRAM [ARGS...]\n");
    return 2;
  }
  long long t0 = now_us();
  pid_t pid = fork();
  if (pid < 0) return 125;
  if (pid == 0) {
    execv(argv[2], argv + 2);
    _exit(127);
  }
  int status = 0;
  struct rusage ru;
  while (wait4(pid, &status, 0, &ru) < 0) {
  }
  long long t1 = now_us();
  FILE* out = fopen(argv[1], "w");
  if (!out) return 125;
  fprintf(out, "%lld %ld\n", t1 - t0, ru.ru_maxrss);
  fclose(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
