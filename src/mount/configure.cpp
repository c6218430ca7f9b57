// configure(): the legacy-mode job of mount.md §3, one stage after the other, each failure
// carrying the reference's stage prefix (cli.md §2).
#include "nvct/mount/configure.hpp"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/compat/requirement_explain.hpp"
#include "nvct/driver/device_nodes.hpp"
#include "nvct/driver/device_selection.hpp"
#include "nvct/driver/driver_info.hpp"
#include "nvct/driver/facts_cache.hpp"
#include "nvct/driver/listing.hpp"
#include "nvct/driver/procfs.hpp"
#include "nvct/edits/builder.hpp"
#include "nvct/mount/cgroup.hpp"
#include "nvct/mount/configure_compat.hpp"
#include "nvct/mount/configure_layout.hpp"
#include "nvct/mount/configure_namespace.hpp"
#include "nvct/mount/configure_steps.hpp"
#include "nvct/mount/ldcache_writer.hpp"
#include "nvct/mount/ldconfig.hpp"
#include "nvct/mount/target.hpp"
#include "nvct/request/requirement_expr.hpp"

namespace nvct::mount {
namespace {

template <class T>
Result<T> staged(Result<T> r, std::string_view stage) {
  if (!r)
    return tl::unexpected(
        Error(r.error().code(), fmt::format("{} error: {}", stage, r.error().message())));
  return r;
}

Result<driver::NvmlUser> nvml_user(const std::optional<std::string>& user) {
  if (!user) {
    if (::geteuid() != 0) return driver::NvmlUser{::geteuid(), ::getegid()};
    return driver::default_nvml_user();
  }
  auto colon = user->find(':');
  auto uid = driver::parse_unsigned(user->substr(0, colon));
  if (!uid) return fail(EINVAL, fmt::format("invalid user: {}", *user));
  driver::NvmlUser u{*uid, *uid};
  if (colon != std::string::npos) {
    auto gid = driver::parse_unsigned(user->substr(colon + 1));
    if (!gid) return fail(EINVAL, fmt::format("invalid user: {}", *user));
    u.gid = *gid;
  }
  return u;
}

driver::DiscoverOptions discover_options(const ConfigureOptions& o) {
  driver::DiscoverOptions d;
  d.root = o.root.empty() ? "/" : o.root;
  if (!o.ldcache.empty()) d.ldcache = o.ldcache;
  if (const char* path = ::secure_getenv("PATH"); path && *path) d.path_env = path;
  if (const char* mps = ::secure_getenv("CUDA_MPS_PIPE_DIRECTORY"); mps && *mps)
    d.mps_pipe_dir = mps;
  d.no_persistenced = o.no_persistenced;
  d.no_fabricmanager = o.no_fabricmanager;
  d.no_gsp_firmware = o.no_gsp_firmware;
  d.libs32 = o.compat32;
  return d;
}

Result<driver::DriverInfo> open_driver(const ConfigureOptions& o) {
  driver::DiscoverOptions d = discover_options(o);
  if (o.load_kmods) {
    driver::KmodOptions k;
    k.root = d.root;
    k.create_imex_channels = !o.no_create_imex_channels;
    for (const auto& c : o.imex_channels)
      if (auto n = driver::parse_unsigned(c)) k.imex_channels.push_back(*n);
    NVCT_TRY(staged(driver::load_kernel_modules(k), "initialization"));
  }
  NVCT_ASSIGN_OR_RETURN(d.nvml_user, staged(nvml_user(o.user), "initialization"));
  NVCT_ASSIGN_OR_RETURN(
      auto ctx,
      staged(driver::initialize_driver(
                 // The hook's configure runs per container: NVML only when the driver changed.
                 d, driver::cached_nvml_query(driver::isolated_nvml_query(d.nvml_user))),
             "initialization"));
  return staged(driver::discover_driver(ctx, d), "detection");
}

std::string ldconfig_host_path(const ConfigureOptions& o) {
  if (!o.ldconfig.empty()) return o.ldconfig.substr(1);
  // Without --ldconfig the reference runs the image's own ldconfig; nvct never executes a
  // binary of the image, so it takes the host's (the toolkit's @/sbin/ldconfig[.real]).
  return ::access("/sbin/ldconfig.real", X_OK) == 0 ? "/sbin/ldconfig.real" : "/sbin/ldconfig";
}

// Wall time per phase, logged at debug level for bench/hook (discovery = everything before the
// first change to the container).
class PhaseClock {
 public:
  double lap() {
    auto now = std::chrono::steady_clock::now();
    double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
    return ms;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace

Status configure(const ConfigureOptions& o) {
  PhaseClock clock;
  NVCT_ASSIGN_OR_RETURN(ValidatedConfigure v, validate_configure_options(o));
  // Without --pid the parent is the container, in its own namespaces (standalone mode).
  NVCT_ASSIGN_OR_RETURN(
      ContainerProcess process,
      staged(open_container_process(o.pid.value_or(::getppid()), !o.pid), "container"));
  NVCT_ASSIGN_OR_RETURN(Root rootfs,
                        staged(with_context(Root::open(o.rootfs), "open rootfs"), "container"));
  NVCT_ASSIGN_OR_RETURN(edits::ContainerLayout layout,
                        staged(choose_container_layout(rootfs), "container"));

  NVCT_ASSIGN_OR_RETURN(driver::DriverInfo info, open_driver(o));
  NVCT_ASSIGN_OR_RETURN(
      driver::DeviceSelection sel,
      staged(driver::select_devices(info.gpus, v.devices, o.devices_source), "device"));
  NVCT_ASSIGN_OR_RETURN(auto root, staged(driver::DriverRoot::open(info.root), "detection"));
  NVCT_ASSIGN_OR_RETURN(edits::BuildOptions build, build_options(o, v, info, sel, root, layout));

  // The reference's line, then nvct's one-line reason (issue 17, compat.md §6.6).
  NVCT_TRY(compat::check_requirements_explained(
      o.requirements, requirement_facts(info, sel),
      {.rootfs = o.rootfs, .compat_disabled = v.compat == CudaCompatMode::kDisabled}));
  std::optional<std::string> compat_folder;
  if (o.compute && v.compat == CudaCompatMode::kLdconfig) {
    NVCT_ASSIGN_OR_RETURN(compat_folder,
                          staged(compat_ldconfig_folder(rootfs, info.nvrm_version), "container"));
  }

  edits::Edits edits = edits::build_edits(info, sel, build);
  auto special = edits::build_special_mounts(info, sel, build);
  double discovery_ms = clock.lap();
  // The device cgroup rules are written while the child mounts (they do not depend on each
  // other); a mount error is reported first, as when they ran one after the other.
  Status cgroups = ok();
  double cgroups_ms = 0;
  auto write_cgroup_rules = [&] {
    if (o.no_cgroups) return;
    PhaseClock cgroup_clock;
    auto cgroup = find_device_cgroup(process.pid, ::getpid());
    if (!cgroup)
      cgroups = staged(Status(tl::unexpected(cgroup.error())), "container");
    else
      cgroups = staged(
          with_context(allow_devices(*cgroup, edits.cgroup_rules), "failed to add device rules"),
          "mount");
    cgroups_ms = cgroup_clock.lap();
  };
  NVCT_TRY(staged(
      apply_in_container(process, info.root, o.rootfs, edits, special, write_cgroup_rules),
      "mount"));
  // As the reference: the container's binaries and libraries directories exist afterwards even
  // when nothing is mounted in them (--video, --graphics, no capability at all).
  for (const auto& dir : {layout.bins_dir, layout.libs_dir}) {
    NVCT_TRY(staged(with_context(mkdir_all_in_root(rootfs, dir), "create " + dir), "mount"));
  }
  NVCT_TRY(cgroups);
  double mounts_ms = clock.lap();  // the cgroup rules' time (cgroups=) is inside it

  LdconfigOptions ld;
  ld.host_ldconfig = ldconfig_host_path(o);
  ld.folders = edits.ldcache_folders;
  if (compat_folder) ld.folders.push_back(*compat_folder);
  ld.container_pid = process.pid;
  ld.uid = process.uid;
  ld.gid = process.gid;
  NVCT_TRY(staged(check_still_running(process), "ldcache"));
  NVCT_TRY(staged(write_ldcache(rootfs, ld, o.exec_ldconfig), "ldcache"));
  double ldconfig_ms = clock.lap();
  log::debug(
      "configure timing: discovery={:.3f}ms mounts={:.3f}ms cgroups={:.3f}ms ldconfig={:.3f}ms",
      discovery_ms, mounts_ms, cgroups_ms, ldconfig_ms);
  return ok();
}

}  // namespace nvct::mount
