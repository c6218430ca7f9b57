// Host-side preparation of the ldconfig run: the sealed binary copy and the rootfs checks.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/mount/container_path.hpp"
#include "nvct/mount/ldconfig.hpp"
#include "nvct/mount/target.hpp"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC 0x0020
#endif

namespace nvct::mount {

std::vector<std::string> ldconfig_argv(const std::vector<std::string>& folders) {
  std::vector<std::string> argv = {"ldconfig", "-f", "/etc/ld.so.conf", "-C", "/etc/ld.so.cache"};
  argv.insert(argv.end(), folders.begin(), folders.end());
  return argv;
}

Status add_seals(int fd, int seals, std::chrono::milliseconds patience) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + patience;
  auto pause = std::chrono::milliseconds(5);
  for (;;) {
    if (::fcntl(fd, F_ADD_SEALS, seals) == 0) return ok();
    if (errno == EINTR) continue;
    if (errno != EBUSY || Clock::now() >= deadline) return fail_errno("F_ADD_SEALS");
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(100));
  }
}

Result<unique_fd> sealed_copy(const std::string& host_path) {
  unique_fd src(::open(host_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  if (!src) return fail_errno(fmt::format("open {}", host_path));
  struct stat st {};
  if (::fstat(src.get(), &st) != 0) return fail_errno(fmt::format("stat {}", host_path));
  if (!S_ISREG(st.st_mode)) return fail(EINVAL, fmt::format("{} is not a regular file", host_path));
  // Checklist #20: a script would run its interpreter inside the container's root, i.e. the
  // image's /bin/sh; only a binary is run.
  char magic[2] = {0, 0};
  if (::pread(src.get(), magic, sizeof magic, 0) == 2 && magic[0] == '#' && magic[1] == '!')
    return fail(ENOEXEC,
                fmt::format("host ldconfig {} is a script (#!), whose interpreter would be the "
                            "container's; set the ldconfig path (nvidia-container-cli.ldconfig "
                            "or --ldconfig-path) to the ELF binary, e.g. {}.real",
                            host_path, host_path));
  // CVE-2024-0135: exec a private sealed copy, never the host inode itself.
  unique_fd mem(::memfd_create("nvct-ldconfig", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC));
  if (!mem && errno == EINVAL)
    mem.reset(::memfd_create("nvct-ldconfig", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!mem) return fail_errno("memfd_create");
  off_t left = st.st_size;
  while (left > 0) {
    ssize_t n = ::sendfile(mem.get(), src.get(), nullptr, static_cast<std::size_t>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail_errno(fmt::format("copy {} into memfd", host_path));
    left -= n;
  }
  if (::fchmod(mem.get(), 0555) != 0) return fail_errno("chmod memfd");
  NVCT_TRY(
      with_context(add_seals(mem.get(), F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE), "seal memfd"));
  ::fcntl(mem.get(), F_ADD_SEALS, F_SEAL_EXEC);  // 6.3+; older kernels say EINVAL
  if (::fcntl(mem.get(), F_ADD_SEALS, F_SEAL_SEAL) != 0) return fail_errno("seal memfd seals");
  return mem;
}

Result<bool> has_glibc_layout(const Root& rootfs) {
  static constexpr const char* kLoaders[] = {"/lib64/ld-linux-x86-64.so.2",
                                             "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
                                             "/usr/lib64/ld-linux-x86-64.so.2",
                                             "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
                                             "/lib/ld-linux-aarch64.so.1",
                                             "/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1",
                                             "/usr/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1",
                                             "/lib64/ld64.so.2"};
  for (const char* p : kLoaders) {
    auto fd = rootfs.open_in_root(p, O_PATH);
    if (fd) return true;
    if (fd.error().code() != ENOENT && fd.error().code() != ENOTDIR)
      return tl::unexpected(std::move(fd).error());
  }
  return false;
}

Result<bool> ensure_ld_so_conf(const Root& rootfs) {
  NVCT_ASSIGN_OR_RETURN(unique_fd etc, mkdir_all_in_root(rootfs, "/etc"));
  NVCT_ASSIGN_OR_RETURN(std::string where, rootfs.relative_path(etc.get()));
  NVCT_TRY(with_context(check_resolved_location(where + "/ld.so.conf", PathPolicy::kDefault),
                        "create /etc/ld.so.conf"));
  struct stat st {};
  if (::fstatat(etc.get(), "ld.so.conf", &st, AT_SYMLINK_NOFOLLOW) == 0) return false;
  if (errno != ENOENT) return fail_errno("stat /etc/ld.so.conf");
  unique_fd f(::openat(etc.get(), "ld.so.conf",
                       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!f) return fail_errno("create /etc/ld.so.conf");
  NVCT_TRY(with_context(write_all(f.get(), "include /etc/ld.so.conf.d/*.conf\n"),
                        "write /etc/ld.so.conf"));
  log::info("created {}/ld.so.conf in the rootfs", where);
  return true;
}

}  // namespace nvct::mount
