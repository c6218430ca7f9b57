#include "nvct/mount/target.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

#include "nvct/base/strings.hpp"

namespace nvct::mount {
namespace {

std::vector<std::string> components(const std::string& path) {
  std::vector<std::string> out;
  for (auto& c : strings::split(path, '/'))
    if (!c.empty() && c != ".") out.push_back(c);
  return out;
}

std::string prefix_path(const std::vector<std::string>& comps, std::size_t n) {
  std::vector<std::string> head(comps.begin(), comps.begin() + static_cast<long>(n));
  return "/" + strings::join(head, "/");
}

const char* type_name(mode_t mode) {
  if (S_ISREG(mode)) return "regular file";
  if (S_ISDIR(mode)) return "directory";
  if (S_ISLNK(mode)) return "symbolic link";
  if (S_ISFIFO(mode)) return "fifo";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISBLK(mode)) return "block device";
  return "unknown";
}

Result<Target> create_target_at(const Root& root, const std::string& clean, TargetKind kind,
                                PathPolicy policy, Journal* journal, int depth,
                                std::optional<mode_t> mode) {
  std::string name = basename_of(clean);
  NVCT_ASSIGN_OR_RETURN(unique_fd parent, mkdir_all_in_root(root, dirname_of(clean), journal));
  int rc = kind == TargetKind::kFile
               ? ::mknodat(parent.get(), name.c_str(), S_IFREG | mode.value_or(0644), 0)
               : ::mkdirat(parent.get(), name.c_str(), mode.value_or(0755));
  bool created = rc == 0;
  if (!created && errno != EEXIST) return fail_errno(fmt::format("create target {}", clean));
  if (created && journal)
    NVCT_TRY(journal->record_created(
        kind == TargetKind::kFile ? Journal::Kind::kFile : Journal::Kind::kDirectory, parent.get(),
        name));
  unique_fd fd(::openat(parent.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) return fail_errno(fmt::format("open target {}", clean));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return fail_errno(fmt::format("stat target {}", clean));

  if (S_ISLNK(st.st_mode)) {
    if (depth > 0) return fail(ELOOP, fmt::format("target {} is still a symlink", clean));
    auto resolved = root.open_in_root(clean, O_PATH);
    if (!resolved) {
      if (resolved.error().code() == ENOENT)
        return fail(ENOENT, fmt::format("target {} is a dangling symbolic link", clean));
      return tl::unexpected(std::move(resolved).error());
    }
    NVCT_ASSIGN_OR_RETURN(std::string in_root, root.relative_path(resolved->get()));
    NVCT_TRY(with_context(check_resolved_location(in_root, policy),
                          fmt::format("target {} is a symlink to {}", clean, in_root)));
    return create_target_at(root, in_root, kind, policy, journal, depth + 1, mode);
  }

  bool type_ok =
      kind == TargetKind::kDirectory
          ? S_ISDIR(st.st_mode)
          : S_ISREG(st.st_mode) || (policy == PathPolicy::kDevice && S_ISCHR(st.st_mode));
  if (!type_ok)
    return fail(
        kind == TargetKind::kDirectory ? ENOTDIR : EEXIST,
        fmt::format("target {} exists as a {} where a {} is needed", clean, type_name(st.st_mode),
                    kind == TargetKind::kDirectory ? "directory" : "file"));

  NVCT_ASSIGN_OR_RETURN(std::string in_root, root.relative_path(fd.get()));
  NVCT_TRY(check_resolved_location(in_root, policy));
  return Target{std::move(fd), std::move(parent), std::move(name), std::move(in_root)};
}

}  // namespace

Result<unique_fd> mkdir_all_in_root(const Root& root, const std::string& path, Journal* journal) {
  std::vector<std::string> comps = components(path);
  std::string key;
  if (journal) {
    // Opened (and checked) earlier in this run, and no directory was mounted on since.
    key = prefix_path(comps, comps.size());
    if (int known = journal->known_dir(key); known >= 0) {
      unique_fd again(::fcntl(known, F_DUPFD_CLOEXEC, 3));
      if (!again) return fail_errno(fmt::format("reuse the directory opened for {}", path));
      return again;
    }
  }
  unique_fd cur;
  std::size_t existing = comps.size();
  for (;; --existing) {
    auto r = root.open_in_root(prefix_path(comps, existing), O_PATH | O_DIRECTORY);
    if (r) {
      cur = std::move(*r);
      break;
    }
    if (r.error().code() != ENOENT || existing == 0) return tl::unexpected(std::move(r).error());
  }
  for (std::size_t i = existing; i < comps.size(); ++i) {
    const std::string& c = comps[i];
    // A `..` in the part we create would be resolved against directories we just made, in
    // userspace terms; refuse it (pathrs-lite MkdirAll does the same).
    if (c == "..") return fail(EINVAL, fmt::format("mkdir {}: `..` in the part to create", path));
    bool created = ::mkdirat(cur.get(), c.c_str(), 0755) == 0;
    if (!created && errno != EEXIST) return fail_errno(fmt::format("mkdir {} in {}", c, path));
    // Single component with O_NOFOLLOW: a symlink swapped in after mkdirat fails (ENOTDIR or
    // ELOOP) instead of being followed, which is what RESOLVE_BENEATH|NO_SYMLINKS gives.
    unique_fd next(::openat(cur.get(), c.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next) return fail_errno(fmt::format("open created directory {} in {}", c, path));
    if (created && journal)
      NVCT_TRY(journal->record_created(Journal::Kind::kDirectory, cur.get(), c));
    cur = std::move(next);
  }
  NVCT_TRY(root.relative_path(cur.get()));
  if (journal) NVCT_TRY(journal->remember_dir(key, cur.get()));
  return cur;
}

Result<Target> create_target(const Root& root, const std::string& container_path, TargetKind kind,
                             PathPolicy policy, Journal* journal, std::optional<mode_t> mode) {
  NVCT_ASSIGN_OR_RETURN(std::string clean, clean_container_path(container_path, policy));
  return with_context(create_target_at(root, clean, kind, policy, journal, 0, mode),
                      fmt::format("mount target {}", clean));
}

}  // namespace nvct::mount
