#include "nvct/driver/facts_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "nvct/base/file.hpp"
#include "nvct/base/input_checks.hpp"
#include "nvct/base/log.hpp"
#include "nvct/base/random_name.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/base/unique_fd.hpp"
#include "nvct/driver/nvml_process.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::driver {
namespace {

using fc_json = nlohmann::ordered_json;

constexpr std::string_view kFcBootId = "/proc/sys/kernel/random/boot_id";
constexpr std::size_t kFcMaxProcText = 64 * 1024;
constexpr std::size_t kFcMaxField = 256;  // uuid, name, bus id, versions

// The names of a directory's entries, sorted, ","-joined; "" when it cannot be listed.
std::string fc_join_names(const std::vector<std::string>& names) {
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  return strings::join(sorted, ",");
}

std::optional<std::vector<std::string>> fc_host_dir_list(const std::string& path) {
  DIR* dir = ::opendir(path.c_str());
  if (dir == nullptr) return std::nullopt;
  std::vector<std::string> names;
  for (struct dirent* e; (e = ::readdir(dir)) != nullptr;) {
    std::string_view n = e->d_name;
    if (n != "." && n != "..") names.emplace_back(n);
  }
  ::closedir(dir);
  return names;
}

std::string fc_host_dir_names(const std::string& path) {
  auto names = fc_host_dir_list(path);
  return names ? fc_join_names(*names) : std::string();
}

std::string fc_host_text(const std::string& path) {
  auto text = read_file(path, kFcMaxProcText);
  return text ? *text : std::string();
}

std::string fc_root_text(const DriverRoot& root, std::string_view path) {
  auto text = root.read(path, kFcMaxProcText);
  return text ? *text : std::string();
}

// The MIG folders under a capabilities folder, for the key (FactsCacheKey::mig).
template <typename List>
std::string fc_mig_listing(const std::string& caps, const List& list) {
  auto folders = list_mig_folders(caps, list);
  if (!folders) return "too many MIG entries";
  std::vector<std::string> paths;
  for (const auto& f : *folders) paths.push_back(f.path);
  return fc_join_names(paths);
}

bool fc_has_token(const std::string& joined, const std::string& token) {
  for (std::string_view part : strings::split(joined, ','))
    if (part == token) return true;
  return false;
}

// J: ordered_json to write the file (fields in this order), json to compare with a parsed one.
template <class J = fc_json>
J fc_key_json(const FactsCacheKey& k) {
  const FileIdentity& id = k.library_id;
  return J{
      {"root", k.root},
      {"boot_id", k.boot_id},
      {"root_boot_id", k.root_boot_id},
      {"version", k.version},
      {"host_version", k.host_version},
      {"gpus", k.gpus},
      {"host_gpus", k.host_gpus},
      {"mig", k.mig},
      {"host_mig", k.host_mig},
      {"control_node", k.control_node},
      {"library", k.library},
      {"library_id",
       {static_cast<std::uint64_t>(id.dev), static_cast<std::uint64_t>(id.ino),
        static_cast<std::int64_t>(id.size), id.mtime_s, id.mtime_ns, id.ctime_s, id.ctime_ns}}};
}

std::string fc_dump(const fc_json& j) {
  return j.dump(-1, ' ', false, fc_json::error_handler_t::replace);
}

bool fc_printable(const std::string& s, bool allow_empty) {
  if (s.size() > kFcMaxField || (!allow_empty && s.empty())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u != 0x7f;
  });
}

