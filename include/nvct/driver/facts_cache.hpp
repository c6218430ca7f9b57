// The driver-facts cache (issue 19): what NVML reports about the driver and its GPUs, kept in a
// root-owned file between containers so that a create does not start the NVML helper and
// initialise NVML each time. It wraps an NvmlQuery (cached_nvml_query) and changes nothing else:
// discovery still reads ld.so.cache, /proc and /dev itself, and the facts it gets are the ones the
// query returned, byte for byte (the file holds encode_nvml_result's JSON).
//
// What is cached, fact by fact (docs/driver-facts-cache.md):
// - driver version, CUDA driver version: properties of the loaded kernel module and of
//   libnvidia-ml; both are in the key.
// - per GPU: minor, UUID, name, PCI bus id, brand, compute capability: fixed while the module
//   holds the GPU; the set of GPUs the module holds is in the key (/proc/driver/nvidia/gpus).
// - MIG: cached only while it cannot matter. MIG mode (nvidia-smi -mig) and the MIG devices
//   (GPU/compute instances) change while the driver stays loaded. The driver shows every instance
//   as a folder under /proc/driver/nvidia/capabilities/gpu<minor>/mig (gi<N>, gi<N>/ci<M>), and
//   a MIG-capable GPU has that folder even with MIG off (seen on an H200, driver 580): its listing
//   is in the key, so an instance created or destroyed is a miss. procfs cannot tell "MIG on
//   without instances" from "off", but nothing the cache feeds can either: the edits, mounts and
//   listings depend on the MIG devices (none in both cases) and on MIG capability (fixed), never
//   on the mode flag, which only `nvidia-ctk doctor` reads (it asks NVML itself). So a result is
//   written only when no GPU has MIG on or MIG devices, and every MIG-capable GPU has its
//   capabilities folder (without one, instances could not be seen); one read back is checked the
//   same way. Hosts with MIG on query NVML every time, as before.
// - procfs fallback facts (NVML failed): NOT cached; the failure may be transient and its warning
//   must keep showing.
//
// The key (all must match, else the file is ignored, NVML queried and the file rewritten):
// the driver root's host path; the boot id (/proc/sys/kernel/random/boot_id on the host, and the
// driver root's own copy when it has one); /proc/driver/nvidia/version and the names in
// /proc/driver/nvidia/gpus, under the driver root and, for a root other than /, on the host;
// the MIG capability folders (gpu<minor>/mig and the gi*/ci* entries under it) in
// /proc/driver/nvidia/capabilities, under the root and, for a root other than /, on the host;
// /dev/nvidiactl under the root (NVML cannot start without it); the root-relative path of
// libnvidia-ml.so.1 and the identity (dev, inode, size, mtime, ctime) of the file it resolves to.
// No /proc/driver/nvidia/version anywhere: no driver loaded, no cache.
//
// The file: <dir>/driver-facts-<fnv1a64 of the root>.json, dir default
// /run/nvidia-container-toolkit (tmpfs: a reboot empties it), created 0700, files 0600. Read only
// when the directory is owned by the euid and not group/world-writable, and the file (opened
// O_NOFOLLOW|O_NONBLOCK) is a regular file with one link, owned by the euid, not group/world-
// writable, at most kMaxFactsCacheSize bytes, valid UTF-8 JSON whose facts pass the same checks
// as the NVML helper's reply plus field limits. Written as a temp file in the same directory
// (O_EXCL|O_NOFOLLOW, 0600) renamed over the target, so a concurrent reader sees the old or the
// new file, never a torn one; no fsync (a lost or torn file is only a miss). Every cache problem
// is logged at debug level and never fails the caller.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "nvct/base/error.hpp"
#include "nvct/driver/driver_info.hpp"
#include "nvct/driver/driver_root.hpp"
#include "nvct/driver/nvml.hpp"

