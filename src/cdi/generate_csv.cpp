// `cdi generate --mode csv` (content rules in generate_modes.hpp). The CSV paths name host files
// under the driver root (dev root for nodes); nothing here touches a container rootfs.
#include <fmt/format.h>
#include <fnmatch.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/cdi/additional_gids.hpp"
#include "nvct/cdi/generate_edits.hpp"
#include "nvct/cdi/generate_modes.hpp"
#include "nvct/cdi/version.hpp"

namespace nvct::cdi {
namespace {

constexpr int kMaxLinkHops = 40;  // the kernel's own symlink limit

bool has_glob(std::string_view path) { return path.find_first_of("*?[") != std::string::npos; }

// The root-relative paths a CSV path names: itself, or its glob matches in name order.
std::vector<std::string> expand(const std::string& root, const std::string& path) {
  if (!has_glob(path)) return {path};
  std::vector<std::string> out;
  const std::string pattern = join_root(root, path);
  glob_t g{};
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    const std::size_t prefix = root == "/" ? 0 : root.size();
    for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i] + prefix);
  }
  ::globfree(&g);
  return out;
}

bool ignored(const std::vector<std::string>& patterns, const std::string& path) {
  const std::string base(strings::basename(path));
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) {
    return ::fnmatch(p.c_str(), path.c_str(), 0) == 0 || ::fnmatch(p.c_str(), base.c_str(), 0) == 0;
  });
}

std::optional<std::string> read_link(const std::string& host_path) {
  struct stat st {};
  if (::lstat(host_path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return std::nullopt;
  std::string buf(4096, '\0');
  ssize_t n = ::readlink(host_path.c_str(), buf.data(), buf.size());
  if (n < 0) return std::nullopt;
  buf.resize(static_cast<std::size_t>(n));
  return buf;
}

// Where a link's target lies, root-relative and lexically normalised.
std::string link_destination(const std::string& link, const std::string& target) {
  std::string joined = target.front() == '/' ? target : strings::dirname(link) + "/" + target;
  return std::filesystem::path(joined).lexically_normal().string();
}

bool exists(const std::string& host_path) {
  struct stat st {};
  return ::stat(host_path.c_str(), &st) == 0;
}

struct CsvContent {
  std::vector<std::string> nodes;
  std::vector<std::string> mounts;        // root-relative, mounted at the same path
  std::vector<std::string> links;         // create-symlinks args after --link
  std::vector<std::string> library_dirs;  // update-ldcache --folder
  std::string cuda_version;               // from a mounted libcuda.so.<version>
};

void add_link(CsvContent& c, const std::string& target, const std::string& link) {
  strings::append_unique(c.links, target + "::" + link);
}

Status add_library(CsvContent& c, const std::string& root, const std::string& path) {
  std::string current = path;
  std::vector<std::pair<std::string, std::string>> chain;  // (target, link)
  for (int hops = 0;; ++hops) {
    if (hops == kMaxLinkHops)
      return fail(ELOOP, fmt::format("too many levels of symbolic links resolving {}", path));
    auto target = read_link(join_root(root, current));
    if (!target) break;
    chain.emplace_back(*target, current);
    current = link_destination(current, *target);
  }
  if (!exists(join_root(root, current))) {
    log::warn("Skipping CSV library {}: {} does not exist", path, join_root(root, current));
    return ok();
  }
  strings::append_unique(c.mounts, current);
  strings::append_unique(c.library_dirs, strings::dirname(current));
  for (const auto& [target, link] : chain) add_link(c, target, link);
  const std::string base(strings::basename(current));
  constexpr std::string_view kLibcuda = "libcuda.so.";
  if (c.cuda_version.empty() && strings::starts_with(base, kLibcuda) &&
      base.size() > kLibcuda.size())
    c.cuda_version = base.substr(kLibcuda.size());
  return ok();
}

Result<CsvContent> collect(const std::vector<CsvMountSpec>& specs, const ModeOptions& o,
                           DeviceLookup& lookup) {
  CsvContent c;
  for (const auto& spec : specs) {
    if (ignored(o.csv_ignore_patterns, spec.path)) continue;
    const std::string& root = spec.type == CsvMountType::kDev ? o.dev_root : o.driver_root;
    for (const auto& path : expand(root, spec.path)) {
      if (ignored(o.csv_ignore_patterns, path)) continue;
      switch (spec.type) {
        case CsvMountType::kDev: {
          auto info = lookup.lstat(join_root(root, path));
          if (info && info->type == "c") strings::append_unique(c.nodes, path);
          break;
        }
        case CsvMountType::kLib:
          NVCT_TRY(add_library(c, root, path));
          break;
        case CsvMountType::kSym:
          if (auto target = read_link(join_root(root, path)))
            add_link(c, *target, path);
          else
            log::warn("Skipping CSV symlink {}: not a symlink under {}", path, root);
          break;
        case CsvMountType::kDir:
          if (exists(join_root(root, path))) strings::append_unique(c.mounts, path);
          break;
      }
    }
  }
  return c;
}

}  // namespace

Result<Spec> build_csv_spec(const std::vector<CsvMountSpec>& specs, const ModeOptions& o,
                            DeviceLookup& lookup) {
  NVCT_TRY(validate_hook_options(o.hooks));
  NVCT_ASSIGN_OR_RETURN(CsvContent c, collect(specs, o, lookup));
  Spec spec;
  spec.kind = o.vendor + "/" + (o.class_name.empty() ? std::string("gpu") : o.class_name);
  Device all;
  all.name = "all";
  std::vector<edits::DeviceNode> nodes;
  for (const auto& p : c.nodes) {
    edits::DeviceNode n;
    n.container_path = p;
    n.host_path = p;
    nodes.push_back(std::move(n));
  }
  ContainerEdits& e = all.container_edits;
  e.device_nodes = to_cdi_device_nodes(nodes, o.dev_root, lookup);
  for (const auto& m : c.mounts)
    e.mounts.push_back(Mount{join_root(o.driver_root, m), m, "", kDriverFileMountOptions});
  std::vector<std::string> link_args;
  for (const auto& l : c.links) {
    link_args.emplace_back("--link");
    link_args.push_back(l);
  }
  add_hook(e, o.hooks, "create-symlinks", link_args);
  if (!c.cuda_version.empty()) {
    std::vector<std::string> compat = {"--host-driver-version=" + c.cuda_version};
    if (!o.csv_compat_container_root.empty())
      compat.push_back("--cuda-compat-container-root=" + o.csv_compat_container_root);
    add_hook(e, o.hooks, "enable-cuda-compat", compat);
  }
  if (!c.library_dirs.empty()) {
    std::vector<std::string> ldcache;
    if (!o.hooks.ldconfig_path.empty()) {
      ldcache.emplace_back("--ldconfig-path");
      ldcache.push_back(o.hooks.ldconfig_path);
    }
    for (const auto& d : c.library_dirs) {
      ldcache.emplace_back("--folder");
      ldcache.push_back(d);
    }
    add_hook(e, o.hooks, "update-ldcache", ldcache);
  }
  if (!e.empty()) spec.devices.push_back(std::move(all));
  if (!o.features.no_additional_gids_for_device_nodes) add_device_node_gids(spec);
  spec.cdi_version = minimum_required_version(spec).str();
  return spec;
}

}  // namespace nvct::cdi