// The field limits of a cached reply, on top of decode_nvml_result's types.
Status fc_check_facts(const NvmlFacts& f, const FactsCacheKey& key) {
  auto bad = [](std::string what) { return fail(EINVAL, "driver facts cache: " + what); };
  if (!fc_printable(f.driver_version, false)) return bad("invalid driver version");
  if (!fc_printable(f.cuda_version, true)) return bad("invalid CUDA version");
  if (f.gpus.size() > kMaxGpus)
    return bad(fmt::format("{} GPUs (at most {})", f.gpus.size(), kMaxGpus));
  std::set<unsigned> minors;
  std::set<std::string> uuids;
  for (const auto& g : f.gpus) {
    if (!fc_printable(g.uuid, false) || !fc_printable(g.name, true)) return bad("invalid GPU text");
    auto bus = normalize_pci_bus_id(g.bus_id);
    if (!bus || *bus != g.bus_id) return bad(fmt::format("invalid PCI bus id {}", g.bus_id));
    if (g.minor >= kNvidiaModesetMinor || !minors.insert(g.minor).second)
      return bad(fmt::format("invalid or repeated GPU minor {}", g.minor));
    if (!uuids.insert(g.uuid).second) return bad("repeated GPU UUID " + g.uuid);
    if (g.cc_major < 0 || g.cc_major > 99 || g.cc_minor < 0 || g.cc_minor > 99)
      return bad("invalid compute capability");
  }
  if (!facts_cacheable(f, key)) return bad("MIG on, MIG devices, or MIG state not visible");
  return ok();
}

// Opens `dir` when it is a directory owned by the euid that neither group nor others can write.
Result<unique_fd> fc_open_dir(const std::string& dir) {
  unique_fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) return fail_errno("open driver facts cache directory " + dir);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return fail_errno("stat driver facts cache directory " + dir);
  if (st.st_uid != ::geteuid() || (st.st_mode & 022) != 0)
    return fail(EPERM, fmt::format("driver facts cache directory {} is owned by uid {} with mode "
                                   "{:04o} (needs uid {}, not group/world-writable)",
                                   dir, st.st_uid, st.st_mode & 07777, ::geteuid()));
  return fd;
}

std::string fc_random_suffix() { return random_alnum(6); }

// Removes the files of driver roots that no longer exist (a driver container's root after it
// went away; a test's mock root) and temp files of killed writers, so that the directory does
// not grow. Runs only when a file is written (a miss); best effort.
void fc_prune(int dirfd, const std::string& keep) {
  remove_stale_temp_files(dirfd, keep);
  unique_fd dup(::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  DIR* dir = dup ? ::fdopendir(dup.release()) : nullptr;
  if (dir == nullptr) return;
  for (struct dirent* e; (e = ::readdir(dir)) != nullptr;) {
    std::string_view n = e->d_name;
    if (n == keep || !strings::starts_with(n, "driver-facts-") || !strings::ends_with(n, ".json"))
      continue;
    auto text = read_file_at(::dirfd(dir), std::string(n), kMaxFactsCacheSize);
    if (!text) continue;
    fc_json j = fc_json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("key") || !j["key"].is_object()) continue;
    const auto& root = j["key"]["root"];
    struct stat st {};
    if (root.is_string() && ::stat(root.get_ref<const std::string&>().c_str(), &st) != 0 &&
        errno == ENOENT)
      ::unlinkat(::dirfd(dir), e->d_name, 0);
  }
  ::closedir(dir);
}

}  // namespace

FactsCacheOptions facts_cache_options_from_env() {
  FactsCacheOptions o;
  const char* env = std::getenv(std::string(kFactsCacheDirEnv).c_str());
  if (env == nullptr) return o;
  std::string dir = env;
  if (!dir.empty() && dir.front() != '/') {
    log::debug("{}={}: not an absolute path; the driver facts cache is off", kFactsCacheDirEnv,
               dir);
    dir.clear();
  }
  o.dir = dir;
  return o;
}

