// The native ld.so.cache writer against its oracle, the host's ldconfig (Debian 12, glibc 2.36):
// each tree is built twice, `ldconfig -r A -f /etc/ld.so.conf -C /etc/ld.so.cache DIRS` runs
// on one copy and the native writer on the other; the cache files must be equal byte for byte
// (the generator string, which names the ldconfig build, is taken from the oracle's file) and
// the library directories must hold the same names, types and link targets afterwards (ldconfig
// creates soname links and removes dangling ones).
#include "nvct/mount/ldcache_writer.hpp"

#include <elf.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "ldcache_test_support.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::mount {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, std::string_view data) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

using ldcache_test::ElfSpec;
using ldcache_test::make_elf;
using ldcache_test::spec;

// A tree under `root`, written by the functions below (relative paths, no leading '/').
struct Tree {
  std::string root;
  void file(const std::string& rel, std::string_view data) const { spit(root + "/" + rel, data); }
  void lib(const std::string& rel, ElfSpec s) const { file(rel, make_elf(s)); }
  void link(const std::string& target, const std::string& rel) const {
    fs::create_directories(fs::path(root + "/" + rel).parent_path());
    fs::create_symlink(target, root + "/" + rel);
  }
  void dir(const std::string& rel) const { fs::create_directories(root + "/" + rel); }
  void copy_host(const std::string& host, const std::string& rel) const {
    fs::create_directories(fs::path(root + "/" + rel).parent_path());
    fs::copy_file(host, root + "/" + rel, fs::copy_options::overwrite_existing);
  }
};

// Names, types and link targets under the root, but the caches and ldconfig's aux-cache.
std::map<std::string, std::string> listing(const std::string& root) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    std::string rel = it->path().string().substr(root.size());
    if (rel.rfind("/var", 0) == 0 || rel.rfind("/etc/ld.so.cache", 0) == 0) continue;
    auto st = it->symlink_status();
    if (fs::is_symlink(st))
      out[rel] = "-> " + fs::read_symlink(it->path()).string();
    else if (fs::is_directory(st))
      out[rel] = "dir";
    else
      out[rel] = "file " + std::to_string(fs::file_size(it->path()));
  }
  return out;
}

int run_host_ldconfig(const std::string& root, const std::vector<std::string>& folders) {
  std::string cmd = "/sbin/ldconfig -r '" + root + "' -f /etc/ld.so.conf -C /etc/ld.so.cache";
  for (const auto& f : folders) cmd += " '" + f + "'";
  cmd += " 2>/dev/null";
  return std::system(cmd.c_str());
}

std::string generator_of(const std::string& cache) {
  std::uint32_t ext, off, size;
  std::memcpy(&ext, cache.data() + 32, 4);
  std::memcpy(&off, cache.data() + ext + 16, 4);
  std::memcpy(&size, cache.data() + ext + 20, 4);
  return cache.substr(off, size);
}

std::string describe(const std::string& cache) {
  auto recs = parse_ldcache(cache);
  if (!recs) return recs.error().message();
  std::string out;
  for (const auto& r : *recs)
    out += fmt::format("{} {:#x} {:#x} {}\n", r.key, r.flags, r.hwcap, r.path);
  return out;
}

