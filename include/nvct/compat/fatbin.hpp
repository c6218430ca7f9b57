// Finding GPU code in a file without loading or running it (spec/compat.md §3, §7): host ELF
// files (sections .nv_fatbin, __nv_relfatbin, .nvFatBinSegment; PT_LOAD segments when there are
// no section headers), standalone fatbin, cubin and PTX files, and `ar` archives of those. Every
// offset, size and count is checked against its section and the file with 64-bit overflow
// checks; ranges are read with pread (no whole-file mapping); compressed entries are reported
// from their headers and never decompressed. A malformed structure is a per-file error naming the
// file, the hex file offset and the container/entry index, never a crash or an unbounded loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"

namespace nvct::compat {

// Limits of §7. Exceeding one is a malformed-file error (too-large files are skipped instead).
struct ScanLimits {
  std::uint64_t max_file_size = std::uint64_t{2} << 30;  // larger: skipped ("too large")
  std::uint32_t max_containers = 65536;                  // fatbin containers per section
  std::uint32_t max_entries = 4096;                      // entries per container
  std::uint32_t max_entry_header = 4096;                 // entry header size in bytes
  std::uint32_t max_depth = 4;                           // nesting: ar member -> fatbin -> cubin
  std::uint32_t max_archive_members = 1u << 20;          // members of one `ar` archive
};

// What the file as a whole is (§6.4 `files[].kind`).
enum class FileKind {
  other,     // none of the forms below: no GPU code (host-only text, data, ...)
  host_elf,  // an ELF file that is not a cubin (executable, .so, .o)
  cubin,     // a CUDA ELF (EI_OSABI 0x33, e_machine 190)
  fatbin,    // starts with the fatbin magic 50 ED 55 BA
  ptx,       // PTX text (.version / .target in the first 4 KiB)
  archive,   // `ar` archive ("!<arch>\n")
};
std::string_view to_string(FileKind kind);  // "other", "host-elf", "cubin", ...

enum class EntryKind { sass, ptx, unknown };
std::string_view to_string(EntryKind kind);  // "sass", "ptx", "unknown"

enum class Compression { none, lz, zstd, other };
std::string_view to_string(Compression c);  // "none", "lz", "zstd", "other"

// One fatbin entry, a standalone cubin or a standalone PTX file.
struct CodeEntry {
  EntryKind kind = EntryKind::unknown;
  std::uint16_t raw_kind =
      0;                   // fatbin entry kind field (1 PTX, 2 ELF, ...); 0 for standalone files
  std::uint32_t arch = 0;  // 80 for sm_80 / compute_80; 0 when unknown
  // The `a` (arch-specific, e.g. sm_90a) variant: from the cubin's e_flags or the PTX `.target`;
  // nullopt when it cannot be seen (compressed payload).
  std::optional<bool> arch_specific;
  std::uint16_t version_major = 0;  // code version: PTX ISA for PTX ([7,8]), cubin format for ELF
  std::uint16_t version_minor = 0;
  bool compressed = false;
  Compression compression = Compression::none;
  std::uint32_t container = 0;    // index of the container in the file (file order, 0-based)
  std::uint32_t index = 0;        // index of the entry in its container (0-based)
  std::uint64_t file_offset = 0;  // of the entry header (fatbin) or of the file/member start
  std::uint64_t header_size = 0;
  std::uint64_t payload_offset = 0;  // file offset of the payload
  std::uint64_t payload_size = 0;    // bytes stored in the file (compressed size when compressed)
  std::uint64_t uncompressed_size = 0;          // from the header; 0 when not given
  std::uint64_t flags = 0;                      // fatbin entry flags
  std::optional<std::uint32_t> elf_flags;       // cubin e_flags (uncompressed SASS only)
  std::optional<std::uint32_t> elf_sm;          // SM decoded from e_flags per §3.3 (80 for SM80)
  std::optional<std::uint8_t> elf_abi_version;  // cubin EI_ABIVERSION
  std::string name;                             // object name from the entry header, if any
  std::string member;  // `ar` member name when inside an archive, else empty

