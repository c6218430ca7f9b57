#include "nvct/driver/facts_cache.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <thread>

#include "nvct/driver/nvml_process.hpp"
#include "nvct/testing/temp_dir.hpp"
#include "synthetic_root.hpp"

namespace nvct::driver {
namespace {

namespace fs = std::filesystem;
constexpr const char* kLibDir = "/usr/lib/x86_64-linux-gnu";
constexpr const char* kNvmlLib = "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1";
constexpr const char* kVersion =
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n";

NvmlFacts two_gpus() {
  NvmlFacts f;
  f.driver_version = "550.54.14";
  f.cuda_version = "12.4";
  NvmlGpu a;
  a.minor = 2;
  a.uuid = "GPU-11111111-2222-3333-4444-555555555550";
  a.name = "NVIDIA H100 80GB HBM3";
  a.bus_id = "00000000:18:00.0";
  a.brand = 14;
  a.cc_major = 9;
  NvmlGpu b = a;
  b.minor = 0;
  b.uuid = "GPU-11111111-2222-3333-4444-555555555551";
  b.bus_id = "00000000:2a:00.0";
  f.gpus = {a, b};
  return f;
}

std::string text(const NvmlFacts& f) { return encode_nvml_result(f); }

class FactsCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_.library(kLibDir, "libnvidia-ml.so.550.54.14", "libnvidia-ml.so.1");
    root_.file("/proc/driver/nvidia/version", kVersion);
    root_.file("/proc/driver/nvidia/gpus/0000:18:00.0/information", "x");
    root_.file("/proc/driver/nvidia/gpus/0000:2a:00.0/information", "x");
    host_.write("proc/sys/kernel/random/boot_id", "6f1c1a1e-0000-4000-8000-000000000001\n");
    options_.dir = cache_.path() + "/cache";
    options_.host_proc = host_ / "proc";
  }

  DriverRoot open_root() const { return *DriverRoot::open(root_.path()); }
  FactsCacheKey key() const { return *facts_cache_key(open_root(), kNvmlLib, options_); }
  std::string cache_file() const {
    return options_.dir + "/" + facts_cache_file_name(root_.path());
  }

  // Two queries both ask NVML, no file is written, and writing `facts_` is refused.
  void expect_never_cached() {
    auto q = cached_nvml_query(counting_query(), options_);
    ASSERT_TRUE(q(open_root(), kNvmlLib));
    ASSERT_TRUE(q(open_root(), kNvmlLib));
    EXPECT_EQ(calls_, 2);
    EXPECT_FALSE(fs::exists(cache_file()));
    EXPECT_FALSE(write_facts_cache(options_, key(), *facts_));
  }

  // A query that counts its calls and returns `facts_`.
  NvmlQuery counting_query() {
    return [this](const DriverRoot&, const std::string&) -> Result<NvmlFacts> {
      ++calls_;
      return facts_;
    };
  }

  testing::SyntheticRoot root_;
  nvct::testing::TempDir host_, cache_;
  FactsCacheOptions options_;
  Result<NvmlFacts> facts_ = two_gpus();
  int calls_ = 0;
};

TEST_F(FactsCacheTest, KeyHoldsVersionGpusBootIdAndLibraryIdentity) {
  auto k = key();
  EXPECT_EQ(k.root, root_.path());
  EXPECT_EQ(k.version, kVersion);
  EXPECT_EQ(k.gpus, "0000:18:00.0,0000:2a:00.0");
  EXPECT_EQ(k.boot_id, "6f1c1a1e-0000-4000-8000-000000000001\n");
  EXPECT_EQ(k.library, kNvmlLib);
  struct stat st {};
  ASSERT_EQ(::stat((root_ / "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.14").c_str(), &st), 0);
  EXPECT_EQ(k.library_id.ino, st.st_ino);
  EXPECT_EQ(k.library_id.size, st.st_size);
}

