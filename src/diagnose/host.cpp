// Host: every read below --root goes through the root fd (openat2 RESOLVE_IN_ROOT in
// driver::DriverRoot), so a hostile symlink in a mock or real tree cannot send doctor outside it.
#include "nvct/diagnose/host.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <fmt/format.h>
#include <filesystem>

#include "nvct/base/file.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/diagnose/config_facts.hpp"
#include "nvct/diagnose/engine_facts.hpp"
#include "nvct/diagnose/proc_facts.hpp"

namespace nvct::diagnose {
namespace {

SourceFile source(const std::optional<std::string>& flag, std::string_view default_rel) {
  if (flag) return {*flag, false};
  return {std::string(default_rel), true};
}

}  // namespace

Host::Host(Options options, driver::DriverRoot root)
    : options_(std::move(options)),
      root_(std::move(root)),
      config_file_(source(options_.config, "/etc/nvidia-container-runtime/config.toml")),
      docker_config_(source(options_.docker_config, "/etc/docker/daemon.json")),
      containerd_config_(source(options_.containerd_config, "/etc/containerd/config.toml")),
      crio_config_(source(options_.crio_config, "/etc/crio/crio.conf")),
      crio_drop_in_dir_(source(options_.crio_drop_in_dir, "/etc/crio/crio.conf.d")) {}

Host::Host(Host&&) noexcept = default;
Host& Host::operator=(Host&&) noexcept = default;
Host::~Host() = default;

Result<Host> Host::open(Options options) {
  struct stat st {};
  if (::stat(options.root.c_str(), &st) != 0) {
    return fail_errno(fmt::format("open host root {} (--root)", options.root));
  }
  if (!S_ISDIR(st.st_mode)) {
    return fail(ENOTDIR, fmt::format("open host root {} (--root): not a directory; give the "
                                     "folder that holds the host's /proc, /dev and /etc",
                                     options.root));
  }
  NVCT_ASSIGN_OR_RETURN(driver::DriverRoot root, driver::DriverRoot::open(options.root));
  return Host(std::move(options), std::move(root));
}

Result<std::string> Host::read(std::string_view rel, std::size_t max_size) const {
  return root_.read(rel, max_size);
}

std::optional<struct stat> Host::lstat(std::string_view rel) const {
  std::string path = driver::normalize_path(rel);
  if (path == "/") return stat(path);
  std::string dir = strings::dirname(path);
  std::string name(strings::basename(path));
  auto fd = root_.open_file(dir, O_PATH | O_DIRECTORY);
  if (!fd) return std::nullopt;
  struct stat st {};
  if (::fstatat(fd->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;
  return st;
}

std::optional<struct stat> Host::stat(std::string_view rel) const {
  auto st = root_.stat(rel);
  if (!st) return std::nullopt;
  return *st;
}

std::vector<std::string> Host::list_dir(std::string_view rel) const {
  auto entries = root_.list_dir(rel);
  return entries ? *entries : std::vector<std::string>{};
}

Result<std::string> Host::read(const SourceFile& file, std::size_t max_size) const {
  if (file.under_root) return read(file.path, max_size);
  return read_file(file.path, max_size);
}

std::optional<struct stat> Host::stat(const SourceFile& file) const {
  if (file.under_root) return stat(file.path);
  struct stat st {};
  if (::stat(file.path.c_str(), &st) != 0) return std::nullopt;
  return st;
}

std::vector<std::string> Host::list_dir(const SourceFile& dir) const {
  if (dir.under_root) return list_dir(dir.path);
  std::vector<std::string> names;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir.path, ec), end; !ec && it != end;
       it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

const ProcFacts& Host::proc() {
  if (!proc_) proc_ = std::make_unique<ProcFacts>(read_proc_facts(*this));
  return *proc_;
}

const ConfigFacts& Host::config() {
  if (!config_) config_ = std::make_unique<ConfigFacts>(read_config_facts(*this));
  return *config_;
}

const EngineFacts& Host::engines() {
  if (!engines_) engines_ = std::make_unique<EngineFacts>(read_engine_facts(*this));
  return *engines_;
}

const Result<driver::DriverRoot>& Host::driver_root() {
  if (!driver_root_) {
    if (options_.driver_root) {
      driver_root_ = with_context(driver::DriverRoot::open(*options_.driver_root),
                                  "open the driver root (--driver-root)");
    } else {
      const std::string& configured = config().config.cli.root;
      if (configured.empty() || driver::normalize_path(configured) == "/") {
        driver_root_ = root_;
      } else {
        driver_root_ =
            with_context(driver::DriverRoot::open(root_.host_path(configured)),
                         fmt::format("open the driver root {} (nvidia-container-cli.root of {})",
                                     configured, config().path));
      }
    }
  }
  return *driver_root_;
}

std::string Host::driver_root_display() {
  if (options_.driver_root) return *options_.driver_root;
  const std::string& configured = config().config.cli.root;
  return configured.empty() ? "/" : configured;
}

bool is_dir(const Host& host, std::string_view rel) {
  auto st = host.stat(rel);
  return st && S_ISDIR(st->st_mode);
}

std::string find_on_path(const Host& host, std::string_view name) {
  for (const auto& dir : strings::split(kDefaultPath, ':')) {
    std::string path = dir + "/" + std::string(name);
    auto st = host.stat(path);
    if (st && S_ISREG(st->st_mode)) return path;
  }
  return "";
}

std::string oci_hook_file(const Host& host) {
  for (const char* dir : {"/etc/containers/oci/hooks.d", "/usr/share/containers/oci/hooks.d"}) {
    for (const auto& name : host.list_dir(dir)) {
      std::string path = fmt::format("{}/{}", dir, name);
      auto text = host.read(path, 1u << 20);
      if (text && text->find("nvidia-container-runtime-hook") != std::string::npos) return path;
    }
  }
  return "";
}

}  // namespace nvct::diagnose
