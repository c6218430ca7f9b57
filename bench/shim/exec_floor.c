/* exec_floor RUNTIME ARGS...: a static program that only execs RUNTIME with ARGS. What it adds
 * to a call is the cost of one more execve of a static binary on this machine: the floor under
 * any exec-based shim (the Go reference's included). */
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  execv(argv[1], argv + 1);
  return 127;
}