TEST_F(FactsCacheTest, KeyChangesWithEachInput) {
  const auto before = key();
  root_.file("/proc/driver/nvidia/version",
             "NVRM version: NVIDIA UNIX x86_64 Kernel Module  555.1.2\n");
  EXPECT_NE(key(), before) << "driver version";
  root_.file("/proc/driver/nvidia/version", kVersion);
  EXPECT_EQ(key(), before);

  root_.file("/proc/driver/nvidia/gpus/0000:3a:00.0/information", "x");
  EXPECT_NE(key(), before) << "a GPU bound to the driver";
  fs::remove_all(root_ / "proc/driver/nvidia/gpus/0000:3a:00.0");
  EXPECT_EQ(key(), before);

  host_.write("proc/sys/kernel/random/boot_id", "6f1c1a1e-0000-4000-8000-000000000002\n");
  EXPECT_NE(key(), before) << "host boot id";
  host_.write("proc/sys/kernel/random/boot_id", "6f1c1a1e-0000-4000-8000-000000000001\n");
  root_.file("/proc/sys/kernel/random/boot_id", "root-copy\n");
  EXPECT_NE(key(), before) << "the driver root's boot id";
  fs::remove(root_ / "proc/sys/kernel/random/boot_id");

  if (::geteuid() == 0) {  // mknod needs CAP_MKNOD; the node is inside the temp root
    fs::create_directories(root_ / "dev");
    ASSERT_EQ(::mknod((root_ / "dev/nvidiactl").c_str(), S_IFCHR | 0666, makedev(195, 255)), 0);
    EXPECT_EQ(key().control_node, "195:255");
    EXPECT_NE(key(), before) << "/dev/nvidiactl appeared";
    fs::remove(root_ / "dev/nvidiactl");
    EXPECT_EQ(key(), before);
  }

  // MIG folders, under the root and (the root is not /) on the host: the folder of a MIG-capable
  // GPU, then each GPU instance and compute instance made or removed.
  for (const fs::path& proc : std::vector<fs::path>{root_ / "proc", host_ / "proc"}) {
    const fs::path mig = proc / "driver/nvidia/capabilities/gpu0/mig";
    fs::create_directories(mig);
    auto with_folder = key();
    EXPECT_NE(with_folder, before) << mig;
    fs::create_directories(mig / "gi1");
    EXPECT_NE(key(), with_folder) << "a GPU instance in " << mig;
    auto with_gi = key();
    fs::create_directories(mig / "gi1/ci0");
    EXPECT_NE(key(), with_gi) << "a compute instance in " << mig;
    fs::remove_all(mig / "gi1");
    EXPECT_EQ(key(), with_folder);
    fs::remove_all(proc / "driver/nvidia/capabilities");
    EXPECT_EQ(key(), before);
  }
  fs::create_directories(host_ / "proc/driver/nvidia/capabilities/gpu0/mig/gi1/ci0");
  EXPECT_EQ(key().host_mig, "gpu0/mig,gpu0/mig/gi1,gpu0/mig/gi1/ci0");
  EXPECT_EQ(key().mig, "");
  fs::remove_all(host_ / "proc/driver/nvidia/capabilities");

  // A new library file (a driver update replaces it: new inode).
  std::string lib = root_ / "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.14";
  fs::copy_file(lib, lib + ".new");
  fs::rename(lib + ".new", lib);
  EXPECT_NE(key(), before) << "library identity";
}

TEST_F(FactsCacheTest, NoKeyWithoutADriverVersionOrLibrary) {
  fs::remove(root_ / "proc/driver/nvidia/version");
  auto k = facts_cache_key(open_root(), kNvmlLib, options_);
  ASSERT_FALSE(k);
  EXPECT_NE(k.error().message().find("no driver loaded"), std::string::npos);
  root_.file("/proc/driver/nvidia/version", kVersion);
  EXPECT_FALSE(facts_cache_key(open_root(), "/usr/lib/libnvidia-ml.so.9", options_));
  fs::remove(host_ / "proc/sys/kernel/random/boot_id");
  EXPECT_FALSE(facts_cache_key(open_root(), kNvmlLib, options_));
}

TEST_F(FactsCacheTest, FileNameIsStablePerRoot) {
  EXPECT_EQ(facts_cache_file_name("/"), facts_cache_file_name("/"));
  EXPECT_NE(facts_cache_file_name("/"), facts_cache_file_name("/run/nvidia/driver"));
  EXPECT_EQ(facts_cache_file_name("/").size(),
            std::string("driver-facts-0123456789abcdef.json").size());
}

