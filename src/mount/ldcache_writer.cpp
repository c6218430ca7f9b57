// The native ld.so.cache writer (ldcache_writer.hpp): what Debian 12's ldconfig (glibc 2.36)
// does for `ldconfig -f /etc/ld.so.conf -C /etc/ld.so.cache DIR...`, step for step, with every
// path resolved in-root: directory list (command line, ld.so.conf with includes, system dirs,
// glibc-hwcaps subdirectories; duplicates by device and inode), per-directory library choice
// (each library read by ldcache_elf.cpp), soname links; then the cache's bytes (laid out by
// ldcache_format.cpp) written to a temp file and renamed into place.
#include "nvct/mount/ldcache_writer.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>

#include "nvct/base/file.hpp"
#include "nvct/mount/ldcache_elf.hpp"

namespace nvct::mount {
namespace {

constexpr int kMaxIncludeDepth = 16;

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
      if (line.compare(0, 7, "include") == 0 && line.size() > 7 &&
          (line[7] == ' ' || line[7] == '\t')) {
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
      if (slash != std::string::npos)
        pattern = file.substr(0, slash == 0 ? 1 : slash) + "/" + pattern;
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
    struct stat so {
    }, lib{};
    if (stat_in_root(ld_join(dir, soname), &so)) {
      if (!stat_in_root(ld_join(dir, libname), &lib)) return;
      if (lib.st_dev == so.st_dev && lib.st_ino == so.st_ino) return;
      if (::fstatat(dirfd, soname.c_str(), &lso, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(lso.st_mode))
        return;  // "is not a symbolic link"
    } else if (::fstatat(dirfd, soname.c_str(), &lso, AT_SYMLINK_NOFOLLOW) != 0 ||
               !S_ISLNK(lso.st_mode)) {
      do_remove = false;
    }
    if (do_remove && ::unlinkat(dirfd, soname.c_str(), 0) != 0) return;
    // As ldconfig ("Cannot link"): a link it cannot make is skipped, not an error. Tested, not
    // cast to void: glibc's fortified headers mark symlinkat warn_unused_result.
    if (::symlinkat(libname.c_str(), dirfd, soname.c_str()) != 0) return;
  }

  Status search_dir(const DirEntry& entry) {
    auto slash = entry.path.rfind('/');
    if (entry.hwcaps.empty() && is_hwcap_platform(entry.path.substr(slash + 1)))
      return fail(ENOTSUP, fmt::format("{}: legacy hwcap directories are not modelled by the "
                                       "native writer",
                                       entry.path));
    auto dirfd = root_.open_in_root(entry.path, O_RDONLY | O_DIRECTORY);
    if (!dirfd) return ok();    // "Can't open directory"
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
        file.reset(
            ::openat(dirfd->get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
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

Result<LdcacheScan> scan_ldcache(const Root& rootfs, const LdcacheScanOptions& options) {
  return with_context(Scanner(rootfs, options).run(), "scan the container's library dirs");
}

Status write_ldcache_file(const Root& rootfs, const std::string& cache_path,
                          std::string_view bytes) {
  auto slash = cache_path.rfind('/');
  if (cache_path.empty() || cache_path[0] != '/' || slash + 1 >= cache_path.size())
    return fail(EINVAL,
                fmt::format("ld.so.cache path {} is not an absolute file path", cache_path));
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
  static constexpr char kLdwChars[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  auto seed =
      static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
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
