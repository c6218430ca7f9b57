// The native ld.so.cache writer (ldcache_writer.hpp): what Debian 12's ldconfig (glibc 2.36)
// does for `ldconfig -f /etc/ld.so.conf -C /etc/ld.so.cache DIR...`, step for step, with every
// path resolved in-root: directory list (command line, ld.so.conf with includes, system dirs,
// glibc-hwcaps subdirectories; duplicates by device and inode), per-directory library choice,
// soname links, entry order, string table with tail merging, extension directory.
#include "nvct/mount/ldcache_writer.hpp"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <fnmatch.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <map>

#include "nvct/base/file.hpp"

namespace nvct::mount {
namespace {

constexpr char kMagicNew[] = "glibc-ld.so.cache";  // 17 bytes without the NUL
constexpr char kVersionNew[] = "1.1";
constexpr std::uint32_t kExtensionMagic = 0xeaa42174u;
constexpr std::uint64_t kHwcapExtension = 1ULL << 62;
constexpr std::size_t kHeaderSize = 48;
constexpr std::size_t kEntrySize = 24;
constexpr int kMaxIncludeDepth = 16;

void put32(std::string& out, std::size_t at, std::uint32_t v) { std::memcpy(&out[at], &v, 4); }
void put64(std::string& out, std::size_t at, std::uint64_t v) { std::memcpy(&out[at], &v, 8); }
std::uint32_t get32(std::string_view in, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, in.data() + at, 4);
  return v;
}

// ldconfig's order (elf/cache.c compare): a negative answer puts `a` first.
int entry_compare(const LdcacheEntry& a, const LdcacheEntry& b) {
  int res = ldcache_libcmp(b.key, a.key);
  if (res != 0) return res;
  if (a.flags < b.flags) return 1;
  if (a.flags > b.flags) return -1;
  if (!a.hwcaps.empty() && b.hwcaps.empty()) return -1;
  if (a.hwcaps.empty() && !b.hwcaps.empty()) return 1;
  if (!a.hwcaps.empty()) return a.hwcaps.compare(b.hwcaps);
  return 0;
}

// glibc's stringtable_finalize: strings in descending order of their reversed bytes, longer first on a
// common suffix, each one either a tail of the previous one or appended after it.
struct StringTable {
  std::map<std::string, std::uint32_t> offsets;
  std::string bytes;

