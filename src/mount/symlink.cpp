#include "nvct/mount/symlink.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>


#include "nvct/base/log.hpp"
#include "nvct/base/random_name.hpp"
#include "nvct/mount/container_path.hpp"
#include "nvct/mount/target.hpp"

namespace nvct::mount {
namespace {

std::string temp_name(const std::string& base) {
  return fmt::format(".{}.nvct-{}", base, random_hex(8));
}

// Links never go under /dev, except the DRM by-path links of graphics containers
// (runtime.md §7.3: /dev/dri/by-path/pci-<bus>-card -> ../cardN), which are allowed where
// device nodes are (PathPolicy::kDevice: /dev/dri, and never a /dev that resolves elsewhere).
PathPolicy link_policy(const std::string& path) {
  return path.rfind("/dev/dri/by-path/", 0) == 0 ? PathPolicy::kDevice : PathPolicy::kDefault;
}

// The link's final place, as the kernel resolved its parent, must still be an allowed target.
Status check_link_location(const Root& rootfs, int parent, const std::string& name,
                           PathPolicy policy) {
  auto where = rootfs.relative_path(parent);
  if (!where) return tl::unexpected(std::move(where).error());
  std::string full = where->size() == 1 ? "/" + name : *where + "/" + name;
  return check_resolved_location(full, policy);
}

}  // namespace

Status create_symlink(const Root& rootfs, const edits::Symlink& link, Journal& journal,
                      ExistingLink existing) {
  auto run = [&]() -> Status {
    if (link.target.empty() || link.target.find('\0') != std::string::npos)
      return fail(EINVAL, "empty or invalid link target");
    NVCT_ASSIGN_OR_RETURN(std::string clean,
                          clean_container_path(link.container_path,
                                               link_policy(link.container_path)));
    if (link_policy(clean) != link_policy(link.container_path))  // "/dev/dri/by-path/../x"
      return fail(EPERM, fmt::format("link {} leaves /dev/dri/by-path", link.container_path));
    std::string name = basename_of(clean);
    NVCT_ASSIGN_OR_RETURN(unique_fd parent, mkdir_all_in_root(rootfs, dirname_of(clean), &journal));
    NVCT_TRY(check_link_location(rootfs, parent.get(), name, link_policy(clean)));
    if (::symlinkat(link.target.c_str(), parent.get(), name.c_str()) == 0) {
      NVCT_TRY(journal.record_created(Journal::Kind::kSymlink, parent.get(), name));
      log::info("created symlink {} -> {}", clean, link.target);
      return ok();
    }
    if (errno != EEXIST) return fail_errno("symlinkat");
    if (existing == ExistingLink::kKeep) {
      log::debug("symlink {} already exists; keeping it", clean);
      return ok();
    }
    struct stat st {};
    if (::fstatat(parent.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
      return fail(EISDIR, "a directory exists where the link goes");
    std::string tmp = temp_name(name);
    if (::symlinkat(link.target.c_str(), parent.get(), tmp.c_str()) != 0)
      return fail_errno("symlinkat temporary link");
    if (::renameat(parent.get(), tmp.c_str(), parent.get(), name.c_str()) != 0) {
      auto err = fail_errno("rename temporary link into place");
      ::unlinkat(parent.get(), tmp.c_str(), 0);
      return err;
    }
    log::info("replaced symlink {} -> {}", clean, link.target);
    return ok();
  };
  return with_context(run(), fmt::format("create symlink {}", link.container_path));
}

}  // namespace nvct::mount
