/* rss_probe OUTFILE PROGRAM ARGS...: runs PROGRAM in a forked child and writes the child's peak
 * RSS in KiB (wait4 ru_maxrss) to OUTFILE. The kernel keeps a process's peak across execve, and
 * a child spawned straight from a large benchmark (vfork/posix_spawn) starts with the
 * benchmark's memory counted; forked from this small static program, the peak is PROGRAM's own
 * (or that of what PROGRAM execs, such as the no-op runtime behind the shim). */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  pid_t pid = fork();
  if (pid < 0) return 2;
  if (pid == 0) {
    execv(argv[2], argv + 2);
    _exit(127);
  }
  int status = 0;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) != pid) return 2;
  FILE* out = fopen(argv[1], "w");
  if (!out) return 2;
  fprintf(out, "%ld\n", ru.ru_maxrss);
  fclose(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}
