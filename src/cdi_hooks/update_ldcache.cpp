#include "nvct/cdi_hooks/update_ldcache.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/base/random_name.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/mount/container_path.hpp"
#include "nvct/mount/ldconfig.hpp"
#include "nvct/mount/target.hpp"

namespace nvct::cdi_hooks {
namespace {

constexpr const char* kDropInDir = "/etc/ld.so.conf.d";
constexpr std::size_t kMaxMuslPath = 64u << 10;

std::string random_suffix() { return random_hex(16); }

// Folders cleaned lexically, in order, without duplicates.
Result<std::vector<std::string>> clean_folders(const std::vector<std::string>& folders) {
  std::vector<std::string> out;
  for (const auto& f : folders) {
    auto clean = mount::clean_container_path(f, mount::PathPolicy::kDefault);
    if (!clean)
      return with_context(Result<std::vector<std::string>>(tl::unexpected(clean.error())),
                          fmt::format("--folder {}", f));
    if (std::find(out.begin(), out.end(), *clean) == out.end()) out.push_back(*clean);
  }
  return out;
}

// The directory (created in-root when missing) where a file may be written, checked to be an
// allowed location after the kernel resolved it.
Result<unique_fd> open_write_dir(const mount::Root& rootfs, const std::string& dir,
                                 const std::string& name) {
  NVCT_ASSIGN_OR_RETURN(unique_fd fd, mount::mkdir_all_in_root(rootfs, dir));
  auto where = rootfs.relative_path(fd.get());
  if (!where) return tl::unexpected(std::move(where).error());
  std::string full = where->size() == 1 ? "/" + name : *where + "/" + name;
  NVCT_TRY(mount::check_resolved_location(full, mount::PathPolicy::kDefault));
  return fd;
}

// A new file in dirfd: O_CREAT|O_EXCL|O_NOFOLLOW, so a planted entry (link, FIFO) is an error.
Status create_new_file(int dirfd, const std::string& name, std::string_view content) {
  unique_fd fd(
      ::openat(dirfd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd) return fail_errno(fmt::format("create {}", name));
  if (::fchmod(fd.get(), 0644) != 0) return fail_errno(fmt::format("chmod {}", name));
  return with_context(write_all(fd.get(), content), fmt::format("write {}", name));
}

Result<std::string> write_drop_in(const mount::Root& rootfs, const std::string& prefix,
                                  const std::vector<std::string>& folders) {
  std::string name = fmt::format("{}-nvcr-{}.conf", prefix, random_suffix());
  NVCT_ASSIGN_OR_RETURN(unique_fd dir, open_write_dir(rootfs, kDropInDir, name));
  std::string content;
  for (const auto& f : folders) content += f + "\n";
  NVCT_TRY(create_new_file(dir.get(), name, content));
  NVCT_ASSIGN_OR_RETURN(std::string where, rootfs.relative_path(dir.get()));
  std::string path = where + "/" + name;
  log::info("wrote {} in the container: {}", path, fmt::join(folders, ", "));
  return path;
}

std::string musl_arch() {
  struct utsname u {};
  if (::uname(&u) != 0) return "x86_64";
  return u.machine;
}

// musl has no ldconfig: its loader reads /etc/ld-musl-<arch>.path. Existing entries are kept
// and the folders appended; the file is replaced atomically inside the verified /etc fd.
Result<std::optional<std::string>> update_musl_path(const mount::Root& rootfs,
                                                    const std::vector<std::string>& folders) {
  std::string arch = musl_arch();
  auto loader = rootfs.open_in_root(fmt::format("/lib/ld-musl-{}.so.1", arch), O_PATH);
  if (!loader) {
    if (loader.error().code() == ENOENT || loader.error().code() == ENOTDIR)
      return std::optional<std::string>();
    return tl::unexpected(std::move(loader).error());
  }
  std::string name = fmt::format("ld-musl-{}.path", arch);
  NVCT_ASSIGN_OR_RETURN(unique_fd etc, open_write_dir(rootfs, "/etc", name));
  std::vector<std::string> lines;
  struct stat st {};
  if (::fstatat(etc.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (!S_ISREG(st.st_mode))
      return fail(EINVAL, fmt::format("/etc/{} is not a regular file", name));
    NVCT_ASSIGN_OR_RETURN(std::string old, read_file_at(etc.get(), name, kMaxMuslPath));
    for (auto& l : strings::split_trimmed(old, '\n'))
      if (!l.empty()) lines.push_back(l);
  } else if (errno != ENOENT) {
    return fail_errno(fmt::format("stat /etc/{}", name));
  }
  for (const auto& f : folders)
    if (std::find(lines.begin(), lines.end(), f) == lines.end()) lines.push_back(f);
  std::string content;
  for (const auto& l : lines) content += l + "\n";
  NVCT_TRY(write_file_atomic_at(etc.get(), name, content));
  NVCT_ASSIGN_OR_RETURN(std::string where, rootfs.relative_path(etc.get()));
  log::info("wrote {}/{} in the container", where, name);
  return std::optional<std::string>(where + "/" + name);
}

}  // namespace

bool is_system_folder(const std::string& folder) {
  static constexpr const char* kSystem[] = {"/lib",
                                            "/lib64",
                                            "/usr/lib",
                                            "/usr/lib64",
                                            "/lib/x86_64-linux-gnu",
                                            "/usr/lib/x86_64-linux-gnu",
                                            "/lib/aarch64-linux-gnu",
                                            "/usr/lib/aarch64-linux-gnu"};
  return std::find(std::begin(kSystem), std::end(kSystem), folder) != std::end(kSystem);
}

Result<std::string> resolve_host_ldconfig(const std::string& path) {
  std::string p = !path.empty() && path[0] == '@' ? path.substr(1) : path;
  if (p.empty()) return fail(EINVAL, "an ldconfig path must be specified");
  if (p[0] != '/') return fail(EINVAL, fmt::format("ldconfig path {} is not absolute", p));
  if (p.size() < 5 || p.compare(p.size() - 5, 5, ".real") != 0) {
    struct stat st {};
    std::string real = p + ".real";
    if (::stat(real.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return real;
  }
  return p;
}

Result<LdcacheResult> update_ldcache(const mount::Root& rootfs,
                                     const UpdateLdcacheOptions& options) {
  auto run = [&]() -> Result<LdcacheResult> {
    // Host-side checks first: nothing in the container changes if they fail.
    NVCT_ASSIGN_OR_RETURN(std::string ldconfig, resolve_host_ldconfig(options.ldconfig_path));
    NVCT_ASSIGN_OR_RETURN(std::vector<std::string> folders, clean_folders(options.folders));
    LdcacheResult result;
    NVCT_ASSIGN_OR_RETURN(bool glibc, mount::has_glibc_layout(rootfs));
    if (!glibc) {
      NVCT_ASSIGN_OR_RETURN(auto musl, update_musl_path(rootfs, folders));
      if (musl)
        result.written.push_back(*musl);
      else
        log::info("container root {} has neither a glibc nor a musl loader; nothing to do",
                  rootfs.path());
      return result;
    }
    std::vector<std::string> user, system;
    for (const auto& f : folders) (is_system_folder(f) ? system : user).push_back(f);
    if (!user.empty()) {
      NVCT_ASSIGN_OR_RETURN(std::string p, write_drop_in(rootfs, "00", user));
      result.written.push_back(p);
    }
    // Loader default dirs last, so the image's own libraries keep their priority.
    if (!system.empty()) {
      NVCT_ASSIGN_OR_RETURN(std::string p, write_drop_in(rootfs, "zz", system));
      result.written.push_back(p);
    }
    mount::LdconfigOptions lo;
    lo.host_ldconfig = ldconfig;
    lo.timeout = options.timeout;
    // The folders are in the drop-ins; passing them on the command line too would put them
    // before the image's own configuration.
    NVCT_TRY(mount::run_ldconfig(rootfs, lo));
    result.ran_ldconfig = true;
    return result;
  };
  return with_context(run(), "update-ldcache");
}

}  // namespace nvct::cdi_hooks