namespace nvct::driver {

inline constexpr std::string_view kDefaultFactsCacheDir = "/run/nvidia-container-toolkit";
// Overrides the directory for the process (set by whoever starts the shim, hook or CLI, never by
// a container): unset means kDefaultFactsCacheDir, empty disables the cache, anything else must
// be an absolute path (a relative one disables the cache).
inline constexpr std::string_view kFactsCacheDirEnv = "NVCT_DRIVER_FACTS_CACHE_DIR";
inline constexpr std::size_t kMaxFactsCacheSize = 256 * 1024;
inline constexpr int kFactsCacheFormat = 2;  // 2: the key has the MIG folders

struct FactsCacheOptions {
  std::string dir = std::string(kDefaultFactsCacheDir);  // "" disables the cache
  std::string host_proc = "/proc";                       // the host's procfs (tests: a copy)
};

// kFactsCacheDirEnv applied to the defaults.
FactsCacheOptions facts_cache_options_from_env();

struct FileIdentity {
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  long mtime_s = 0, mtime_ns = 0, ctime_s = 0, ctime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};

struct FactsCacheKey {
  std::string root;          // host path of the driver root
  std::string boot_id;       // host
  std::string root_boot_id;  // the driver root's, "" when it has none (or root is /)
  std::string version;       // /proc/driver/nvidia/version under the root ("" if absent)
  std::string host_version;  // same on the host when root is not / ("" if absent)
  std::string gpus;          // names in /proc/driver/nvidia/gpus under the root, ","-joined
  std::string host_gpus;     // same on the host when root is not /
  // The MIG folders in /proc/driver/nvidia/capabilities under the root: "gpu<minor>/mig" for each
  // GPU that has one, then its gi<N> and gi<N>/ci<M> entries, sorted, ","-joined ("" if none).
  std::string mig;
  std::string host_mig;      // same on the host when root is not /
  std::string control_node;  // /dev/nvidiactl under the root: "<major>:<minor>", "" if none
  std::string library;       // root-relative path of libnvidia-ml.so.1 given to the query
  FileIdentity library_id;   // of the file it resolves to inside the root
  bool operator==(const FactsCacheKey&) const = default;
};

// Reads the key for a query of `library` under `root`. Fails (the caller then skips the cache)
// when no driver version can be read or the library cannot be stat()ed.
Result<FactsCacheKey> facts_cache_key(const DriverRoot& root, const std::string& library,
                                      const FactsCacheOptions& options);

// "driver-facts-<16 hex digits>.json": FNV-1a 64 of the root's host path.
std::string facts_cache_file_name(const std::string& root);

// False when a GPU has MIG on or MIG devices, or is MIG-capable without its gpu<minor>/mig
// folder in the key (key.mig or key.host_mig: both listings are in the key, so an instance
// shown in either is a miss; with a real driver the host's procfs always has the folder).
bool facts_cacheable(const NvmlFacts& facts, const FactsCacheKey& key);

// The file's content, and its parser: EINVAL for anything malformed, over a limit or uncacheable,
// ESTALE when the stored key differs from `expected`.
std::string encode_facts_cache(const FactsCacheKey& key, const NvmlFacts& facts);
Result<NvmlFacts> decode_facts_cache(std::string_view text, const FactsCacheKey& expected);

// Reads and verifies the file for key.root. ENOENT when there is none; EPERM for an unsafe
// directory or file (owner, mode, links, type, symlink); EFBIG past kMaxFactsCacheSize; else as
// decode_facts_cache.
Result<NvmlFacts> read_facts_cache(const FactsCacheOptions& options, const FactsCacheKey& key);

// Writes it atomically, creating the directory (0700) when missing. Refuses an unsafe directory.
Status write_facts_cache(const FactsCacheOptions& options, const FactsCacheKey& key,
                         const NvmlFacts& facts);

// `inner` behind the cache: a verified file with a matching key answers without calling `inner`;
// otherwise `inner` runs and a successful, cacheable result is written. options.dir "" : `inner`.
NvmlQuery cached_nvml_query(NvmlQuery inner,
                            FactsCacheOptions options = facts_cache_options_from_env());

}  // namespace nvct::driver