  explicit StringTable(const std::vector<std::string>& strings) {
    std::vector<const std::string*> order;
    for (const auto& s : strings) offsets.emplace(s, 0);
    for (const auto& [s, _] : offsets) order.push_back(&s);
    std::sort(order.begin(), order.end(), [](const std::string* l, const std::string* r) {
      std::size_t n = std::min(l->size(), r->size());
      for (std::size_t i = 1; i <= n; ++i) {
        auto lc = static_cast<unsigned char>((*l)[l->size() - i]);
        auto rc = static_cast<unsigned char>((*r)[r->size() - i]);
        if (lc != rc) return lc > rc;
      }
      return l->size() > r->size();
    });
    if (order.empty()) return;
    std::uint32_t offset = 0;
    offsets[*order[0]] = 0;
    for (std::size_t j = 1; j < order.size(); ++j) {
      const std::string& prev = *order[j - 1];
      const std::string& cur = *order[j];
      std::uint32_t prev_off = offsets[prev];
      if (prev.size() >= cur.size() &&
          prev.compare(prev.size() - cur.size(), cur.size(), cur) == 0)
        offset = static_cast<std::uint32_t>(prev_off + prev.size() - cur.size());
      else
        offset = static_cast<std::uint32_t>(prev_off + prev.size() + 1);
      offsets[cur] = offset;
    }
    const std::string& last = *order.back();
    bytes.assign(offsets[last] + last.size() + 1, '\0');
    for (const auto& [s, off] : offsets)
      if (bytes[off] == '\0') std::memcpy(&bytes[off], s.data(), s.size());
  }
};

// ---- ELF (glibc's readelflib.c for x86) ----

struct ElfFacts {
  std::int32_t flags = kLdcacheFlagElf;
  std::string soname;
};

bool in_file(std::size_t size, std::uint64_t off, std::uint64_t len) {
  return off <= size && len <= size - off;
}

// A NUL-terminated string at `off`, or false when it runs past the end of the file.
bool string_at(const unsigned char* base, std::size_t size, std::uint64_t off, std::string* out) {
  if (off >= size) return false;
  const void* end = std::memchr(base + off, '\0', size - off);
  if (!end) return false;
  out->assign(reinterpret_cast<const char*>(base + off),
              static_cast<const unsigned char*>(end) - (base + off));
  return true;
}

template <class Ehdr, class Phdr, class Dyn>
int parse_elf_class(const unsigned char* base, std::size_t size, ElfFacts* facts) {
  Ehdr eh;
  std::memcpy(&eh, base, sizeof eh);
  if (eh.e_type != ET_DYN) return 1;
  if (!in_file(size, eh.e_phoff, std::uint64_t{eh.e_phnum} * sizeof(Phdr))) return 1;
  facts->flags = kLdcacheFlagElf;
  std::uint64_t loadaddr = ~std::uint64_t{0}, dyn_off = 0, dyn_size = 0;
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Phdr ph;
    std::memcpy(&ph, base + eh.e_phoff + i * sizeof(Phdr), sizeof ph);
    switch (ph.p_type) {
      case PT_LOAD:
        if (loadaddr == ~std::uint64_t{0}) loadaddr = ph.p_vaddr - ph.p_offset;
        break;
      case PT_DYNAMIC:
        dyn_off = ph.p_offset;
        dyn_size = ph.p_filesz;
        break;
      case PT_INTERP: {
        std::string interp;
        if (!string_at(base, size, ph.p_offset, &interp)) return 1;
        static constexpr const char* kLibc6Interpreters[] = {
            "/lib/ld-linux.so.2", "/libx32/ld-linux-x32.so.2", "/lib64/ld-linux-x86-64.so.2"};
        for (const char* known : kLibc6Interpreters)
          if (interp == known) facts->flags = kLdcacheFlagLibc6;
        if (interp == "/lib/ld-linux.so.1") facts->flags = 0x0002;  // FLAG_ELF_LIBC5
        break;
      }
      case PT_GNU_PROPERTY: {
        // x86 ISA-level markers above the baseline may change the cache's hwcap field; not
        // modelled here (the baseline, which Debian's own libc carries, does not).
        if (!in_file(size, ph.p_offset, ph.p_filesz)) return 1;
        const unsigned char* p = base + ph.p_offset;
        std::uint64_t end = ph.p_filesz, align = sizeof(Phdr) == sizeof(Elf64_Phdr) ? 8 : 4;
        // One note: namesz, descsz, type (NT_GNU_PROPERTY_TYPE_0), "GNU\0", properties.
        if (end < 16) break;
        std::uint32_t namesz, descsz, ntype;
        std::memcpy(&namesz, p, 4);
        std::memcpy(&descsz, p + 4, 4);
        std::memcpy(&ntype, p + 8, 4);
        if (ntype != 5 || namesz != 4 || std::memcmp(p + 12, "GNU", 4) != 0) break;
        std::uint64_t at = 16, stop = std::min<std::uint64_t>(end, 16 + std::uint64_t{descsz});
        while (at + 8 <= stop) {
          std::uint32_t pr_type, pr_size;
          std::memcpy(&pr_type, p + at, 4);
          std::memcpy(&pr_size, p + at + 4, 4);
          if (pr_type == 0xc0008002u && pr_size >= 4 && at + 12 <= stop) {  // X86_ISA_1_NEEDED
            std::uint32_t needed;
            std::memcpy(&needed, p + at + 8, 4);
            if (needed & ~1u) return 2;
          }
          at += 8 + ((std::uint64_t{pr_size} + align - 1) & ~(align - 1));
        }
        break;
      }
      default:
        break;
    }
  }
  if (loadaddr == ~std::uint64_t{0}) loadaddr = 0;
  if (dyn_size == 0) return 1;
  if (!in_file(size, dyn_off, sizeof(Dyn))) return 1;
  auto dyn_at = [&](std::uint64_t i, Dyn* d) {
    std::uint64_t off = dyn_off + i * sizeof(Dyn);
    if (!in_file(size, off, sizeof(Dyn))) return false;
    std::memcpy(d, base + off, sizeof *d);
    return true;
  };
  std::uint64_t strtab = 0;
  bool have_strtab = false;
  Dyn d;
  for (std::uint64_t i = 0;; ++i) {
    if (!dyn_at(i, &d)) return 1;
    if (d.d_tag == DT_NULL) break;
    if (d.d_tag == DT_STRTAB) {
      strtab = d.d_un.d_val - loadaddr;
      have_strtab = true;
      break;
    }
  }
  if (!have_strtab || strtab >= size) return 1;
  bool have_soname = false;
  for (std::uint64_t i = 0;; ++i) {
    if (!dyn_at(i, &d)) return 1;
    if (d.d_tag == DT_NULL) break;
    if (d.d_tag != DT_NEEDED && d.d_tag != DT_SONAME) continue;
    std::string name;
    if (!string_at(base, size, strtab + d.d_un.d_val, &name)) return 1;
    if (d.d_tag == DT_NEEDED) {
      if (facts->flags == kLdcacheFlagElf) {
        if (name == "libc.so.6" || name == "libm.so.6") facts->flags = kLdcacheFlagLibc6;
        if (name == "libc.so.5" || name == "libm.so.5") facts->flags = 0x0002;
      }
    } else {
      facts->soname = std::move(name);
      have_soname = true;
    }
    if (have_soname && facts->flags != kLdcacheFlagElf) return 0;
  }
  return 0;
}

