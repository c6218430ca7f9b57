// The ELF reader of the native ld.so.cache writer (ldcache_writer.hpp): glibc's readelflib.c for
// x86, i.e. what ldconfig takes from a library (its cache flags and DT_SONAME) and which files it
// skips. The files come from the container image, so every offset is bounds-checked.
#pragma once

#include <cstdint>
#include <string>

#include "nvct/mount/ldcache_format.hpp"

namespace nvct::mount {

// What ldconfig takes from a library for its cache entry.
struct ElfFacts {
  std::int32_t flags = kLdcacheFlagElf;  // kLdcacheFlag* of the entry
  std::string soname;                    // DT_SONAME; "" = none (the file name is the key)
};

// Reads the ELF file behind `fd` (mapped read-only; only a regular file is looked at).
// 0: a library ldconfig caches (`facts` filled); 1: not one (not ELF, unknown machine, not
// ET_DYN, no dynamic section, an offset or string past the end); 2: x86 ISA-level markers above
// the baseline, which the native writer does not model (it answers ENOTSUP).
int read_elf_fd(int fd, ElfFacts* facts);

}  // namespace nvct::mount