TEST_F(FactsCacheTest, RoundTripsExactlyWithRootOnlyModes) {
  ASSERT_TRUE(write_facts_cache(options_, key(), two_gpus()));
  struct stat st {};
  ASSERT_EQ(::stat(options_.dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  ASSERT_EQ(::stat(cache_file().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  auto back = read_facts_cache(options_, key());
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(text(*back), text(two_gpus()));
  // Nothing else is left in the directory (no temp file).
  EXPECT_EQ(std::distance(fs::directory_iterator(options_.dir), fs::directory_iterator()), 1);
}

TEST_F(FactsCacheTest, SecondQueryIsServedFromTheCache) {
  auto q = cached_nvml_query(counting_query(), options_);
  auto first = q(open_root(), kNvmlLib);
  auto second = q(open_root(), kNvmlLib);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(calls_, 1);
  EXPECT_EQ(text(*second), text(*first));
}

TEST_F(FactsCacheTest, ADriverChangeInvalidatesAndRewrites) {
  auto q = cached_nvml_query(counting_query(), options_);
  ASSERT_TRUE(q(open_root(), kNvmlLib));
  root_.file("/proc/driver/nvidia/version",
             "NVRM version: NVIDIA UNIX x86_64 Kernel Module  555.1.2\n");
  facts_->driver_version = "555.1.2";
  auto after = q(open_root(), kNvmlLib);
  ASSERT_TRUE(after);
  EXPECT_EQ(calls_, 2);
  EXPECT_EQ(after->driver_version, "555.1.2");
  ASSERT_TRUE(q(open_root(), kNvmlLib));
  EXPECT_EQ(calls_, 2) << "the rewritten file answers the next query";
  auto stored = read_facts_cache(options_, key());
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->driver_version, "555.1.2");
}

TEST_F(FactsCacheTest, StaleKeyIsRefused) {
  auto old = key();
  ASSERT_TRUE(write_facts_cache(options_, old, two_gpus()));
  host_.write("proc/sys/kernel/random/boot_id", "rebooted\n");
  auto r = read_facts_cache(options_, key());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ESTALE);
}

// decode_facts_cache compares every field of the key: a file written under any other value of
// one field is stale.
TEST_F(FactsCacheTest, EveryKeyFieldIsCompared) {
  const FactsCacheKey k = key();
  const std::string file = encode_facts_cache(k, two_gpus());
  ASSERT_TRUE(decode_facts_cache(file, k));
  std::vector<std::pair<const char*, void (*)(FactsCacheKey&)>> changes = {
      {"root", [](FactsCacheKey& x) { x.root += "x"; }},
      {"boot_id", [](FactsCacheKey& x) { x.boot_id += "x"; }},
      {"root_boot_id", [](FactsCacheKey& x) { x.root_boot_id += "x"; }},
      {"version", [](FactsCacheKey& x) { x.version += "x"; }},
      {"host_version", [](FactsCacheKey& x) { x.host_version += "x"; }},
      {"gpus", [](FactsCacheKey& x) { x.gpus += "x"; }},
      {"host_gpus", [](FactsCacheKey& x) { x.host_gpus += "x"; }},
      {"mig", [](FactsCacheKey& x) { x.mig += "x"; }},
      {"host_mig", [](FactsCacheKey& x) { x.host_mig += "x"; }},
      {"control_node", [](FactsCacheKey& x) { x.control_node += "x"; }},
      {"library", [](FactsCacheKey& x) { x.library += "x"; }},
      {"dev", [](FactsCacheKey& x) { x.library_id.dev += 1; }},
      {"ino", [](FactsCacheKey& x) { x.library_id.ino += 1; }},
      {"size", [](FactsCacheKey& x) { x.library_id.size += 1; }},
      {"mtime_s", [](FactsCacheKey& x) { x.library_id.mtime_s += 1; }},
      {"mtime_ns", [](FactsCacheKey& x) { x.library_id.mtime_ns += 1; }},
      {"ctime_s", [](FactsCacheKey& x) { x.library_id.ctime_s += 1; }},
      {"ctime_ns", [](FactsCacheKey& x) { x.library_id.ctime_ns += 1; }},
  };
  for (const auto& [name, change] : changes) {
    FactsCacheKey other = k;
    change(other);
    auto r = decode_facts_cache(file, other);
    ASSERT_FALSE(r) << name;
    EXPECT_EQ(r.error().code(), ESTALE) << name;
  }
}

// A MIG-capable GPU is cached only while its MIG state is visible and off: the driver shows every
// GPU/compute instance as a folder under capabilities/gpu<minor>/mig, which is in the key.
TEST_F(FactsCacheTest, MigCapableGpuWithoutItsMigFolderIsNeverCached) {
  facts_->gpus[1].mig_capable = true;
  expect_never_cached();
  // The folder of another GPU (minor 2) does not make minor 0's state visible.
  fs::create_directories(host_ / "proc/driver/nvidia/capabilities/gpu2/mig");
  EXPECT_FALSE(facts_cacheable(*facts_, key()));
  // The folder under the driver root (a mock root's procfs) or on the host (a driver container's
  // root: the kernel's procfs is the host's) makes it visible; both listings are in the key.
  fs::create_directories(root_ / "proc/driver/nvidia/capabilities/gpu0/mig");
  EXPECT_TRUE(facts_cacheable(*facts_, key()));
  fs::remove_all(root_ / "proc/driver/nvidia/capabilities");
  EXPECT_FALSE(facts_cacheable(*facts_, key()));
  fs::create_directories(host_ / "proc/driver/nvidia/capabilities/gpu0/mig");
  EXPECT_TRUE(facts_cacheable(*facts_, key()));
}

TEST_F(FactsCacheTest, MigCapableGpuWithMigOffIsCachedUntilAnInstanceAppears) {
  const fs::path mig = host_ / "proc/driver/nvidia/capabilities/gpu0/mig";
  fs::create_directories(mig);
  facts_->gpus[1].mig_capable = true;  // minor 0
  auto q = cached_nvml_query(counting_query(), options_);
  ASSERT_TRUE(q(open_root(), kNvmlLib));
  auto hit = q(open_root(), kNvmlLib);
  ASSERT_TRUE(hit);
  EXPECT_EQ(calls_, 1) << "MIG off and visible: the second query is served from the file";
  EXPECT_TRUE(hit->gpus[1].mig_capable);
  EXPECT_EQ(text(*hit), text(*facts_));

  // MIG turned on and an instance made: the key no longer matches, NVML is asked, and its answer
  // (MIG on, one MIG device) is not written.
  fs::create_directories(mig / "gi1/ci0");
  facts_->gpus[1].mig_enabled = true;
  NvmlMigDevice m;
  m.uuid = "MIG-11111111-2222-3333-4444-555555555559";
  facts_->gpus[1].migs.push_back(m);
  auto on = q(open_root(), kNvmlLib);
  ASSERT_TRUE(on);
  EXPECT_EQ(calls_, 2);
  EXPECT_EQ(on->gpus[1].migs.size(), 1u);
  ASSERT_TRUE(q(open_root(), kNvmlLib));
  EXPECT_EQ(calls_, 3) << "MIG on: NVML at every query";

  // The instance removed: the folder is as when the file was written, and so are the facts that
  // the edits use (no MIG devices); the file answers again.
  fs::remove_all(mig / "gi1");
  auto back = q(open_root(), kNvmlLib);
  ASSERT_TRUE(back);
  EXPECT_EQ(calls_, 3);
  EXPECT_TRUE(back->gpus[1].migs.empty());
}

TEST_F(FactsCacheTest, MigOnOrMigDevicesAreNeverCached) {
  fs::create_directories(host_ / "proc/driver/nvidia/capabilities/gpu0/mig");
  facts_->gpus[1].mig_capable = true;
  facts_->gpus[1].mig_enabled = true;  // on, no instances yet
  expect_never_cached();
  NvmlFacts devices = two_gpus();
  devices.gpus[1].mig_capable = true;
  devices.gpus[1].migs.emplace_back();
  EXPECT_FALSE(facts_cacheable(devices, key()));

  // Files claiming what we never write are refused on read: MIG on; a MIG-capable GPU whose
  // folder is not in the key.
  NvmlFacts off = two_gpus();
  off.gpus[1].mig_capable = true;
  auto forged_on = encode_facts_cache(key(), off);
  auto pos = forged_on.find("\"mig_enabled\":false");
  ASSERT_NE(pos, std::string::npos);
  forged_on.replace(pos, 19, "\"mig_enabled\":true ");
  EXPECT_FALSE(decode_facts_cache(forged_on, key()));
  EXPECT_TRUE(decode_facts_cache(encode_facts_cache(key(), off), key()));
  fs::remove_all(host_ / "proc/driver/nvidia/capabilities");
  auto hidden = decode_facts_cache(encode_facts_cache(key(), off), key());
  ASSERT_FALSE(hidden);
  EXPECT_EQ(hidden.error().code(), EINVAL);
}

TEST_F(FactsCacheTest, QueryErrorsAreNotCached) {
  facts_ = fail(EIO, "nvml error: Driver Not Loaded");
  auto q = cached_nvml_query(counting_query(), options_);
  EXPECT_FALSE(q(open_root(), kNvmlLib));
  EXPECT_FALSE(q(open_root(), kNvmlLib));
  EXPECT_EQ(calls_, 2);
  EXPECT_FALSE(fs::exists(cache_file()));
}

TEST_F(FactsCacheTest, DisabledCacheIsTheInnerQuery) {
  options_.dir.clear();
  auto q = cached_nvml_query(counting_query(), options_);
  ASSERT_TRUE(q(open_root(), kNvmlLib));
  ASSERT_TRUE(q(open_root(), kNvmlLib));
  EXPECT_EQ(calls_, 2);
}

// Each hostile file is refused (the query runs) and replaced by a fresh, safe one.
class HostileFactsCacheTest : public FactsCacheTest {
 protected:
  void expect_refused_then_replaced(int code, const std::string& what) {
    auto r = read_facts_cache(options_, key());
    ASSERT_FALSE(r) << what;
    EXPECT_EQ(r.error().code(), code) << what << ": " << r.error().message();
    auto q = cached_nvml_query(counting_query(), options_);
    ASSERT_TRUE(q(open_root(), kNvmlLib)) << what;
    EXPECT_EQ(calls_, 1) << what;
    struct stat st {};
    ASSERT_EQ(::lstat(cache_file().c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode)) << what;
    EXPECT_EQ(st.st_mode & 07777, 0600u) << what;
    EXPECT_EQ(st.st_uid, ::geteuid()) << what;
    EXPECT_TRUE(read_facts_cache(options_, key())) << what;
  }
  void write_good() { ASSERT_TRUE(write_facts_cache(options_, key(), two_gpus())); }
};

TEST_F(HostileFactsCacheTest, WorldWritableFile) {
  write_good();
  ::chmod(cache_file().c_str(), 0666);
  expect_refused_then_replaced(EPERM, "world-writable");
}

TEST_F(HostileFactsCacheTest, GroupWritableFile) {
  write_good();
  ::chmod(cache_file().c_str(), 0620);
  expect_refused_then_replaced(EPERM, "group-writable");
}

TEST_F(HostileFactsCacheTest, Symlink) {
  write_good();
  std::string target = cache_.path() + "/elsewhere.json";
  fs::rename(cache_file(), target);
  fs::create_symlink(target, cache_file());
  expect_refused_then_replaced(ELOOP, "symlink");
  EXPECT_TRUE(fs::exists(target)) << "the symlink's target is left alone";
}

TEST_F(HostileFactsCacheTest, WrongOwner) {
  if (::geteuid() != 0) GTEST_SKIP() << "chown needs root";
  write_good();
  ASSERT_EQ(::chown(cache_file().c_str(), 12345, 12345), 0);
  expect_refused_then_replaced(EPERM, "wrong owner");
}

TEST_F(HostileFactsCacheTest, HardLink) {
  write_good();
  fs::create_hard_link(cache_file(), cache_.path() + "/link.json");
  expect_refused_then_replaced(EPERM, "second link");
}

TEST_F(HostileFactsCacheTest, Garbage) {
  write_good();
  cache_.write("cache/" + facts_cache_file_name(root_.path()),
               "{\"format\":1,\"key\":[[[[[[[[[[[[");
  ::chmod(cache_file().c_str(), 0600);
  expect_refused_then_replaced(EINVAL, "garbage");
}

TEST_F(HostileFactsCacheTest, Huge) {
  write_good();
  cache_.write("cache/" + facts_cache_file_name(root_.path()),
               std::string(kMaxFactsCacheSize + 1, ' '));
  ::chmod(cache_file().c_str(), 0600);
  expect_refused_then_replaced(EFBIG, "huge");
}

TEST_F(HostileFactsCacheTest, Fifo) {
  ASSERT_EQ(::mkdir(options_.dir.c_str(), 0700), 0);
  ASSERT_EQ(::mkfifo(cache_file().c_str(), 0600), 0);
  expect_refused_then_replaced(EPERM, "FIFO");
}

TEST_F(HostileFactsCacheTest, InvalidFactsWithAMatchingKey) {
  NvmlFacts bad = two_gpus();
  bad.gpus[0].bus_id = "../../etc";
  auto text = encode_facts_cache(key(), bad);
  auto r = decode_facts_cache(text, key());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), EINVAL);
  bad = two_gpus();
  bad.gpus[1].minor = bad.gpus[0].minor;
  EXPECT_FALSE(decode_facts_cache(encode_facts_cache(key(), bad), key()));
  bad = two_gpus();
  bad.gpus.resize(kMaxGpus + 1, bad.gpus[0]);
  EXPECT_FALSE(decode_facts_cache(encode_facts_cache(key(), bad), key()));
}

