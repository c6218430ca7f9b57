/* Fault injection for the issue 18 "Faults" tests (tests/security/faults/README.md).
 *
 *   fault_inject kill [options] -- CMD ARGS...
 *     SIGKILLs CMD at random moments spread over its whole lifetime and checks after every kill
 *     that TARGET is byte-identical to the old or the new complete version. Options:
 *       --kind NAME       label for the report
 *       --runs N          number of kills (default 200)
 *       --target PATH     the file CMD writes
 *       --old PATH        its content before each run ("-": the target does not exist)
 *       --new PATH        written here: the complete result of an unkilled run (calibration)
 *       --temp PREFIX     names of CMD's temporary files in the target's directory (up to 4)
 *       --lock SUFFIX     a name with PREFIX and this suffix is a lock file, not a temp file
 *       --container ROOTFS  each run gets a fresh stand-in container: a process in a private
 *                         mount namespace with ROOTFS bind-mounted onto itself, a procfs on
 *                         ROOTFS/proc and a tmpfs on ROOTFS/proc/driver, as runc leaves it at
 *                         prestart; "{PID}" in CMD's arguments and stdin becomes its pid
 *       --stdin FILE      CMD's stdin ("{PID}" substituted)
 *       --log FILE        CMD's stdout and stderr of the unkilled runs
 *       --preload LIB     LD_PRELOAD for CMD (slow_write.c: stretches the write itself)
 *       --calibrate K     unkilled runs that measure the lifetime and check determinism (5)
 *       --warmup W        unkilled runs first, whose result is ignored: a writer that leaves
 *                         lasting state beside its file (the links configure creates in a
 *                         rootfs) converges before the old/new versions are taken (0)
 *       --seed S          random seed (default: time and pid; printed)
 *       --min-mid M       fail unless at least M kills landed mid-write (default 1)
 *     The calibration also watches the directory (inotify) for when the temp file appears and
 *     is renamed. Even kills come after a delay uniform in [0, 1.25 x the median lifetime];
 *     odd ones after a delay uniform in [0, max(1.25 x the temp file's life, 400 us)] counted from
 *     the moment the temp file appears (inotify; delays under 5 ms busy-wait), so the write
 *     itself is hit often (with slow_write.c stretching it on a loaded machine). Every kill is
 *     classified by what the directory held right after the SIGKILL was sent:
 *       before  no temp file of this run yet, target old
 *       mid     a temp file of this run present (between its creation and the rename)
 *       after   no temp file, target already new (after the rename, before exit)
 *       done    the run ended by itself before the kill (must exit 0, target new)
 *     Anything else is a violation (the bad file is kept as NEW.violation.N). Orphaned
 *     helpers of CMD (this process is a child subreaper) are waited for before the check. A
 *     last unkilled run must then leave the target's directory as the calibration left it: the
 *     stale temp and lock files of killed runs removed.
 *
 *   fault_inject exec-kill MAX_US -- CMD ARGS...
 *     Becomes CMD (same pid, for runc's hooks) after forking a killer that SIGKILLs it through a
 *     pidfd (no pid reuse) after a random delay in [0, MAX_US] microseconds.
 *
 *   fault_inject storm [--period-us P] -- CMD ARGS...
 *     Runs CMD under a SIGSTOP/SIGCONT storm (one pair every P us, default 200) and exits with
 *     its status; prints how many pairs were sent.
 */
/* main() picks the mode; each lives in fault_inject_<mode>.c (kill, exec_kill, storm) and
 * shares the helpers below through fault_inject.h. */
#define _GNU_SOURCE
#include "fault_inject.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void die(const char* what) {
  fprintf(stderr, "fault_inject: %s: %s\n", what, strerror(errno));
  exit(2);
}

void usage(const char* what) {
  fprintf(stderr, "fault_inject: %s (see the comment at the top of fault_inject.c)\n", what);
  exit(2);
}

uint64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void sleep_us(uint64_t us) {
  struct timespec ts = {(time_t)(us / 1000000u), (long)(us % 1000000u) * 1000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static uint64_t rng_state;
void rng_seed(uint64_t seed) { rng_state = seed; }
uint64_t rng_next(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int main(int argc, char** argv) {
  if (argc < 2) usage("missing mode (kill, exec-kill, storm)");
  if (!strcmp(argv[1], "kill")) return kill_main(argc - 2, argv + 2);
  if (!strcmp(argv[1], "exec-kill")) return exec_kill_main(argc - 2, argv + 2);
  if (!strcmp(argv[1], "storm")) return storm_main(argc - 2, argv + 2);
  usage("unknown mode");
  return 2;
}
