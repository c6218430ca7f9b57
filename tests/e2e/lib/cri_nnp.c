/* The critest nonewprivs image's program (built static by e2e_cri_critest.sh and installed
 * setuid root): prints its effective uid, which stays the caller's under no_new_privs. */
#include <stdio.h>
#include <unistd.h>

int main(void) {
  printf("Effective uid: %d\n", (int)geteuid());
  return 0;
}
