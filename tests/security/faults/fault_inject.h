/* What the three modes of fault_inject share (the modes are described at the top of
 * fault_inject.c): error exits, the monotonic clock and the random delays. */
#ifndef NVCT_FAULT_INJECT_H
#define NVCT_FAULT_INJECT_H

#include <stdint.h>

/* Print the error and exit with status 2 (a broken setup or command line). noreturn keeps the
 * compiler's view of the callers as it was when these were static in one file. */
__attribute__((noreturn)) void die(const char* what);
__attribute__((noreturn)) void usage(const char* what);

uint64_t now_us(void);
void sleep_us(uint64_t us);

/* splitmix64: one stream per process, seeded by the mode (kill prints its seed). */
void rng_seed(uint64_t seed);
uint64_t rng_next(void);

/* The modes: argv starts after the mode's name. */
int kill_main(int argc, char** argv);      /* fault_inject_kill.c */
int exec_kill_main(int argc, char** argv); /* fault_inject_exec_kill.c */
int storm_main(int argc, char** argv);     /* fault_inject_storm.c */

#endif