  // "sm_80", "sm_90a", "compute_90"; PTX entries print as compute_XY.
  std::string arch_name() const;
};

// One fatbin container (16-byte header + entries).
struct Container {
  std::uint32_t index = 0;        // 0-based, file order
  std::uint64_t file_offset = 0;  // of the container header
  std::uint64_t size = 0;         // 16 + the header's size field
  std::uint16_t version = 0;
  std::string section;  // ".nv_fatbin", "__nv_relfatbin", "PT_LOAD", "" for a fatbin file
  std::string member;   // `ar` member name, else empty
  std::uint32_t entries = 0;
};

// The §7 error form: "<file>: malformed: fatbin entry at file offset 0x2f40 (container 0,
// entry 3) runs past the end of section .nv_fatbin (0x3000)".
struct ScanError {
  std::string file;
  std::uint64_t offset = 0;  // file offset of the offending structure
  std::optional<std::uint32_t> container;
  std::optional<std::uint32_t> entry;
  std::string member;  // `ar` member, if inside one
  std::string
      message;  // the sentence, already naming the offset ("fatbin entry at file offset ...")

  // message prefixed by member ("member foo.o: ") when set; without the file name.
  std::string describe() const;
  // "<file>: malformed: <describe()>".
  std::string text() const;
};

struct FileCode {
  std::string path;  // as given to the scanner (rootfs-relative for images)
  std::uint64_t size = 0;
  FileKind kind = FileKind::other;
  std::vector<Container> containers;   // file order
  std::vector<CodeEntry> entries;      // file order (container, then index)
  std::vector<std::string> warnings;   // e.g. header arch != e_flags SM
  std::optional<ScanError> error;      // malformed: entries found before the error are kept
  std::optional<std::string> skipped;  // "too large", "not a regular file": nothing was read
  std::vector<std::string> members;    // `ar` members scanned, in order ("a.a:b.o" when nested)

  bool has_gpu_code() const { return !entries.empty(); }
};

// Scans the file at `path` relative to `dirfd` (AT_FDCWD allowed). The path is opened O_PATH and
// fstat'ed first: FIFOs, devices and sockets are returned as skipped without being opened for
// reading; a regular file is reopened O_RDONLY|O_NOFOLLOW|O_CLOEXEC. The caller resolves rootfs
// paths in-root and passes the parent fd (or an in-root opened fd to scan_fd). Errors (Result):
// the file cannot be opened or read; a malformed structure is FileCode::error instead.
Result<FileCode> scan_file(int dirfd, const std::string& path, const ScanLimits& limits = {});

// Scans an open regular file (read with pread only). `name` is used in messages.
Result<FileCode> scan_fd(int fd, const std::string& name, const ScanLimits& limits = {});

// Scans a byte buffer: the entry point of the libFuzzer harness. Never fails: malformed input is
// FileCode::error.
FileCode scan_bytes(std::span<const std::byte> data, const std::string& name,
                    const ScanLimits& limits = {});
inline FileCode scan_bytes(std::span<const std::uint8_t> data, const std::string& name,
                           const ScanLimits& limits = {}) {
  return scan_bytes(std::as_bytes(data), name, limits);
}

// The `cuobjdump --list-elf` (kind sass) or `--list-ptx` (kind ptx) form of §3.4 for `file_name`
// as given on cuobjdump's command line: "ELF file    1: app.1.sm_80.cubin\n" per entry in file
// order (the basename without its last extension; a standalone cubin has no index:
// "app.sm_80.cubin"), compressed entries included; for an archive each member opens with
// "\nmember <file_name>:<member>:\n". Empty when the file has no such entry and no members
// (cuobjdump then prints an info message instead).
std::string cuobjdump_list(const FileCode& code, EntryKind kind, std::string_view file_name);

}  // namespace nvct::compat