Result<FactsCacheKey> facts_cache_key(const DriverRoot& root, const std::string& library,
                                      const FactsCacheOptions& options) {
  FactsCacheKey k;
  k.root = root.path();
  const bool host_root = root.path() == "/";
  k.boot_id = fc_host_text(options.host_proc + std::string(kFcBootId.substr(5)));
  if (k.boot_id.empty())
    return fail(ENOENT,
                fmt::format("no boot id in {}/sys/kernel/random/boot_id", options.host_proc));
  k.version = fc_root_text(root, kProcDriverVersion);
  if (auto names = root.list_dir(kProcGpus)) k.gpus = fc_join_names(*names);
  k.mig = fc_mig_listing(std::string(kProcCapabilities), [&root](const std::string& p) {
    auto names = root.list_dir(p);
    return names ? std::optional(std::move(*names)) : std::nullopt;
  });
  if (!host_root) {
    k.root_boot_id = fc_root_text(root, kFcBootId);
    k.host_version = fc_host_text(options.host_proc + "/driver/nvidia/version");
    k.host_gpus = fc_host_dir_names(options.host_proc + "/driver/nvidia/gpus");
    k.host_mig = fc_mig_listing(options.host_proc + "/driver/nvidia/capabilities",
                                [](const std::string& p) { return fc_host_dir_list(p); });
  }
  if (k.version.empty() && k.host_version.empty())
    return fail(ENOENT, fmt::format("no {} under {} nor on the host: no driver loaded",
                                    kProcDriverVersion, root.path()));
  if (auto ctl = root.stat("/dev/nvidiactl"); ctl && S_ISCHR(ctl->st_mode))
    k.control_node = fmt::format("{}:{}", major(ctl->st_rdev), minor(ctl->st_rdev));
  k.library = library;
  NVCT_ASSIGN_OR_RETURN(struct stat st, root.stat(library));
  if (!S_ISREG(st.st_mode)) return fail(EINVAL, library + " is not a regular file");
  k.library_id = {st.st_dev,          st.st_ino,         st.st_size,        st.st_mtim.tv_sec,
                  st.st_mtim.tv_nsec, st.st_ctim.tv_sec, st.st_ctim.tv_nsec};
  return k;
}

std::string facts_cache_file_name(const std::string& root) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : root) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return fmt::format("driver-facts-{:016x}.json", h);
}

bool facts_cacheable(const NvmlFacts& facts, const FactsCacheKey& key) {
  return std::none_of(facts.gpus.begin(), facts.gpus.end(), [&](const NvmlGpu& g) {
    if (g.mig_enabled || !g.migs.empty()) return true;
    if (!g.mig_capable) return false;
    const std::string folder = fmt::format("gpu{}/mig", g.minor);
    return !fc_has_token(key.mig, folder) && !fc_has_token(key.host_mig, folder);
  });
}

std::string encode_facts_cache(const FactsCacheKey& key, const NvmlFacts& facts) {
  fc_json j{{"format", kFactsCacheFormat},
            {"key", fc_key_json(key)},
            {"reply", fc_json::parse(encode_nvml_result(facts), nullptr, false)}};
  return fc_dump(j) + "\n";
}

Result<NvmlFacts> decode_facts_cache(std::string_view text, const FactsCacheKey& expected) {
  NVCT_TRY(check_untrusted_text(text, TextSyntax::kJson, "driver facts cache", 8));
  // One parse: the key is compared as JSON values and the reply decoded from the parsed object.
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  auto bad = [](std::string_view what) {
    return fail(EINVAL, fmt::format("driver facts cache: {}", what));
  };
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  auto format = j.find("format");
  if (format == j.end() || !format->is_number_integer() || *format != kFactsCacheFormat)
    return bad("unknown format");
  auto key = j.find("key");
  auto reply = j.find("reply");
  if (key == j.end() || reply == j.end() || !reply->is_object()) return bad("missing key or reply");
  if (*key != fc_key_json<nlohmann::json>(expected))
    return fail(ESTALE, "driver facts cache: the driver, boot or library changed");
  NVCT_ASSIGN_OR_RETURN(NvmlFacts facts, decode_nvml_reply(*reply));
  NVCT_TRY(fc_check_facts(facts, expected));
  return facts;
}

