// The CUDA ELF / fatbinary / cubin / PTX / ar reader of the compatibility explainer: malformed
// input is FileCode::error, never a crash or an unbounded loop.
#include <span>

#include "fuzz_common.hpp"
#include "nvct/compat/fatbin.hpp"

using namespace nvct;

NVCT_FUZZ_TARGET {
  compat::ScanLimits limits;
  limits.max_archive_members = 4096;  // keep one input fast; the limit is what is exercised
  auto code = compat::scan_bytes(std::span<const std::uint8_t>(data, size), "fuzz.bin", limits);
  for (const auto& e : code.entries) {
    // Every range the reader reports lies in the file.
    if (e.payload_offset > size || e.payload_size > size - e.payload_offset) __builtin_trap();
    (void)e.arch_name();
  }
  if (code.error) (void)code.error->text();
  (void)compat::cuobjdump_list(code, compat::EntryKind::sass, "fuzz.bin");
  (void)compat::cuobjdump_list(code, compat::EntryKind::ptx, "fuzz.bin");
  return 0;
}
