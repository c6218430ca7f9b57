/* Facts that belong to the library build of a real driver release: its own version (compared
 * with the kernel module's for the "driver/library version mismatch" error) and the CUDA
 * version it supports. make-driver-root.sh overwrites these placeholders in the installed copy
 * with same-length, NUL-padded values, so one CMake build serves every topology. */
#include <stdlib.h>
#include <string.h>

#include "mock_driver.h"

/* 31 characters + NUL; the builder looks for the exact placeholder text. */
char nvct_mock_driver_version_fact[32] = "NVCTDRIVERVERSIONXXXXXXXXXXXXXX";
char nvct_mock_cuda_version_fact[16] = "NVCTCUDAVERSION";

/* Reads through an opaque pointer: the compiler must not fold the placeholder text. */
static const char *unfolded(const char *p) {
  __asm__("" : "+r"(p));
  return p;
}

const char *mock_library_driver_version(void) {
  const char *v = unfolded(nvct_mock_driver_version_fact);
  if (strncmp(v, "NVCT", 4) == 0 || v[0] == '\0') return NULL;
  return v;
}

int mock_cuda_version(unsigned *out) {
  const char *v = unfolded(nvct_mock_cuda_version_fact);
  if (strncmp(v, "NVCT", 4) == 0 || v[0] == '\0') return -1;
  char *end = NULL;
  unsigned long n = strtoul(v, &end, 10);
  if (end == v || *end != '\0') return -1;
  *out = (unsigned)n;
  return 0;
}
