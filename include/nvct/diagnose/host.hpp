// The host doctor looks at (spec/doctor.md §2): every host path is read below --root through a
// root fd (driver::DriverRoot: openat2 RESOLVE_IN_ROOT), files named by a flag are read as given,
// and facts several families need (procfs, config, engine configs) are read once per run.
// Everything here is read-only: opens are O_RDONLY or O_PATH, nothing is created or executed.
#pragma once

#include <sys/stat.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/driver/driver_info.hpp"
#include "nvct/driver/driver_root.hpp"

namespace nvct::diagnose {

struct Options {
  std::string root = "/";
  std::optional<std::string> driver_root;  // default: config nvidia-container-cli.root, else root
  // Files and folders a flag named; unset: the default below the root.
  std::optional<std::string> config, docker_config, containerd_config, crio_config,
      crio_drop_in_dir;
  std::vector<std::string> cdi_spec_dirs;
  std::vector<std::string> only, skip;  // families
  bool no_nvml = false;
  // Runs NVML for the driver family; unset: driver::isolated_nvml_query() (a child process).
  driver::NvmlQuery nvml;
};

// A file the checks read: one a flag named (read as given) or a default below the root.
struct SourceFile {
  std::string path;
  bool under_root = true;
};

struct ProcFacts;
struct ConfigFacts;
struct EngineFacts;

class Host {
 public:
  // Fails when the root is not a directory.
  static Result<Host> open(Options options);

  Host(Host&&) noexcept;
  Host& operator=(Host&&) noexcept;
  ~Host();

  const Options& options() const { return options_; }
  const driver::DriverRoot& root() const { return root_; }

  // Root-relative reads. Errors keep the errno (ENOENT for an absent file).
  Result<std::string> read(std::string_view rel, std::size_t max_size = 1u << 20) const;
  // lstat() of a root-relative path (symlinks in its parent folders are resolved in the root).
  std::optional<struct stat> lstat(std::string_view rel) const;
  // stat() following links inside the root.
  std::optional<struct stat> stat(std::string_view rel) const;
  bool exists(std::string_view rel) const { return stat(rel).has_value(); }
  std::vector<std::string> list_dir(std::string_view rel) const;  // empty when unreadable

  Result<std::string> read(const SourceFile& file, std::size_t max_size = 1u << 20) const;
  std::optional<struct stat> stat(const SourceFile& file) const;
  // Sorted entries of a folder named by a SourceFile.
  std::vector<std::string> list_dir(const SourceFile& dir) const;

  const SourceFile& config_file() const { return config_file_; }
  const SourceFile& docker_config() const { return docker_config_; }
  const SourceFile& containerd_config() const { return containerd_config_; }
  const SourceFile& crio_config() const { return crio_config_; }
  const SourceFile& crio_drop_in_dir() const { return crio_drop_in_dir_; }

  // Facts shared by families, read on first use.
  const ProcFacts& proc();
  const ConfigFacts& config();
  const EngineFacts& engines();
  // The driver root: --driver-root, else config nvidia-container-cli.root below the root, else
  // the root. An error when it cannot be opened.
  const Result<driver::DriverRoot>& driver_root();
  // The driver root as printed (its path below the host root).
  std::string driver_root_display();
  // What NVML reported, when the driver family queried it (read by the mig family: procfs alone
  // cannot tell MIG off from MIG on without instances).
  std::optional<driver::NvmlFacts> nvml_facts;

 private:
  Host(Options options, driver::DriverRoot root);

  Options options_;
  driver::DriverRoot root_;
  SourceFile config_file_, docker_config_, containerd_config_, crio_config_, crio_drop_in_dir_;
  std::unique_ptr<ProcFacts> proc_;
  std::unique_ptr<ConfigFacts> config_;
  std::unique_ptr<EngineFacts> engines_;
  std::optional<Result<driver::DriverRoot>> driver_root_;
};

// The default PATH the engines and the hook use, in lookup order.
inline constexpr std::string_view kDefaultPath =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// Whether a root-relative path is a directory (links followed inside the root).
bool is_dir(const Host& host, std::string_view rel);

// The first root-relative path of `name` on kDefaultPath that is a regular file, or "".
std::string find_on_path(const Host& host, std::string_view name);

// The OCI hooks.d file (Podman, CRI-O) that names nvidia-container-runtime-hook, or "".
std::string oci_hook_file(const Host& host);

}  // namespace nvct::diagnose