// Builds the tree twice, runs both writers, compares.
void expect_same_as_ldconfig(const std::function<void(const Tree&)>& build,
                             const std::vector<std::string>& folders) {
  ASSERT_EQ(::access("/sbin/ldconfig", X_OK), 0) << "the oracle needs the host's /sbin/ldconfig";
  nvct::testing::TempDir tmp;
  Tree a{tmp / "oracle"}, b{tmp / "native"};
  build(a);
  build(b);
  ASSERT_EQ(run_host_ldconfig(a.root, folders), 0);
  std::string want = slurp(a.root + "/etc/ld.so.cache");
  ASSERT_FALSE(want.empty());
  auto root = Root::open(b.root);
  ASSERT_TRUE(root) << root.error().message();
  LdcacheScanOptions o;
  o.folders = folders;
  auto done = update_ldcache_in_process(*root, o, generator_of(want));
  ASSERT_TRUE(done) << done.error().message();
  std::string got = slurp(b.root + "/etc/ld.so.cache");
  EXPECT_EQ(describe(got), describe(want));
  // NVCT_LDCACHE_DUMP=PREFIX keeps both files of a mismatch (PREFIX.got, PREFIX.want).
  if (got != want && std::getenv("NVCT_LDCACHE_DUMP")) {
    spit(std::string(std::getenv("NVCT_LDCACHE_DUMP")) + ".got", got);
    spit(std::string(std::getenv("NVCT_LDCACHE_DUMP")) + ".want", want);
  }
  EXPECT_TRUE(got == want) << "byte difference with equal entries: sizes " << got.size() << " and "
                           << want.size();
  EXPECT_EQ(listing(b.root), listing(a.root));
  struct stat st {};
  ASSERT_EQ(::stat((b.root + "/etc/ld.so.cache").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644);
  EXPECT_NE(::access((b.root + "/etc/ld.so.cache~").c_str(), F_OK), 0);
}

// Debian 12 layout: merged /usr, multiarch dirs, the stock ld.so.conf(.d).
void debian_base(const Tree& t) {
  t.dir("usr/lib/x86_64-linux-gnu");
  t.dir("usr/lib64");
  t.dir("usr/local/lib");
  t.link("usr/lib", "lib");
  t.link("usr/lib64", "lib64");
  t.file("etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n\n");
  t.file("etc/ld.so.conf.d/libc.conf", "# libc default configuration\n/usr/local/lib\n");
  t.file("etc/ld.so.conf.d/x86_64-linux-gnu.conf",
         "# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n"
         "/usr/lib/x86_64-linux-gnu\n");
  const std::string lib = "usr/lib/x86_64-linux-gnu/";
  for (const char* f : {"libc.so.6", "libm.so.6", "libz.so.1", "libgcc_s.so.1"}) {
    std::string host = std::string("/lib/x86_64-linux-gnu/") + f;
    if (::access(host.c_str(), R_OK) == 0) t.copy_host(fs::canonical(host).string(), lib + f);
  }
  t.copy_host(fs::canonical("/lib64/ld-linux-x86-64.so.2").string(), lib + "ld-linux-x86-64.so.2");
  t.link("../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "usr/lib64/ld-linux-x86-64.so.2");
  // Versioned files with their soname and development links.
  t.lib(lib + "libfoo.so.1.2.3", spec("libfoo.so.1", {"libc.so.6"}));
  t.link("libfoo.so.1.2.3", lib + "libfoo.so.1");
  t.link("libfoo.so.1", lib + "libfoo.so");
  t.lib(lib + "libbar.so.2.0", spec("libbar.so.2"));  // link created by the writer
  t.lib(lib + "libbar.so.2.1", spec("libbar.so.2"));  // the newer one wins
  t.lib(lib + "libnosoname.so", spec(""));
  t.lib(lib + "libexe.so.1", spec("libexe.so.1", {}, true, ET_EXEC));
  t.file(lib + "libtext.so.1", "not an ELF file at all, long enough to be looked at by ldconfig\n");
  t.file(lib + "libempty.so.1", "");
  t.link("libgone.so.9.9", lib + "libgone.so.9");                            // dangling: removed
  t.link("/usr/lib/x86_64-linux-gnu/libfoo.so.1.2.3", lib + "libabs.so.1");  // absolute, in-root
  t.file(lib + "notalib.txt", "x");
}

// The mock driver's files as the hook mounts them: versioned files, some soname links.
void driver_libs(const Tree& t, const std::string& dir, bool is64) {
  const char* version = "550.54.14";
  for (const char* name :
       {"libcuda", "libnvidia-ml", "libnvidia-ptxjitcompiler", "libnvidia-nvvm", "libcudadebugger",
        "libnvidia-opencl", "libnvidia-gpucomp", "libnvidia-allocator", "libnvidia-cfg"}) {
    std::string file = fmt::format("{}/{}.so.{}", dir, name, version);
    std::string soname = fmt::format("{}.so.1", name);
    t.lib(file, spec(soname, {"libm.so.6", "libc.so.6"}, is64));
  }
  t.link(fmt::format("libcuda.so.{}", version), dir + "/libcuda.so.1");
  t.link("libcuda.so.1", dir + "/libcuda.so");
}

TEST(LdcacheOracle, DebianRootfsWithDriverLibs) {
  expect_same_as_ldconfig(
      [](const Tree& t) {
        debian_base(t);
        driver_libs(t, "usr/lib/x86_64-linux-gnu", true);
      },
      {"/usr/lib/x86_64-linux-gnu"});
}

TEST(LdcacheOracle, UbuntuLikeLib64AndDuplicateDirs) {
  expect_same_as_ldconfig(
      [](const Tree& t) {
        debian_base(t);
        t.file("etc/ld.so.conf.d/zz-lib64.conf", "/usr/lib64/\n/usr/lib64\n/lib64\n");
        driver_libs(t, "usr/lib64", true);
        // The same soname in two dirs: both entries, in directory order.
        t.lib("usr/local/lib/libfoo.so.1.0", spec("libfoo.so.1"));
      },
      {"/usr/lib64", "/usr/lib/x86_64-linux-gnu"});
}

TEST(LdcacheOracle, GlibcHwcapsSubdirectories) {
  expect_same_as_ldconfig(
      [](const Tree& t) {
        debian_base(t);
        driver_libs(t, "usr/lib/x86_64-linux-gnu", true);
        const std::string h = "usr/lib/x86_64-linux-gnu/glibc-hwcaps/";
        t.lib(h + "x86-64-v3/libfoo.so.1.2.3", spec("libfoo.so.1"));
        t.lib(h + "x86-64-v2/libfoo.so.1.2.3", spec("libfoo.so.1"));
        t.lib(h + "x86-64-v2/libzap.so.4.0", spec("libzap.so.4"));
        t.dir(h + "x86-64-v4");  // no library: named in the string table only
        t.file(h + "README", "a regular file is skipped\n");
      },
      {"/usr/lib/x86_64-linux-gnu"});
}

TEST(LdcacheOracle, ThirtyTwoBitLibraries) {
  expect_same_as_ldconfig(
      [](const Tree& t) {
        debian_base(t);
        driver_libs(t, "usr/lib/x86_64-linux-gnu", true);
        driver_libs(t, "usr/lib/i386-linux-gnu", false);
        t.file("etc/ld.so.conf.d/i386-linux-gnu.conf", "/usr/lib/i386-linux-gnu\n");
        t.lib("usr/lib32/libold.so.3", spec("libold.so.3", {}, false));
      },
      {"/usr/lib/x86_64-linux-gnu", "/usr/lib/i386-linux-gnu", "/usr/lib32"});
}

TEST(LdcacheOracle, LdSoConfIncludesCommentsAndOddLines) {
  expect_same_as_ldconfig(
      [](const Tree& t) {
        debian_base(t);
        driver_libs(t, "usr/lib/x86_64-linux-gnu", true);
        t.file("etc/ld.so.conf",
               "include /etc/ld.so.conf.d/*.conf\n"
               "   /opt/a/lib   # comment after a dir\n"
               "include more.d/*.conf extra.conf\n"
               "hwcap 1 foo\n"
               "/opt/missing\n"
               "/opt/b/lib/\n");
        t.file("etc/more.d/1.conf", "/opt/c/lib\ninclude /etc/nested.conf\n");
        t.file("etc/more.d/.hidden.conf", "/opt/hidden\n");
        t.file("etc/more.d/2.txt", "/opt/txt\n");
        t.file("etc/nested.conf", "/opt/nested\n");
        t.file("etc/extra.conf", "/opt/extra\n");
        for (const char* d : {"opt/a/lib", "opt/b/lib", "opt/c/lib", "opt/hidden", "opt/txt",
                              "opt/nested", "opt/extra"}) {
          std::string base = fs::path(d).parent_path().filename().string();
          if (base.empty() || base == "opt") base = fs::path(d).filename().string();
          t.lib(std::string(d) + "/lib" + base + ".so.1.0", spec("lib" + base + ".so.1"));
        }
      },
      {"/usr/lib/x86_64-linux-gnu"});
}

TEST(LdcacheScan, SymlinkedDirLeavingTheRootStaysInside) {
  nvct::testing::TempDir tmp;
  Tree outside{tmp / "outside"}, t{tmp / "rootfs"};
  outside.lib("lib/libevil.so.1", spec("libevil.so.1"));
  debian_base(t);
  t.link(outside.root + "/lib", "opt/escape");  // absolute: resolved inside the rootfs
  t.file("etc/ld.so.conf.d/escape.conf", "/opt/escape\n");
  auto root = Root::open(t.root);
  ASSERT_TRUE(root);
  auto scan = scan_ldcache(*root, {});
  ASSERT_TRUE(scan) << scan.error().message();
  for (const auto& e : scan->entries) EXPECT_NE(e.key, "libevil.so.1") << e.path;
}

TEST(LdcacheScan, LegacyHwcapDirectoryIsNotModelled) {
  nvct::testing::TempDir tmp;
  Tree t{tmp / "rootfs"};
  debian_base(t);
  t.lib("usr/lib/x86_64-linux-gnu/tls/libfoo.so.1", spec("libfoo.so.1"));
  auto root = Root::open(t.root);
  ASSERT_TRUE(root);
  auto scan = scan_ldcache(*root, {});
  ASSERT_FALSE(scan);
  EXPECT_EQ(scan.error().code(), ENOTSUP);
}

TEST(LdcacheScan, SelfIncludingConfigFailsWithTheFile) {
  nvct::testing::TempDir tmp;
  Tree t{tmp / "rootfs"};
  debian_base(t);
  t.file("etc/ld.so.conf", "include /etc/ld.so.conf\n");
  auto root = Root::open(t.root);
  ASSERT_TRUE(root);
  auto scan = scan_ldcache(*root, {});
  ASSERT_FALSE(scan);
  EXPECT_EQ(scan.error().code(), ELOOP);
  EXPECT_NE(scan.error().message().find("/etc/ld.so.conf"), std::string::npos);
}

TEST(LdcacheWrite, CacheSymlinkedOutsideIsReplacedNotFollowed) {
  nvct::testing::TempDir tmp;
  Tree t{tmp / "rootfs"};
  t.dir("etc");
  spit(tmp / "victim", "keep");
  t.link(tmp / "victim", "etc/ld.so.cache~");
  t.link(tmp / "victim", "etc/ld.so.cache");
  auto root = Root::open(t.root);
  ASSERT_TRUE(root);
  ASSERT_TRUE(write_ldcache_file(*root, "/etc/ld.so.cache", "data"));
  EXPECT_EQ(slurp(tmp / "victim"), "keep");
  EXPECT_EQ(slurp(t.root + "/etc/ld.so.cache"), "data");
  EXPECT_FALSE(fs::is_symlink(t.root + "/etc/ld.so.cache"));
}

// Checklist #39 (create storm): hooks of containers that share a rootfs write its ld.so.cache at
// the same moment. With a fixed "<cache>~" temp name one writer removed or renamed the other's
// file ("install /etc/ld.so.cache in the container: No such file or directory", or EEXIST).
// Every writer must succeed, the cache must be one writer's complete content, and no temp file
// may stay behind.
TEST(LdcacheWrite, ConcurrentWritersInOneRootfsAllSucceed) {
  nvct::testing::TempDir tmp;
  Tree t{tmp / "rootfs"};
  t.dir("etc");
  constexpr int kWriters = 6;
  constexpr int kRounds = 150;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto root = Root::open(t.root);
      if (!root) ::_exit(2);
      std::string content(32 * 1024, static_cast<char>('a' + w));
      for (int i = 0; i < kRounds; ++i)
        if (!write_ldcache_file(*root, "/etc/ld.so.cache", content)) ::_exit(1);
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed: " << status;
  }
  std::string got = slurp(t.root + "/etc/ld.so.cache");
  ASSERT_EQ(got.size(), 32u * 1024);
  EXPECT_EQ(got, std::string(got.size(), got[0])) << "a torn cache";
  std::string left;
  for (const auto& e : fs::directory_iterator(t.root + "/etc"))
    if (e.path().filename() != "ld.so.cache") left += e.path().filename().string() + " ";
  EXPECT_EQ(left, "") << "temp files left behind";
}

TEST(LdcacheWrite, StaleTempFileOfADeadWriterIsRemoved) {
  nvct::testing::TempDir tmp;
  Tree t{tmp / "rootfs"};
  t.dir("etc");
  pid_t dead = ::fork();
  ASSERT_GE(dead, 0);
  if (dead == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(dead, nullptr, 0), dead);
  std::string stale = fmt::format("{}/etc/.ld.so.cache.{}-AbC123", t.root, dead);
  spit(stale, "half");
  auto root = Root::open(t.root);
  ASSERT_TRUE(root);
  ASSERT_TRUE(write_ldcache_file(*root, "/etc/ld.so.cache", "data"));
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_EQ(slurp(t.root + "/etc/ld.so.cache"), "data");
}

}  // namespace
}  // namespace nvct::mount
