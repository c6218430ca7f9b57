// `nvidia-ctk system ...`: flags and environment -> ctk::DevCharOptions / DeviceNodesOptions.
#include "system_command.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <memory>

#include "nvct/ctk/system_dev_char.hpp"
#include "nvct/ctk/system_device_nodes.hpp"
#include "nvct/ctk/system_ops.hpp"

namespace nvct::cmd::nvidia_ctk {
namespace {

const char* real_getenv(const char* name) { return std::getenv(name); }

template <typename Fn>
Status each_env(const CLI::Option* option, const std::vector<std::string>& names,
                const Getenv& getenv, Fn&& fn) {
  if (option->count() > 0) return ok();
  for (const auto& name : names) {
    if (const char* v = getenv(name.c_str())) return fn(name, std::string(v));
  }
  return ok();
}

}  // namespace

Status string_from_env(const CLI::Option* option, std::string& value,
                       const std::vector<std::string>& names, const Getenv& getenv) {
  return each_env(option, names, getenv, [&](const std::string&, const std::string& v) {
    value = v;
    return ok();
  });
}

Status bool_from_env(const CLI::Option* option, bool& value, const std::vector<std::string>& names,
                     const Getenv& getenv) {
  return each_env(option, names, getenv, [&](const std::string& name, const std::string& v) {
    for (const char* t : {"1", "t", "T", "TRUE", "true", "True"})
      if (v == t) return value = true, ok();
    for (const char* f : {"0", "f", "F", "FALSE", "false", "False"})
      if (v == f) return value = false, ok();
    return Status(fail(EINVAL, fmt::format("invalid boolean value \"{}\" for {}", v, name)));
  });
}

void add_system_command(CLI::App& parent, GlobalOptions& globals) {
  CLI::App* system =
      parent.add_subcommand("system", "A collection of system-related utilities for the NVIDIA "
                                      "Container Toolkit");
  system->callback([system] {
    if (system->get_subcommands().empty()) std::cout << system->help();
  });

  // create-dev-char-symlinks (§8.1)
  auto dc = std::make_shared<ctk::DevCharOptions>();
  CLI::App* links = system->add_subcommand(
      "create-dev-char-symlinks", "A utility to create symlinks to possible /dev/nv* devices in "
                                  "/dev/char");
  auto* dc_path = links->add_option("--dev-char-path", dc->dev_char_path,
                                    "The path at which the symlinks will be created [$DEV_CHAR_PATH]")
                      ->default_str("/dev/char");
  auto* dc_root = links->add_option("--driver-root", dc->driver_root,
                                    "The path to the driver root; the links point at the nodes "
                                    "under DRIVER_ROOT/dev [$NVIDIA_DRIVER_ROOT, $DRIVER_ROOT]")
                      ->default_str("/");
  auto* dc_all = links->add_flag("--create-all", dc->create_all,
                                 "Create all possible /dev/char symlinks instead of limiting these "
                                 "to existing device nodes. [$CREATE_ALL]");
  auto* dc_kmods = links->add_flag("--load-kernel-modules", dc->load_kernel_modules,
                                   "Load the NVIDIA kernel modules before creating symlinks. This "
                                   "is only applicable when --create-all is set. "
                                   "[$LOAD_KERNEL_MODULES]");
  auto* dc_nodes = links->add_flag("--create-device-nodes", dc->create_device_nodes,
                                   "Create the NVIDIA control device nodes in the driver root if "
                                   "they do not exist. This is only applicable when --create-all "
                                   "is set [$CREATE_DEVICE_NODES]");
  auto* dc_dry = links->add_flag("--dry-run", dc->dry_run,
                                 "If set, the command will not create any symlinks. [$DRY_RUN]");
  links->callback([&globals, dc, dc_path, dc_root, dc_all, dc_kmods, dc_nodes, dc_dry] {
    ctk::DevCharOptions o = *dc;
    Getenv env = real_getenv;
    Status st = string_from_env(dc_path, o.dev_char_path, {"DEV_CHAR_PATH"}, env);
    if (st) st = string_from_env(dc_root, o.driver_root, {"NVIDIA_DRIVER_ROOT", "DRIVER_ROOT"}, env);
    if (st) st = bool_from_env(dc_all, o.create_all, {"CREATE_ALL"}, env);
    if (st) st = bool_from_env(dc_kmods, o.load_kernel_modules, {"LOAD_KERNEL_MODULES"}, env);
    if (st) st = bool_from_env(dc_nodes, o.create_device_nodes, {"CREATE_DEVICE_NODES"}, env);
    if (st) st = bool_from_env(dc_dry, o.dry_run, {"DRY_RUN"}, env);
    ctk::RealSystemOps ops;
    if (st) st = ctk::create_dev_char_symlinks(o, ops);
    globals.report(st);
  });

  // create-device-nodes (§8.2)
  auto dn = std::make_shared<ctk::DeviceNodesOptions>();
  CLI::App* nodes = system->add_subcommand("create-device-nodes",
                                           "A utility to create NVIDIA device nodes");
  auto* dn_root = nodes->add_option("--root,--driver-root", dn->root,
                                    "the path to the driver root [$ROOT, $NVIDIA_DRIVER_ROOT, "
                                    "$DRIVER_ROOT]")
                      ->default_str("/");
  auto* dn_dev = nodes->add_option("--dev-root", dn->dev_root,
                                   "the root path under which /dev is located; the driver root "
                                   "when unset [$NVIDIA_DEV_ROOT, $DEV_ROOT]");
  nodes->add_flag("--control-devices", dn->control_devices,
                  "create all control device nodes: nvidiactl, nvidia-modeset, nvidia-uvm, "
                  "nvidia-uvm-tools");
  nodes->add_flag("--load-kernel-modules", dn->load_kernel_modules,
                  "load the NVIDIA kernel modules");
  nodes->add_flag("--dry-run", dn->dry_run,
                  "if set, the command will output what would be done without making changes");
  nodes->callback([&globals, dn, dn_root, dn_dev] {
    ctk::DeviceNodesOptions o = *dn;
    Getenv env = real_getenv;
    Status st = string_from_env(dn_root, o.root, {"ROOT", "NVIDIA_DRIVER_ROOT", "DRIVER_ROOT"}, env);
    if (st) st = string_from_env(dn_dev, o.dev_root, {"NVIDIA_DEV_ROOT", "DEV_ROOT"}, env);
    ctk::RealSystemOps ops;
    if (st) st = ctk::create_device_nodes(o, ops);
    globals.report(st);
  });
}

}  // namespace nvct::cmd::nvidia_ctk
