/* One fake driver library. Built once per libraries.list line, with its soname given on the
 * link line; they have to be real ELF shared objects that ldconfig indexes and that the library
 * selector can open (driver.md §10); only cuDriverGetVersion below is ever called. Built with
 * -nostdlib so the same source also links as a 32-bit object without a 32-bit libc. */

/* A symbol per library makes the objects distinguishable in `readelf --dyn-syms`. */
__attribute__((visibility("default"))) int nvct_fake_driver_library(void) { return 0; }

/* libcuda's cuDriverGetVersion, for the runtime's csv-mode requirements (runtime.md §7.6). The
 * driver-root builder patches the topology's cuda_version over this build_facts.c placeholder in
 * the installed libcuda; unpatched (every other fake, the build tree) it fails like an
 * uninitialised driver (CUDA_ERROR_NOT_INITIALIZED = 3). No libc: the digits are parsed here. */
char nvct_fake_cuda_version_fact[16] = "NVCTCUDAVERSION";
__attribute__((visibility("default"))) int cuDriverGetVersion(int *version) {
  const char *p = nvct_fake_cuda_version_fact;
  __asm__("" : "+r"(p)); /* the placeholder must not be folded into a constant */
  int n = 0, digits = 0;
  for (; *p >= '0' && *p <= '9' && digits < 9; ++p, ++digits) n = n * 10 + (*p - '0');
  if (version == 0) return 1; /* CUDA_ERROR_INVALID_VALUE */
  if (digits == 0 || *p != '\0') return 3;
  *version = n;
  return 0;
}

#ifdef NVCT_ABI_TAG
/* libnvidia-tls must carry a GNU ABI note for Linux 2.3.99 or the selector rejects it (§10). */
struct AbiNote {
  unsigned name_size, desc_size, type;
  char name[4];
  unsigned desc[4];
};
__attribute__((section(".note.ABI-tag"), aligned(4), used)) static const struct AbiNote kAbiTag = {
    4, 16, 1, "GNU", {0, 2, 3, 99}};
#endif
