// The ld.so.cache writer's ELF reader: the facts ldconfig takes from a library, and the
// malformed files it skips (the files come from the container image). The reader's answers on
// real libraries are checked against ldconfig in ldcache_writer_test.cpp.
#include "nvct/mount/ldcache_elf.hpp"

#include <elf.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "ldcache_test_support.hpp"
#include "nvct/base/unique_fd.hpp"

namespace nvct::mount {
namespace {

using ldcache_test::make_elf;
using ldcache_test::spec;

// read_elf_fd on `bytes`, held in a memfd: a regular file, as the scanner's fds are.
int read_elf(std::string_view bytes, ElfFacts* facts) {
  unique_fd fd(::memfd_create("ldcache-elf-test", MFD_CLOEXEC));
  if (!fd) ADD_FAILURE() << "memfd_create: " << std::strerror(errno);
  if (::write(fd.get(), bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size()))
    ADD_FAILURE() << "write the memfd: " << std::strerror(errno);
  return read_elf_fd(fd.get(), facts);
}

// The file offset of the first dynamic entry of a make_elf() 64-bit file (after the two
// program headers).
constexpr std::size_t kFirstDyn = sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr);

TEST(LdcacheElf, ReadsSonameAndFlagsOfALibrary) {
  ElfFacts facts;
  ASSERT_EQ(read_elf(make_elf(spec("libfoo.so.1", {"libc.so.6"})), &facts), 0);
  EXPECT_EQ(facts.soname, "libfoo.so.1");
  EXPECT_EQ(facts.flags, kLdcacheFlagX8664Lib64 | kLdcacheFlagLibc6);

  ElfFacts old;
  ASSERT_EQ(read_elf(make_elf(spec("libold.so.3", {}, false)), &old), 0);
  EXPECT_EQ(old.soname, "libold.so.3");
  EXPECT_EQ(old.flags, kLdcacheFlagElf);  // i386 without a libc6 DT_NEEDED
}

TEST(LdcacheElf, TruncatedHeaderIsNotALibrary) {
  std::string elf = make_elf(spec("libfoo.so.1"));
  ElfFacts facts;
  EXPECT_EQ(read_elf("", &facts), 1);
  EXPECT_EQ(read_elf(elf.substr(0, sizeof(Elf64_Ehdr) - 1), &facts), 1);
  // The ELF header whole, its program headers past the end.
  EXPECT_EQ(read_elf(elf.substr(0, sizeof(Elf64_Ehdr) + 8), &facts), 1);
}

TEST(LdcacheElf, WrongClassIsNotALibrary) {
  std::string elf = make_elf(spec("libfoo.so.1"));
  ElfFacts facts;
  for (int cls : {ELFCLASSNONE, ELFCLASSNUM}) {
    std::string bad = elf;
    bad[EI_CLASS] = static_cast<char>(cls);
    EXPECT_EQ(read_elf(bad, &facts), 1) << "class " << cls;
  }
  // A 64-bit file for i386, which has only the 32-bit class: "is for unknown machine".
  std::string bad = elf;
  std::uint16_t machine = EM_386;
  std::memcpy(&bad[offsetof(Elf64_Ehdr, e_machine)], &machine, sizeof machine);
  EXPECT_EQ(read_elf(bad, &facts), 1);
}

TEST(LdcacheElf, SonamePastTheEndIsNotALibrary) {
  std::string elf = make_elf(spec("libfoo.so.1"));
  Elf64_Dyn soname;
  std::memcpy(&soname, &elf[kFirstDyn], sizeof soname);
  ASSERT_EQ(soname.d_tag, DT_SONAME);
  ElfFacts facts;
  // The string table's offset plus the soname's lands past the end of the file.
  std::string bad = elf;
  soname.d_un.d_val = bad.size();
  std::memcpy(&bad[kFirstDyn], &soname, sizeof soname);
  EXPECT_EQ(read_elf(bad, &facts), 1);
  // The soname is the file's last string: without its NUL it runs past the end.
  bad = elf;
  bad.pop_back();
  EXPECT_EQ(read_elf(bad, &facts), 1);
}

}  // namespace
}  // namespace nvct::mount