TEST_F(HostileFactsCacheTest, UnsafeDirectoryIsNeitherReadNorWritten) {
  write_good();
  ::chmod(options_.dir.c_str(), 0777);
  auto r = read_facts_cache(options_, key());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), EPERM);
  EXPECT_FALSE(write_facts_cache(options_, key(), two_gpus()));
  auto q = cached_nvml_query(counting_query(), options_);
  ASSERT_TRUE(q(open_root(), kNvmlLib));
  ASSERT_TRUE(q(open_root(), kNvmlLib));
  EXPECT_EQ(calls_, 2);
}

TEST_F(HostileFactsCacheTest, SymlinkedDirectoryIsRefused) {
  std::string real = cache_.path() + "/real";
  ASSERT_EQ(::mkdir(real.c_str(), 0700), 0);
  fs::create_symlink(real, options_.dir);
  EXPECT_FALSE(write_facts_cache(options_, key(), two_gpus()));
  EXPECT_TRUE(fs::is_empty(real));
}

// Writers replace the file while a reader reads it: every read sees one whole file.
TEST_F(FactsCacheTest, ConcurrentWritersNeverShowATornFile) {
  NvmlFacts a = two_gpus(), b = two_gpus();
  b.gpus[0].name = std::string(200, 'b');
  const auto k = key();
  ASSERT_TRUE(write_facts_cache(options_, k, a));
  std::atomic<bool> stop{false};
  std::vector<std::thread> writers;
  for (int w = 0; w < 2; ++w)
    writers.emplace_back([&, w] {
      for (int i = 0; i < 150; ++i) (void)write_facts_cache(options_, k, (i + w) % 2 ? a : b);
    });
  int reads = 0;
  std::thread reader([&] {
    while (!stop) {
      auto r = read_facts_cache(options_, k);
      ASSERT_TRUE(r) << r.error().message();
      EXPECT_TRUE(text(*r) == text(a) || text(*r) == text(b));
      ++reads;
    }
  });
  for (auto& t : writers) t.join();
  stop = true;
  reader.join();
  EXPECT_GT(reads, 0);
  EXPECT_EQ(std::distance(fs::directory_iterator(options_.dir), fs::directory_iterator()), 1)
      << "temp files left behind";
}