// 0: a library (facts filled), 1: not one ldconfig caches, 2: not modelled (ENOTSUP).
int parse_elf(const unsigned char* base, std::size_t size, ElfFacts* facts) {
  if (size < sizeof(Elf64_Ehdr) || std::memcmp(base, ELFMAG, SELFMAG) != 0) return 1;
  int cls = base[EI_CLASS];
  if (cls != ELFCLASS32 && cls != ELFCLASS64) return 1;
  std::uint16_t machine;
  std::memcpy(&machine, base + 18, 2);
  std::int32_t file_flag = 0;
  if (machine == EM_X86_64)
    file_flag = cls == ELFCLASS64 ? (kLdcacheFlagX8664Lib64 | kLdcacheFlagLibc6)
                                  : (kLdcacheFlagX8664Libx32 | kLdcacheFlagLibc6);
  else if (!(machine == EM_386 && cls == ELFCLASS32))
    return 1;  // "is for unknown machine"
  int r = cls == ELFCLASS32 ? parse_elf_class<Elf32_Ehdr, Elf32_Phdr, Elf32_Dyn>(base, size, facts)
                            : parse_elf_class<Elf64_Ehdr, Elf64_Phdr, Elf64_Dyn>(base, size, facts);
  if (r == 0 && file_flag) facts->flags = file_flag;
  return r;
}

// 0, 1 or 2 as parse_elf; the fd is a regular file's.
int read_elf_fd(int fd, ElfFacts* facts) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return 1;
  auto size = static_cast<std::size_t>(st.st_size);
  if (size < sizeof(Elf64_Ehdr)) return 1;
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) return 1;
  int r = parse_elf(static_cast<const unsigned char*>(map), size, facts);
  ::munmap(map, size);
  return r;
}

// ---- the scan (elf/ldconfig.c) ----

