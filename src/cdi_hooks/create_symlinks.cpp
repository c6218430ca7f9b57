#include "nvct/cdi_hooks/create_symlinks.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <unistd.h>

#include <algorithm>

#include "nvct/base/log.hpp"
#include "nvct/mount/container_path.hpp"
#include "nvct/mount/journal.hpp"
#include "nvct/mount/symlink.hpp"

namespace nvct::cdi_hooks {
namespace {

// True when `link` already is a symlink whose text is `target`. The parent is resolved in-root
// without following the link itself; a missing parent simply means "not there yet".
bool already_points_to(const mount::Root& rootfs, const edits::Symlink& link) {
  auto clean = mount::clean_container_path(link.container_path, mount::PathPolicy::kDefault);
  if (!clean) return false;
  auto parent = rootfs.open_in_root(mount::dirname_of(*clean), O_PATH | O_DIRECTORY);
  if (!parent) return false;
  char buf[PATH_MAX];
  ssize_t n = ::readlinkat(parent->get(), mount::basename_of(*clean).c_str(), buf, sizeof buf);
  return n >= 0 && std::string(buf, static_cast<std::size_t>(n)) == link.target;
}

}  // namespace

Result<edits::Symlink> parse_link_spec(const std::string& spec) {
  auto pos = spec.find("::");
  if (pos == std::string::npos || spec.find("::", pos + 2) != std::string::npos)
    return fail(EINVAL, fmt::format("invalid symlink specification {}", spec));
  edits::Symlink link{spec.substr(pos + 2), spec.substr(0, pos)};
  if (link.target.empty() || link.container_path.empty())
    return fail(EINVAL, fmt::format("invalid symlink specification {}", spec));
  return link;
}

Status create_symlinks(const mount::Root& rootfs, const std::vector<std::string>& link_specs) {
  // Parse everything before touching the container.
  std::vector<edits::Symlink> links;
  for (const auto& spec : link_specs) {
    NVCT_ASSIGN_OR_RETURN(edits::Symlink link,
                          with_context(parse_link_spec(spec), "create-symlinks"));
    if (std::find(links.begin(), links.end(), link) == links.end()) links.push_back(link);
  }
  mount::Journal journal;
  for (const auto& link : links) {
    if (already_points_to(rootfs, link)) {
      log::debug("symlink {} -> {} already exists", link.container_path, link.target);
      continue;
    }
    Status s = mount::create_symlink(rootfs, link, journal, mount::ExistingLink::kReplace);
    if (!s) {
      Status undo = journal.rollback();
      if (!undo) log::warn("rollback after a failed symlink: {}", undo.error().message());
      return with_context(std::move(s), "create-symlinks");
    }
  }
  journal.commit();
  return ok();
}

}  // namespace nvct::cdi_hooks
