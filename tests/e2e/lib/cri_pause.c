/* The sandbox ("pause") image's program for the CRI tests (built static): its process name is
 * "pause", as upstream's, so a container sharing the pod's PID namespace sees no other known
 * name at PID 1 (critest runs `pgrep sleep` there). Waits for SIGTERM/SIGINT, then exits 0. */
#include <signal.h>
#include <unistd.h>

static void stop(int sig) {
  (void)sig;
  _exit(0);
}

int main(void) {
  signal(SIGTERM, stop);
  signal(SIGINT, stop);
  for (;;) pause();
}