// The legacy hwcap subdirectory names of x86 (tls, hwcap bits, platforms): not modelled.
bool is_hwcap_platform(std::string_view name) {
  static constexpr std::string_view kNames[] = {"tls",  "sse2", "x86_64",  "avx512_1",
                                                "i586", "i686", "haswell", "xeon_phi"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

std::string ld_join(const std::string& dir, std::string_view name) {
  std::string out = dir;
  if (out.empty() || out.back() != '/') out += '/';
  out += name;
  return out;
}

struct DirEntry {
  std::string path;
  dev_t dev = 0;
  ino_t ino = 0;
  std::int32_t flag = -1;  // FLAG_ANY, or the "dir=TYPE" type
  std::string hwcaps;
};

struct DirLib {
  std::string name, soname;
  std::int32_t flag = 0;
  bool is_link = false;
};

class Scanner {
 public:
  Scanner(const Root& root, const LdcacheScanOptions& options) : root_(root), options_(options) {}

  Result<LdcacheScan> run() {
    for (const auto& f : options_.folders) add_dir(f);
    if (!options_.config.empty()) NVCT_TRY(parse_conf(options_.config, 0));
    for (const auto& d : options_.system_dirs) add_dir(d);
    for (std::size_t i = 0; i < dirs_.size(); ++i) NVCT_TRY(search_dir(dirs_[i]));
    return std::move(scan_);
  }

 private:
  bool stat_in_root(const std::string& path, struct stat* st) {
    auto fd = root_.open_in_root(path, O_PATH);
    return fd && ::fstat(fd->get(), st) == 0;
  }

  void note_hwcaps_name(const std::string& name) {
    if (std::find(scan_.hwcaps_names.begin(), scan_.hwcaps_names.end(), name) ==
        scan_.hwcaps_names.end())
      scan_.hwcaps_names.push_back(name);
  }

  bool add_single_dir(DirEntry entry) {
    for (auto& d : dirs_)
      if (d.dev == entry.dev && d.ino == entry.ino) {
        d.flag = entry.flag;
        return false;
      }
    dirs_.push_back(std::move(entry));
    return true;
  }

  void add_dir(std::string line) {
    DirEntry entry;
    if (auto eq = line.find('='); eq != std::string::npos) {
      std::string type = line.substr(eq + 1);
      line.resize(eq);
      if (type == "libc4" || type == "libc5") entry.flag = 0x0002;
      if (type == "libc6") entry.flag = kLdcacheFlagLibc6;
      if (type == "glibc2") entry.flag = kLdcacheFlagLibc6;
    }
    std::size_t i = line.size();
    while (i > 0 && std::isspace(static_cast<unsigned char>(line[i - 1]))) --i;
    while (i > 1 && line[i - 1] == '/') --i;
    line.resize(i);
    if (line.empty()) return;
    struct stat st {};
    if (!stat_in_root(line, &st)) return;
    entry.path = line;
    entry.dev = st.st_dev;
    entry.ino = st.st_ino;
    if (!add_single_dir(entry)) return;
    add_glibc_hwcaps_subdirectories(entry);
  }

  void add_glibc_hwcaps_subdirectories(const DirEntry& parent) {
    auto fd = root_.open_in_root(ld_join(parent.path, "glibc-hwcaps"), O_RDONLY | O_DIRECTORY);
    if (!fd) return;
    for (const auto& [name, type] : list_dir(fd->get())) {
      if (name[0] == '.' || type == DT_REG || name.find(':') != std::string::npos) continue;
      std::string path = ld_join(parent.path, "glibc-hwcaps/" + name);
      struct stat st {};
      if (!stat_in_root(path, &st) || !S_ISDIR(st.st_mode)) continue;
      note_hwcaps_name(name);
      DirEntry sub;
      sub.path = path;
      sub.dev = st.st_dev;
      sub.ino = st.st_ino;
      sub.flag = parent.flag;
      sub.hwcaps = name;
      add_single_dir(std::move(sub));
    }
  }

  static std::vector<std::pair<std::string, unsigned char>> list_dir(int fd) {
    std::vector<std::pair<std::string, unsigned char>> out;
    int dup = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (dup < 0) return out;
    DIR* dir = ::fdopendir(dup);
    if (!dir) {
      ::close(dup);
      return out;
    }
    while (struct dirent* e = ::readdir(dir)) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      out.emplace_back(e->d_name, e->d_type);
    }
    ::closedir(dir);
    return out;
  }

  Status parse_conf(const std::string& file, int depth) {
    if (depth > kMaxIncludeDepth)
      return fail(ELOOP, fmt::format("ld.so.conf includes nest deeper than {} levels at {}; "
                                     "fix the image's ld.so.conf include lines",
                                     kMaxIncludeDepth, file));
    // O_NONBLOCK: a FIFO planted as a config file must not block the writer (checklist #22);
    // only a regular file is read.
    auto fd = root_.open_in_root(file, O_RDONLY | O_NONBLOCK);
    if (!fd) return ok();  // ldconfig warns and goes on
    struct stat conf_st {};
    if (::fstat(fd->get(), &conf_st) != 0 || !S_ISREG(conf_st.st_mode)) return ok();
    std::string text;
    char buf[8192];
    ssize_t n;
    while ((n = ::read(fd->get(), buf, sizeof buf)) > 0) {
      text.append(buf, static_cast<std::size_t>(n));
      if (text.size() > (4u << 20))
        return fail(EFBIG, fmt::format("{} in the container is larger than 4 MiB", file));
    }
    std::size_t pos = 0;
    while (pos < text.size()) {
      std::size_t nl = text.find('\n', pos);
      std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      pos = nl == std::string::npos ? text.size() : nl + 1;
      line = line.substr(0, line.find('\0'));
      if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
      std::size_t start = 0;
      while (start < line.size() && std::isspace(static_cast<unsigned char>(line[start]))) ++start;
      line.erase(0, start);
      if (line.empty()) continue;
      if (line.compare(0, 7, "include") == 0 && line.size() > 7 && (line[7] == ' ' || line[7] == '\t')) {
        std::string rest = line.substr(8);
        std::size_t p = 0;
        while (p <= rest.size()) {
          std::size_t q = rest.find_first_of(" \t", p);
          std::string pattern = rest.substr(p, q == std::string::npos ? std::string::npos : q - p);
          if (!pattern.empty()) NVCT_TRY(parse_include(file, pattern, depth));
          if (q == std::string::npos) break;
          p = q + 1;
        }
      } else if (strncasecmp(line.c_str(), "hwcap", 5) == 0 && line.size() > 5 &&
                 (line[5] == ' ' || line[5] == '\t')) {
        continue;  // "hwcap directive ignored"
      } else {
        add_dir(line);
      }
    }
    return ok();
  }

  Status parse_include(const std::string& file, std::string pattern, int depth) {
    if (pattern[0] != '/') {
      auto slash = file.rfind('/');
      if (slash != std::string::npos) pattern = file.substr(0, slash == 0 ? 1 : slash) + "/" + pattern;
      if (pattern.compare(0, 2, "//") == 0) pattern.erase(0, 1);
    }
    auto slash = pattern.rfind('/');
    std::string dir = slash == 0 ? "/" : pattern.substr(0, slash);
    std::string last = pattern.substr(slash + 1);
    if (dir.find_first_of("*?[") != std::string::npos)
      return fail(ENOTSUP, fmt::format("ld.so.conf include {}: wildcards in a directory part "
                                       "are not modelled by the native writer",
                                       pattern));
    if (last.find_first_of("*?[\\") == std::string::npos) {
      struct stat st {};
      if (stat_in_root(pattern, &st)) return parse_conf(pattern, depth + 1);
      return ok();
    }
    auto fd = root_.open_in_root(dir, O_RDONLY | O_DIRECTORY);
    if (!fd) return ok();
    std::vector<std::string> matches;
    for (const auto& [name, type] : list_dir(fd->get()))
      if (::fnmatch(last.c_str(), name.c_str(), FNM_PERIOD) == 0) matches.push_back(name);
    std::sort(matches.begin(), matches.end());
    for (const auto& m : matches) NVCT_TRY(parse_conf(ld_join(dir, m), depth + 1));
    return ok();
  }

  // elf/ldconfig.c create_links, in-root: soname -> libname in the directory.
  void create_links(int dirfd, const std::string& dir, const std::string& libname,
                    const std::string& soname) {
    if (soname == libname) return;  // the same file: ldconfig finds nothing to do
    struct stat lso {};
    // The common case, answered without resolving anything: soname is already a relative link
    // to libname in this directory (ldconfig compares the two files' inodes: equal then).
    if (::fstatat(dirfd, soname.c_str(), &lso, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(lso.st_mode) &&
        static_cast<std::size_t>(lso.st_size) == libname.size()) {
      std::string target(libname.size() + 1, '\0');
      ssize_t n = ::readlinkat(dirfd, soname.c_str(), target.data(), target.size());
      if (n == static_cast<ssize_t>(libname.size()) && target.compare(0, n, libname) == 0) return;
    }
    bool do_remove = true;
    struct stat so {}, lib {};
    if (stat_in_root(ld_join(dir, soname), &so)) {
      if (!stat_in_root(ld_join(dir, libname), &lib)) return;
      if (lib.st_dev == so.st_dev && lib.st_ino == so.st_ino) return;
      if (::fstatat(dirfd, soname.c_str(), &lso, AT_SYMLINK_NOFOLLOW) == 0 &&
          !S_ISLNK(lso.st_mode))
        return;  // "is not a symbolic link"
    } else if (::fstatat(dirfd, soname.c_str(), &lso, AT_SYMLINK_NOFOLLOW) != 0 ||
               !S_ISLNK(lso.st_mode)) {
      do_remove = false;
    }
    if (do_remove && ::unlinkat(dirfd, soname.c_str(), 0) != 0) return;
    (void)::symlinkat(libname.c_str(), dirfd, soname.c_str());
  }

  Status search_dir(const DirEntry& entry) {
    auto slash = entry.path.rfind('/');
    if (entry.hwcaps.empty() && is_hwcap_platform(entry.path.substr(slash + 1)))
      return fail(ENOTSUP, fmt::format("{}: legacy hwcap directories are not modelled by the "
                                       "native writer",
                                       entry.path));
    auto dirfd = root_.open_in_root(entry.path, O_RDONLY | O_DIRECTORY);
    if (!dirfd) return ok();  // "Can't open directory"
    std::vector<DirLib> dlibs;  // most recent first, as ldconfig's list
    for (auto& [name, type] : list_dir(dirfd->get())) {
      bool libish = (name.compare(0, 3, "lib") == 0 || name.compare(0, 3, "ld-") == 0) &&
                    name.find(".so") != std::string::npos;
      if (!libish && (type == DT_REG || !is_hwcap_platform(name))) continue;
      mode_t lmode = DTTOIF(type);
      struct stat st {};
      if (type == DT_UNKNOWN) {
        if (::fstatat(dirfd->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        lmode = st.st_mode;
      }
      bool is_link = S_ISLNK(lmode);
      std::string full = ld_join(entry.path, name);
      bool is_dir = S_ISDIR(lmode);
      unique_fd file;
      if (is_link) {
        // ldconfig's stat of the target: an O_PATH open in-root. Only a regular file is then
        // opened for reading (through the fd), so no device node or FIFO is ever opened.
        auto f = root_.open_in_root(full, O_PATH);
        struct stat target {};
        if (!f || ::fstat(f->get(), &target) != 0) {
          if (!f && (f.error().code() == ENOENT || f.error().code() == ELOOP) &&
              options_.create_links && name.find(".so.") != std::string::npos)
            ::unlinkat(dirfd->get(), name.c_str(), 0);  // a stale link, as ldconfig
          continue;
        }
        is_dir = S_ISDIR(target.st_mode);
        if (S_ISREG(target.st_mode))
          file.reset(::open(proc_fd_path(f->get()).c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
      }
      if (is_dir && is_hwcap_platform(name))
        return fail(ENOTSUP, fmt::format("{}: legacy hwcap directories are not modelled by the "
                                         "native writer",
                                         full));
      if (!S_ISREG(lmode) && !is_link) continue;
      if (is_link && !file) continue;  // not a regular file: ldconfig cannot read it either
      if (!is_link) {
        file.reset(::openat(dirfd->get(), name.c_str(),
                            O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
        if (!file) continue;
      }
      ElfFacts facts;
      int r = read_elf_fd(file.get(), &facts);
      if (r == 2)
        return fail(ENOTSUP, fmt::format("{}: x86 ISA level markers are not modelled by the "
                                         "native writer",
                                         full));
      if (r != 0) continue;
      std::string soname = facts.soname.empty() ? name : facts.soname;
      if (is_link && name != soname) {
        if (name.size() < 3 || name.compare(name.size() - 3, 3, ".so") != 0 ||
            soname.compare(0, name.size(), name) != 0)
          is_link = false;
      }
      if (is_link) soname = name;
      std::int32_t flag = facts.flags;
      if (flag == kLdcacheFlagElf && (entry.flag == 0x0002 || entry.flag == kLdcacheFlagLibc6))
        flag = entry.flag;
      auto same = std::find_if(dlibs.begin(), dlibs.end(),
                               [&](const DirLib& d) { return d.soname == soname; });
      if (same != dlibs.end()) {
        if ((!is_link && same->is_link) ||
            (is_link == same->is_link && ldcache_libcmp(same->name, name) < 0)) {
          same->name = name;
          same->is_link = is_link;
        }
        continue;
      }
      dlibs.insert(dlibs.begin(), DirLib{name, soname, flag, is_link});
    }
    for (const auto& d : dlibs) {
      // ldconfig makes no links in glibc-hwcaps subdirectories (their entries name the file).
      if (!d.is_link && options_.create_links && entry.hwcaps.empty())
        create_links(dirfd->get(), entry.path, d.name, d.soname);
      LdcacheEntry e;
      e.key = d.soname;
      e.path = ld_join(entry.path, entry.hwcaps.empty() ? d.soname : d.name);
      e.flags = d.flag;
      e.hwcaps = entry.hwcaps;
      scan_.entries.push_back(std::move(e));
    }
    return ok();
  }

  const Root& root_;
  const LdcacheScanOptions& options_;
  std::vector<DirEntry> dirs_;
  LdcacheScan scan_;
};

}  // namespace

int ldcache_libcmp(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size()) {
    if (digit(a[i])) {
      if (j >= b.size() || !digit(b[j])) return 1;
      long long va = 0, vb = 0;
      while (i < a.size() && digit(a[i])) va = va * 10 + (a[i++] - '0');
      while (j < b.size() && digit(b[j])) vb = vb * 10 + (b[j++] - '0');
      if (va != vb) return va < vb ? -1 : 1;
    } else if (j < b.size() && digit(b[j])) {
      return -1;
    } else if (j >= b.size()) {
      return static_cast<signed char>(a[i]);
    } else if (a[i] != b[j]) {
      return static_cast<int>(static_cast<signed char>(a[i])) -
             static_cast<int>(static_cast<signed char>(b[j]));
    } else {
      ++i;
      ++j;
    }
  }
  return j < b.size() ? -static_cast<int>(static_cast<signed char>(b[j])) : 0;
}

std::string ldcache_bytes(const std::vector<LdcacheEntry>& input,
                          const std::vector<std::string>& hwcaps_names,
                          std::string_view generator) {
  std::vector<LdcacheEntry> entries = input;
  std::stable_sort(entries.begin(), entries.end(), [](const LdcacheEntry& a, const LdcacheEntry& b) {
    return entry_compare(a, b) < 0;
  });
  std::vector<std::string> strings;
  for (const auto& e : entries) {
    strings.push_back(e.key);
    strings.push_back(e.path);
  }
  for (const auto& h : hwcaps_names) strings.push_back(h);
  StringTable table(strings);

  // Section indices of the glibc-hwcaps names that hold a library, in name order.
  std::vector<std::string> used;
  for (const auto& e : entries)
    if (!e.hwcaps.empty() && std::find(used.begin(), used.end(), e.hwcaps) == used.end())
      used.push_back(e.hwcaps);
  std::sort(used.begin(), used.end());

  std::size_t n = entries.size();
  auto str_offset = static_cast<std::uint32_t>(kHeaderSize + n * kEntrySize);
  std::size_t ext_offset = (str_offset + table.bytes.size() + 3) & ~std::size_t{3};
  std::uint32_t sections = used.empty() ? 1 : 2;
  // Extension directory, then the glibc-hwcaps name array (if any), then the generator string.
  std::size_t hw_offset = ext_offset + 8 + 16 * sections;
  std::size_t gen_offset = hw_offset + 4 * used.size();
  std::size_t total = gen_offset + generator.size();

  std::string out(total, '\0');
  std::memcpy(&out[0], kMagicNew, 17);
  std::memcpy(&out[17], kVersionNew, 3);
  put32(out, 20, static_cast<std::uint32_t>(n));
  put32(out, 24, static_cast<std::uint32_t>(table.bytes.size()));
  out[28] = 2;  // cache_file_new_flags_endian_little
  put32(out, 32, static_cast<std::uint32_t>(ext_offset));
  for (std::size_t i = 0; i < n; ++i) {
    const auto& e = entries[i];
    std::size_t at = kHeaderSize + i * kEntrySize;
    put32(out, at, static_cast<std::uint32_t>(e.flags));
    put32(out, at + 4, str_offset + table.offsets[e.key]);
    put32(out, at + 8, str_offset + table.offsets[e.path]);
    std::uint64_t hwcap = 0;
    if (!e.hwcaps.empty())
      hwcap = kHwcapExtension |
              static_cast<std::uint64_t>(std::find(used.begin(), used.end(), e.hwcaps) - used.begin());
    put64(out, at + 16, hwcap);
  }
  std::memcpy(&out[str_offset], table.bytes.data(), table.bytes.size());
  put32(out, ext_offset, kExtensionMagic);
  put32(out, ext_offset + 4, sections);
  put32(out, ext_offset + 8, 0);  // cache_extension_tag_generator
  put32(out, ext_offset + 12, 0);
  put32(out, ext_offset + 16, static_cast<std::uint32_t>(gen_offset));
  put32(out, ext_offset + 20, static_cast<std::uint32_t>(generator.size()));
  std::memcpy(&out[gen_offset], generator.data(), generator.size());
  if (!used.empty()) {
    put32(out, ext_offset + 24, 1);  // cache_extension_tag_glibc_hwcaps
    put32(out, ext_offset + 28, 0);
    put32(out, ext_offset + 32, static_cast<std::uint32_t>(hw_offset));
    put32(out, ext_offset + 36, static_cast<std::uint32_t>(4 * used.size()));
    for (std::size_t i = 0; i < used.size(); ++i)
      put32(out, hw_offset + 4 * i, str_offset + table.offsets[used[i]]);
  }
  return out;
}

Result<std::vector<LdcacheRecord>> parse_ldcache(std::string_view bytes) {
  if (bytes.size() < kHeaderSize || bytes.compare(0, 17, kMagicNew) != 0 ||
      bytes.compare(17, 3, kVersionNew) != 0)
    return fail(EINVAL, "not a glibc-ld.so.cache1.1 file");
  std::uint32_t n = get32(bytes, 20);
  if (n > (bytes.size() - kHeaderSize) / kEntrySize)
    return fail(EINVAL, fmt::format("ld.so.cache claims {} entries in {} bytes", n, bytes.size()));
  auto str = [&](std::uint32_t off) -> Result<std::string> {
    if (off >= bytes.size()) return fail(EINVAL, fmt::format("string offset {} past the end", off));
    std::size_t end = bytes.find('\0', off);
    if (end == std::string_view::npos) return fail(EINVAL, "unterminated string");
    return std::string(bytes.substr(off, end - off));
  };
  std::vector<LdcacheRecord> out;
  for (std::uint32_t i = 0; i < n; ++i) {
    std::size_t at = kHeaderSize + i * kEntrySize;
    LdcacheRecord r;
    r.flags = static_cast<std::int32_t>(get32(bytes, at));
    NVCT_ASSIGN_OR_RETURN(r.key, str(get32(bytes, at + 4)));
    NVCT_ASSIGN_OR_RETURN(r.path, str(get32(bytes, at + 8)));
    std::memcpy(&r.hwcap, bytes.data() + at + 16, 8);
    out.push_back(std::move(r));
  }
  return out;
}

Result<LdcacheScan> scan_ldcache(const Root& rootfs, const LdcacheScanOptions& options) {
  return with_context(Scanner(rootfs, options).run(), "scan the container's library dirs");
}

Status write_ldcache_file(const Root& rootfs, const std::string& cache_path,
                          std::string_view bytes) {
  auto slash = cache_path.rfind('/');
  if (cache_path.empty() || cache_path[0] != '/' || slash + 1 >= cache_path.size())
    return fail(EINVAL, fmt::format("ld.so.cache path {} is not an absolute file path", cache_path));
  std::string dir = slash == 0 ? "/" : cache_path.substr(0, slash);
  std::string name = cache_path.substr(slash + 1);
  NVCT_ASSIGN_OR_RETURN(unique_fd dirfd, rootfs.open_in_root(dir, O_PATH | O_DIRECTORY));
  // A temp name of this writer's own (".<name>.<pid>-XXXXXX", as write_file_atomic_at): hooks of
  // containers that share a rootfs write this file at the same moment (create storm, checklist
  // #39), and a fixed "<name>~" let one remove or rename the other's half-written file (ENOENT,
  // EEXIST or a torn cache). A killed writer's temp file is removed by a later one.
  remove_stale_temp_files(dirfd.get(), name);
  // The pid alone is unique among live writers; the suffix (clock-seeded: no random device or
  // getrandom needed in the sandbox) only keeps a pid reused after a crash from colliding.
  static constexpr char kLdwChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  auto seed = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  std::string temp;
  unique_fd out;
  for (int attempt = 0; attempt < 16 && !out; ++attempt) {
    std::string suffix(6, 'x');
    for (auto& c : suffix) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      c = kLdwChars[(seed >> 33) % (sizeof kLdwChars - 1)];
    }
    temp = fmt::format(".{}.{}-{}", name, ::getpid(), suffix);
    out.reset(::openat(dirfd.get(), temp.c_str(),
                       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!out && errno != EEXIST)
      return fail_errno(fmt::format("create {} in the container", ld_join(dir, temp)));
  }
  if (!out)
    return fail(EEXIST, fmt::format("create a temporary file for {} in the container: too many "
                                    "name collisions; remove the .{}.* files in {}",
                                    cache_path, name, dir));
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t w = ::write(out.get(), bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      int err = w < 0 ? errno : EIO;
      ::unlinkat(dirfd.get(), temp.c_str(), 0);
      return fail_errno(fmt::format("write {} in the container", ld_join(dir, temp)), err);
    }
    done += static_cast<std::size_t>(w);
  }
  // As ldconfig: readable by everyone whatever the umask. No fsync: the file is rebuilt at
  // every container start, so no crash needs this copy to survive.
  if (::fchmod(out.get(), 0644) != 0 || ::close(out.release()) != 0 ||
      ::renameat(dirfd.get(), temp.c_str(), dirfd.get(), name.c_str()) != 0) {
    int err = errno;
    ::unlinkat(dirfd.get(), temp.c_str(), 0);
    return fail_errno(fmt::format("install {} in the container", cache_path), err);
  }
  return ok();
}

Status update_ldcache_in_process(const Root& rootfs, const LdcacheScanOptions& options,
                                 std::string_view generator) {
  NVCT_ASSIGN_OR_RETURN(LdcacheScan scan, scan_ldcache(rootfs, options));
  return write_ldcache_file(rootfs, "/etc/ld.so.cache",
                            ldcache_bytes(scan.entries, scan.hwcaps_names, generator));
}

}  // namespace nvct::mount
