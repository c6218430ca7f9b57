/* One fake driver library. Built once per libraries.list line, with its soname given on the
 * link line; nothing loads these, they only have to be real ELF shared objects that ldconfig
 * indexes and that the library selector can open (driver.md §10). Built with -nostdlib so the
 * same source also links as a 32-bit object without a 32-bit libc. */

/* A symbol per library makes the objects distinguishable in `readelf --dyn-syms`. */
__attribute__((visibility("default"))) int nvct_fake_driver_library(void) { return 0; }

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
