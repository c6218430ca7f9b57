// `nvidia-ctk system create-dev-char-symlinks` (spec/ctk.md §8.1): /dev/char/MAJ:MIN links to
// the NVIDIA device nodes. runc turns the spec's device cgroup rules into systemd DeviceAllow=
// entries named by /dev/char/MAJ:MIN; without these links `systemctl daemon-reload` drops the
// rules and running containers lose their GPUs (mount.md §10.6, runc #3708).
#pragma once

#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/ctk/system_device_nodes.hpp"
#include "nvct/ctk/system_ops.hpp"
#include "nvct/driver/driver_root.hpp"

namespace nvct::ctk {

struct DevCharOptions {
  std::string dev_char_path = "/dev/char";
  std::string driver_root = "/";
  bool create_all = false;
  bool load_kernel_modules = false;  // only with create_all
  bool create_device_nodes = false;  // only with create_all
  bool dry_run = false;
};

// The NVIDIA nodes present under <root>/dev (nvidiactl, nvidia-modeset, nvidia<N>, nvidia-uvm,
// nvidia-uvm-tools, nvidia-caps/nvidia-cap<N>), each verified by stat: a character device whose
// major is the one /proc/devices gives its module. Others are skipped with a warning. The
// numbers are the node's own st_rdev, so a link is always named after the device it reaches.
std::vector<NodeSpec> find_nvidia_device_nodes(const driver::DriverRoot& root,
                                               const NvidiaMajors& majors, SystemOps& ops);

struct DevCharLink {
  std::string name;    // "195:0"
  std::string target;  // host path of the node: driver root + node path
  bool operator==(const DevCharLink&) const = default;
};
std::vector<DevCharLink> dev_char_links(const std::string& driver_root,
                                        const std::vector<NodeSpec>& nodes);

// Creates <dir>/<name> -> target for each link (dir is created when missing and there is a link
// to make). A link that already points at the target, or resolves to the same device, is kept;
// a symlink pointing elsewhere is replaced atomically; anything else in the way is left alone
// with a warning; a concurrent creator (EEXIST) is fine. dry_run only logs.
Status write_dev_char_links(const std::string& dir, const std::vector<DevCharLink>& links,
                            bool dry_run);

// The command: with create_all, optionally load the modules and mknod every possible node first,
// then link every possible node; otherwise link the nodes that exist.
Status create_dev_char_symlinks(const DevCharOptions& options, SystemOps& ops);

}  // namespace nvct::ctk
