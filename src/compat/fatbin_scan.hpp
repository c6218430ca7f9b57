// The reader's internal state and the parsers it dispatches to (one file each): fatbin
// containers (fatbin_container.cpp), ELF files (elf_file.cpp), cubin headers (cubin.cpp), `ar`
// archives (ar_archive.cpp), PTX text (fatbin_ptx.cpp). Each parser records the first malformed
// structure in FileCode::error and returns false; callers stop at the first error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fatbin_source.hpp"
#include "nvct/compat/fatbin.hpp"

namespace nvct::compat::detail {

struct ScanState {
  std::string file;
  const ScanLimits* limits = nullptr;
  FileCode* out = nullptr;
  std::string member;  // current `ar` member ("a.a:b.o" when nested), else empty
  std::uint32_t depth = 0;
  // Entry headers parsed in the whole file, including candidates rejected in lenient mode:
  // bounds the work a hostile file can cause (kMaxEntryWork).
  std::uint64_t entry_work = 0;

  bool failed() const { return out->error.has_value(); }
  // Records a malformed structure at file offset `offset` (the first one wins); returns false.
  bool malformed(std::uint64_t offset, std::string message,
                 std::optional<std::uint32_t> container = std::nullopt,
                 std::optional<std::uint32_t> entry = std::nullopt);
  void warn(std::string message);
};

std::string hex(std::uint64_t v);  // "0x2f40"

// Dispatches on the content of `w` (ELF, fatbin, `ar`, PTX). Sets FileCode::kind at depth 0.
bool scan_window(ScanState& st, const Window& w);

// Containers in `region` (an ELF section, a PT_LOAD segment, a fatbin file). `section` names the
// region in messages. lenient: candidates that do not parse are skipped (PT_LOAD scanning, where
// the magic may occur by chance); strict: they are errors, and a region with no container is one.
// single: parse only the container at offset 0 (a .nvFatBinSegment pointer).
inline constexpr std::uint64_t kMaxEntryWork = std::uint64_t{1} << 24;

enum class RegionMode { strict, lenient, single };
bool scan_fatbin_region(ScanState& st, const Window& region, std::string_view section,
                        RegionMode mode);

// Host ELF or cubin.
bool scan_elf(ScanState& st, const Window& w);

// `ar` archive ("!<arch>\n"): each member through scan_window, one level deeper.
bool scan_archive(ScanState& st, const Window& w);

// The header fields of a cubin (an ELF with EI_OSABI 0x33 / e_machine 190), §3.3.
struct CubinHeader {
  bool is_cuda = false;  // OSABI and machine say CUDA
  std::uint8_t abi_version = 0;
  std::uint32_t e_flags = 0;
  std::optional<std::uint32_t> sm;  // decoded SM (80), nullopt for an unknown ABI
  bool arch_specific = false;       // the `a` variant
};
// nullopt when `w` does not start with an ELF header.
std::optional<CubinHeader> read_cubin_header(const Window& w);
// e_flags decoding per EI_ABIVERSION (7: V1, 8: V2); sm nullopt for other ABIs.
CubinHeader decode_cubin_flags(std::uint8_t abi_version, std::uint32_t e_flags);

// PTX text: `.version X.Y` and `.target sm_XY[a]` directives in the first 4 KiB.
struct PtxHead {
  std::uint16_t isa_major = 0, isa_minor = 0;
  std::uint32_t arch = 0;
  bool arch_specific = false;
  bool has_version = false, has_target = false;
};
std::optional<PtxHead> parse_ptx_head(std::string_view text);

}  // namespace nvct::compat::detail
