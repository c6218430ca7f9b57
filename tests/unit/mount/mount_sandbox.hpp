// Test support for mount tests: the whole test process moves into a private mount namespace
// before main() (so no mount made or leaked by a test reaches this machine), and a Sandbox
// holds a fake driver root ("host") and a rootfs, unmounting everything under them at the end.
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::mount::testing {

inline bool enter_private_mount_ns() {
  if (::unshare(CLONE_NEWNS) != 0 ||
      ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    std::perror("mount tests need root to enter a private mount namespace");
    std::abort();
  }
  return true;
}
inline const bool kInPrivateNs = enter_private_mount_ns();

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Mount points at or under `dir`, from this namespace's mountinfo.
inline std::vector<std::string> mounts_under(const std::string& dir) {
  std::vector<std::string> out;
  std::istringstream in(read_text("/proc/self/mountinfo"));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string id, parent, devno, root, point;
    f >> id >> parent >> devno >> root >> point;
    if (point == dir || point.rfind(dir + "/", 0) == 0) out.push_back(point);
  }
  return out;
}

// The host's mount table (/proc/1/mountinfo) without the lines other tests running at the same
// time add and remove: mount points under /tmp (their temp dirs) other than own_dir, and the
// container engines' /run and /var trees. A leak onto any other host path still shows.
// `mountinfo`: another table read the same way (own_mounts_but_other_tests).
inline std::string host_mounts_but_other_tests(const std::string& own_dir,
                                               const std::string& mountinfo = "/proc/1/mountinfo") {
  std::istringstream in(read_text(mountinfo));
  std::string line, out;
  auto under = [](const std::string& p, const std::string& dir) { return p.rfind(dir, 0) == 0; };
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string id, parent, devno, root, point;
    f >> id >> parent >> devno >> root >> point;
    bool other = (under(point, "/tmp/") && !under(point, own_dir)) || under(point, "/run/") ||
                 under(point, "/var/");
    if (!other) out += line + "\n";
  }
  return out;
}

// This process's mount table, without other tests' lines as above: a test that runs in the
// host's mount namespace sees the mounts that tests running beside it make there (a bench's
// tmpfs under /tmp, an engine's overlay under /var).
inline std::string own_mounts_but_other_tests(const std::string& own_dir) {
  return host_mounts_but_other_tests(own_dir, "/proc/self/mountinfo");
}

inline void unmount_under(const std::string& dir) {
  for (int round = 0; round < 64; ++round) {
    auto m = mounts_under(dir);
    if (m.empty()) return;
    std::sort(m.begin(), m.end(), [](auto& a, auto& b) { return a.size() > b.size(); });
    for (auto& p : m) ::umount2(p.c_str(), MNT_DETACH);
  }
}

class Sandbox {
 public:
  Sandbox() {
    std::filesystem::create_directories(host());
    std::filesystem::create_directories(rootfs());
  }
  ~Sandbox() { unmount_under(tmp_.path()); }
  std::string host() const { return tmp_ / "host"; }
  std::string rootfs() const { return tmp_ / "rootfs"; }
  std::string path(const std::string& rel) const { return tmp_ / rel; }
  std::string write(const std::string& rel, const std::string& content, mode_t mode = 0644) const {
    std::string p = tmp_.write(rel, content);
    ::chmod(p.c_str(), mode);
    return p;
  }
  void mkdir(const std::string& rel) const { std::filesystem::create_directories(tmp_ / rel); }
  void symlink(const std::string& target, const std::string& rel) const {
    std::filesystem::create_directories(std::filesystem::path(tmp_ / rel).parent_path());
    if (::symlink(target.c_str(), (tmp_ / rel).c_str()) != 0) std::perror("symlink");
  }
  void copy(const std::string& host_file, const std::string& rel) const {
    std::filesystem::create_directories(std::filesystem::path(tmp_ / rel).parent_path());
    std::filesystem::copy_file(host_file, tmp_ / rel);
  }
  // A glibc rootfs at rootfs/: busybox-static, the host's libc and loader, an empty /etc.
  void make_glibc_rootfs() const {
    copy("/bin/busybox", "rootfs/bin/busybox");
    copy("/lib/x86_64-linux-gnu/libc.so.6", "rootfs/lib/x86_64-linux-gnu/libc.so.6");
    copy("/lib64/ld-linux-x86-64.so.2", "rootfs/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
    mkdir("rootfs/lib64");
    symlink("/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "rootfs/lib64/ld-linux-x86-64.so.2");
    mkdir("rootfs/etc");
    mkdir("rootfs/proc");
    mkdir("rootfs/dev");
    mkdir("rootfs/sys");
  }
  bool exists(const std::string& rel) const {
    struct stat st {};
    return ::lstat((tmp_ / rel).c_str(), &st) == 0;
  }

 private:
  nvct::testing::TempDir tmp_;
};

}  // namespace nvct::mount::testing