Result<NvmlFacts> read_facts_cache(const FactsCacheOptions& options, const FactsCacheKey& key) {
  NVCT_ASSIGN_OR_RETURN(unique_fd dir, fc_open_dir(options.dir));
  std::string name = facts_cache_file_name(key.root);
  std::string path = options.dir + "/" + name;
  unique_fd fd(
      ::openat(dir.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd) return fail_errno("open " + path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return fail_errno("stat " + path);
  // 0 links: replaced by a writer since we opened it; what we read is still one whole file.
  if (!S_ISREG(st.st_mode) || st.st_nlink > 1 || st.st_uid != ::geteuid() ||
      (st.st_mode & 022) != 0)
    return fail(EPERM, fmt::format("{}: {} with {} links, uid {}, mode {:04o} (needs a regular "
                                   "file, 1 link, uid {}, not group/world-writable)",
                                   path, file_type_name(st.st_mode), st.st_nlink, st.st_uid,
                                   st.st_mode & 07777, ::geteuid()));
  if (static_cast<std::size_t>(st.st_size) > kMaxFactsCacheSize)
    return fail(EFBIG,
                fmt::format("{}: {} bytes (at most {})", path, st.st_size, kMaxFactsCacheSize));
  NVCT_ASSIGN_OR_RETURN(std::string text, read_fd(fd.get(), kMaxFactsCacheSize));
  return with_context(decode_facts_cache(text, key), path);
}

Status write_facts_cache(const FactsCacheOptions& options, const FactsCacheKey& key,
                         const NvmlFacts& facts) {
  if (!facts_cacheable(facts, key))
    return fail(EINVAL, "a GPU has MIG on or MIG devices, or its MIG state is not visible");
  if (::mkdir(options.dir.c_str(), 0700) != 0 && errno != EEXIST)
    return fail_errno("create driver facts cache directory " + options.dir);
  NVCT_ASSIGN_OR_RETURN(unique_fd dir, fc_open_dir(options.dir));
  std::string name = facts_cache_file_name(key.root);
  std::string content = encode_facts_cache(key, facts);
  std::string tmp;
  unique_fd fd;
  for (int attempt = 0; attempt < 8 && !fd; ++attempt) {
    tmp = fmt::format(".{}.{}-{}", name, ::getpid(), fc_random_suffix());
    fd.reset(::openat(dir.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                      0600));
    if (!fd && errno != EEXIST) return fail_errno("create " + options.dir + "/" + tmp);
  }
  if (!fd) return fail(EEXIST, "no free temp file name in " + options.dir);
  // fchmod: the umask may only remove bits, but say the mode outright.
  Status written =
      ::fchmod(fd.get(), 0600) == 0 ? write_all(fd.get(), content) : fail_errno("chmod " + tmp);
  if (written && ::renameat(dir.get(), tmp.c_str(), dir.get(), name.c_str()) != 0)
    written = fail_errno(fmt::format("rename {} to {} in {}", tmp, name, options.dir));
  if (!written) ::unlinkat(dir.get(), tmp.c_str(), 0);
  if (written) fc_prune(dir.get(), name);
  return written;
}

NvmlQuery cached_nvml_query(NvmlQuery inner, FactsCacheOptions options) {
  if (options.dir.empty()) return inner;
  return [inner = std::move(inner), options = std::move(options)](
             const DriverRoot& root, const std::string& library) -> Result<NvmlFacts> {
    // The key is read before the query: a driver that changes during the query leaves a file
    // whose key no longer matches.
    auto key = facts_cache_key(root, library, options);
    if (!key) {
      log::debug("driver facts cache not used: {}", key.error().message());
      return inner(root, library);
    }
    auto cached = read_facts_cache(options, *key);
    if (cached) {
      log::debug("driver facts of {} from the cache in {}", root.path(), options.dir);
      return cached;
    }
    log::debug("driver facts cache: {}; querying NVML", cached.error().message());
    auto facts = inner(root, library);
    if (facts && !facts_cacheable(*facts, *key)) {
      log::debug(
          "driver facts cache not written: a GPU has MIG on or MIG devices, or is MIG-capable "
          "without /proc/driver/nvidia/capabilities/gpu<minor>/mig");
    } else if (facts) {
      if (auto w = write_facts_cache(options, *key, *facts); !w)
        log::debug("driver facts cache not written: {}", w.error().message());
    }
    return facts;
  };
}

}  // namespace nvct::driver
