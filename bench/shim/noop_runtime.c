/* A static low-level runtime that does nothing: the baseline of shim_bench. Being static and
 * tiny, its own peak RSS is a few hundred KiB, so the peak RSS measured through the shim (which
 * the kernel carries across execve) is the shim's. */
int main(void) { return 0; }
