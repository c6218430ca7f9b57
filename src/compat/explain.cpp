#include "nvct/compat/explain.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>

#include "nvct/base/strings.hpp"
#include "nvct/base/unique_fd.hpp"
#include "nvct/request/requirement_expr.hpp"

namespace nvct::compat {
namespace {

constexpr int kMaxDepth = 64;

bool is_dir_at(int dirfd, const char* name) {
  struct stat st {};
  return ::fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

// Walks a directory without following symlinks (so nothing outside it is read), scanning every
// regular file. Pseudo filesystems of a rootfs are skipped.
void walk(int dirfd, const std::string& prefix, int depth, const ExplainOptions& o,
          const ScanLimits& limits, Report& report, std::uint64_t& count) {
  if (depth > kMaxDepth) return;
  int dup = ::fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
  if (dup < 0) return;
  DIR* dir = ::fdopendir(dup);
  if (!dir) {
    ::close(dup);
    return;
  }
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(dir)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    std::string rel = prefix.empty() ? name : prefix + "/" + name;
    if (depth == 0 && report.kind == InputKind::rootfs &&
        (name == "proc" || name == "sys" || name == "dev"))
      continue;
    struct stat st {};
    if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      int sub = ::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) continue;
      unique_fd guard(sub);
      walk(sub, rel, depth + 1, o, limits, report, count);
      continue;
    }
    if (!S_ISREG(st.st_mode)) continue;  // links, devices, FIFOs, sockets
    if (++count > o.max_files) return;
    auto code = scan_file(dirfd, name, limits);
    if (!code) {
      report.errors.push_back(fmt::format("{}: {}", rel, code.error().message()));
      continue;
    }
    code->path = rel;
    report.files.push_back({std::move(*code), {}});
  }
}

void judge_files(Report& report, const ExplainOptions& o) {
  std::vector<FileReport> kept;
  for (auto& f : report.files) {
    if (f.code.error) {
      kept.push_back(std::move(f));
      continue;
    }
    if (!f.code.has_gpu_code()) {
      ++report.host_only_files;
      if (o.all_files) kept.push_back(std::move(f));
      continue;
    }
    for (const auto& g : report.driver.gpus) {
      if (g.arch.empty()) continue;
      f.verdicts.push_back({g.label(), judge_code(f.code.entries, g.arch,
                                                  report.driver.cuda_version,
                                                  o.env.disable_ptx_jit)});
    }
    kept.push_back(std::move(f));
  }
  report.files = std::move(kept);
}

int exit_code(const Report& r, bool strict) {
  int code = 0;
  auto add = [&](int c) {
    if (c == 2 || code == 2) {
      code = 2;
    } else {
      code = std::max(code, c);
    }
  };
  if (!r.errors.empty()) add(2);
  if (r.runtime) add(exit_code_of(r.runtime->verdict, strict));
  for (const auto& f : r.files) {
    if (f.code.error) add(2);
    for (const auto& v : f.verdicts) add(exit_code_of(v.verdict.verdict, strict));
  }
  return code;
}

}  // namespace

std::string_view to_string(InputKind k) {
  switch (k) {
    case InputKind::rootfs:
      return "rootfs";
    case InputKind::tree:
      return "tree";
    case InputKind::file:
      break;
  }
  return "file";
}

Result<Report> explain(const ExplainOptions& o, const DriverFacts& driver) {
  Report report;
  report.path = o.path;
  report.driver = driver;
  ScanLimits limits;
  limits.max_file_size = o.max_file_size;
  struct stat st {};
  if (::stat(o.path.c_str(), &st) != 0)
    return fail_errno(fmt::format("cuda explain: open {}", o.path));
  std::uint64_t count = 0;
  if (S_ISDIR(st.st_mode)) {
    int fd = ::open(o.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return fail_errno(fmt::format("cuda explain: open directory {}", o.path));
    unique_fd dir(fd);
    bool rootfs = o.force_rootfs || (is_dir_at(fd, "etc") && is_dir_at(fd, "usr"));
    report.kind = rootfs ? InputKind::rootfs : InputKind::tree;
    if (rootfs) {
      NVCT_ASSIGN_OR_RETURN(auto root, driver::DriverRoot::open(o.path));
      NVCT_ASSIGN_OR_RETURN(auto image, read_image_runtime(root, o.env));
      report.runtime = judge_runtime(image, driver, o.compat_disabled);
      report.image = std::move(image);
    }
    if (o.env.require_cuda) {
      report.require_cuda = o.env.require_cuda;
      request::RequirementFacts facts;
      facts.cuda_version = driver.cuda_version;
      facts.driver_version = driver.version;
      for (const auto& g : driver.gpus) {
        request::DeviceFacts d;
        if (!g.arch.empty()) d.arch = g.arch;
        if (!g.brand.empty()) d.brand = g.brand;
        facts.devices.push_back(d);
      }
      report.require_cuda_satisfied = request::check_requirement(*o.env.require_cuda, facts).has_value();
    }
    walk(fd, "", 0, o, limits, report, count);
  } else {
    report.kind = InputKind::file;
    auto code = scan_file(AT_FDCWD, o.path, limits);
    if (!code) return tl::unexpected(code.error().context("cuda explain"));
    code->path = std::string(strings::basename(o.path));
    report.files.push_back({std::move(*code), {}});
  }
  std::sort(report.files.begin(), report.files.end(),
            [](const FileReport& a, const FileReport& b) { return a.code.path < b.code.path; });
  judge_files(report, o);
  report.exit_code = exit_code(report, o.strict);
  return report;
}

}  // namespace nvct::compat
