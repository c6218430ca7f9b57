#include "nvct/ctk/system_dev_char.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/base/unique_fd.hpp"

namespace nvct::ctk {
namespace {

// The major an NVIDIA node of this name must have, nullopt when the name is not one.
std::optional<unsigned> expected_major(const std::string& dir, const std::string& name,
                                       const NvidiaMajors& m) {
  if (dir == "/dev/nvidia-caps") {
    return strings::starts_with(name, "nvidia-cap") ? m.caps : std::nullopt;
  }
  if (name == "nvidia-uvm" || name == "nvidia-uvm-tools") return m.uvm;
  if (name == "nvidiactl" || name == "nvidia-modeset") return m.nvidia;
  if (strings::starts_with(name, "nvidia") && name.size() > 6 &&
      std::all_of(name.begin() + 6, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return m.nvidia;
  return std::nullopt;
}

Result<std::string> read_link_at(int dirfd, const std::string& name) {
  char buf[4096];
  ssize_t n = ::readlinkat(dirfd, name.c_str(), buf, sizeof(buf) - 1);
  if (n < 0) return fail_errno("readlink " + name);
  return std::string(buf, static_cast<std::size_t>(n));
}

Result<unique_fd> open_or_create_dir(const std::string& dir) {
  // Creating /dev/char's parents is the admin's business; only the last level is created.
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return fail_errno("mkdir " + dir);
  unique_fd fd(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd) return fail_errno("open " + dir);
  return fd;
}

// Whether the existing link already reaches the node: same text, or the same device.
bool link_is_correct(int dirfd, const DevCharLink& link) {
  auto text = read_link_at(dirfd, link.name);
  if (text && *text == link.target) return true;
  struct stat have {}, want {};
  return ::fstatat(dirfd, link.name.c_str(), &have, 0) == 0 &&
         ::stat(link.target.c_str(), &want) == 0 && S_ISCHR(have.st_mode) &&
         S_ISCHR(want.st_mode) && have.st_rdev == want.st_rdev;
}

Status write_one(int dirfd, const std::string& dir, const DevCharLink& link) {
  if (::symlinkat(link.target.c_str(), dirfd, link.name.c_str()) == 0) return ok();
  if (errno != EEXIST) return fail_errno(fmt::format("symlink {}/{}", dir, link.name));
  if (link_is_correct(dirfd, link)) {
    log::debug("{}/{} already links to {}", dir, link.name, link.target);
    return ok();
  }
  struct stat st {};
  if (::fstatat(dirfd, link.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return fail_errno(fmt::format("stat {}/{}", dir, link.name));
  if (!S_ISLNK(st.st_mode)) {
    log::warn("{}/{} exists and is not a symbolic link; leaving it alone", dir, link.name);
    return ok();
  }
  // Replace a stale link atomically: a reader sees the old link or the new one, never none.
  std::string tmp = fmt::format(".{}.nvct-{}", link.name, ::getpid());
  ::unlinkat(dirfd, tmp.c_str(), 0);
  if (::symlinkat(link.target.c_str(), dirfd, tmp.c_str()) != 0)
    return fail_errno(fmt::format("symlink {}/{}", dir, tmp));
  if (::renameat(dirfd, tmp.c_str(), dirfd, link.name.c_str()) != 0) {
    auto err = fail_errno(fmt::format("replace {}/{}", dir, link.name));
    ::unlinkat(dirfd, tmp.c_str(), 0);
    return err;
  }
  log::info("Replaced stale link {}/{}", dir, link.name);
  return ok();
}

}  // namespace

std::vector<NodeSpec> find_nvidia_device_nodes(const driver::DriverRoot& root,
                                               const NvidiaMajors& majors, SystemOps& ops) {
  std::vector<NodeSpec> nodes;
  for (std::string dir : {"/dev", "/dev/nvidia-caps"}) {
    auto names = root.list_dir(dir);
    if (!names) continue;
    for (const auto& name : *names) {
      if (!strings::starts_with(name, "nvidia")) continue;
      std::string path = dir + "/" + name;
      auto want = expected_major(dir, name, majors);
      if (!want) {
        if (dir == "/dev" && name != "nvidia-caps" && name != "nvidia-caps-imex-channels")
          log::debug("{}: not an NVIDIA device node name, or its module is not loaded", path);
        continue;
      }
      auto st = ops.stat(root, path);
      if (!st) {
        log::warn("{}: {}", path, st.error().message());
        continue;
      }
      if (!S_ISCHR(st->st_mode) || major(st->st_rdev) != *want) {
        log::warn("{} is not a character device with major {}; skipping it", path, *want);
        continue;
      }
      nodes.push_back({path, major(st->st_rdev), minor(st->st_rdev)});
    }
  }
  return nodes;
}

std::vector<DevCharLink> dev_char_links(const std::string& driver_root,
                                        const std::vector<NodeSpec>& nodes) {
  std::vector<DevCharLink> links;
  std::string prefix = driver::normalize_path(driver_root);
  if (prefix == "/") prefix.clear();
  for (const auto& n : nodes) {
    std::string name = fmt::format("{}:{}", n.major, n.minor);
    bool seen = std::any_of(links.begin(), links.end(),
                            [&](const DevCharLink& l) { return l.name == name; });
    if (!seen) links.push_back({name, prefix + n.path});
  }
  return links;
}

Status write_dev_char_links(const std::string& dir, const std::vector<DevCharLink>& links,
                            bool dry_run) {
  unique_fd dirfd;
  // No link, no directory: a host without the driver keeps its /dev as it was.
  if (!dry_run && !links.empty()) {
    NVCT_ASSIGN_OR_RETURN(dirfd, open_or_create_dir(dir));
  }
  for (const auto& link : links) {
    log::info("Creating link {}/{} => {}", dir, link.name, link.target);
    if (dry_run) continue;
    NVCT_TRY(write_one(dirfd.get(), dir, link));
  }
  return ok();
}

Status create_dev_char_symlinks(const DevCharOptions& o, SystemOps& ops) {
  if (!o.create_all && (o.load_kernel_modules || o.create_device_nodes))
    log::warn("--load-kernel-modules and --create-device-nodes only apply with --create-all");
  NVCT_ASSIGN_OR_RETURN(auto root,
                        with_context(driver::DriverRoot::open(o.driver_root), "driver root"));
  if (o.dry_run) log::info("Running in dry run mode");
  std::vector<NodeSpec> nodes;
  if (o.create_all) {
    if (o.load_kernel_modules) NVCT_TRY(load_nvidia_kernel_modules(root, ops, o.dry_run));
    NvidiaMajors majors = read_nvidia_majors(root);
    nodes = all_possible_nodes(root, majors);
    if (o.create_device_nodes) {
      for (const auto& n : nodes) {
        log::info("Creating device node {} ({}:{})", root.host_path(n.path), n.major, n.minor);
        if (o.dry_run) continue;
        NVCT_TRY(with_context(ops.mknod_char(root, n.path, n.major, n.minor, 0666),
                              "create device node " + n.path));
      }
    }
    // A node that exists must be the device its link is named after.
    std::erase_if(nodes, [&](const NodeSpec& n) {
      auto st = ops.stat(root, n.path);
      if (!st) return false;  // not there yet: the link waits for it, as udev would create it
      bool good = S_ISCHR(st->st_mode) && st->st_rdev == makedev(n.major, n.minor);
      if (!good)
        log::warn("{} is not the character device {}:{}; skipping it", n.path, n.major, n.minor);
      return !good;
    });
  } else {
    nodes = find_nvidia_device_nodes(root, read_nvidia_majors(root), ops);
  }
  if (nodes.empty())
    log::warn("No NVIDIA device nodes found under {}/dev",
              root.path() == "/" ? std::string() : root.path());
  return write_dev_char_links(o.dev_char_path, dev_char_links(root.path(), nodes), o.dry_run);
}

}  // namespace nvct::ctk