TEST_F(FactsCacheTest, FilesOfRootsThatAreGoneArePrunedOnWrite) {
  FactsCacheKey gone = key(), alive = key();
  gone.root = cache_.path() + "/gone-root";
  alive.root = host_.path();
  ASSERT_EQ(::mkdir(gone.root.c_str(), 0700), 0);
  ASSERT_TRUE(write_facts_cache(options_, gone, two_gpus()));
  ASSERT_TRUE(write_facts_cache(options_, alive, two_gpus()));
  std::string gone_file = options_.dir + "/" + facts_cache_file_name(gone.root);
  ASSERT_TRUE(fs::exists(gone_file));
  ASSERT_EQ(::rmdir(gone.root.c_str()), 0);
  ASSERT_TRUE(write_facts_cache(options_, key(), two_gpus()));
  EXPECT_FALSE(fs::exists(gone_file));
  EXPECT_TRUE(fs::exists(options_.dir + "/" + facts_cache_file_name(alive.root)));
  EXPECT_TRUE(fs::exists(cache_file()));
}

TEST(FactsCacheOptions, FromEnvironment) {
  ::unsetenv("NVCT_DRIVER_FACTS_CACHE_DIR");
  EXPECT_EQ(facts_cache_options_from_env().dir, "/run/nvidia-container-toolkit");
  ::setenv("NVCT_DRIVER_FACTS_CACHE_DIR", "", 1);
  EXPECT_EQ(facts_cache_options_from_env().dir, "");
  ::setenv("NVCT_DRIVER_FACTS_CACHE_DIR", "relative/dir", 1);
  EXPECT_EQ(facts_cache_options_from_env().dir, "");
  ::setenv("NVCT_DRIVER_FACTS_CACHE_DIR", "/tmp/x", 1);
  EXPECT_EQ(facts_cache_options_from_env().dir, "/tmp/x");
  ::unsetenv("NVCT_DRIVER_FACTS_CACHE_DIR");
}

}  // namespace
}  // namespace nvct::driver
