// `nvidia-ctk cuda explain` (spec/compat.md §2, §6): will the GPU code in this image, tree or file
// run on this driver and these GPUs, and why. Reads, never runs: every file of the input is
// scanned with compat::scan_file (ELF + fatbinary reader), image-level facts come from
// image_runtime.hpp, driver facts from driver_facts.hpp. Rootfs paths are resolved in-root.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/compat/driver_facts.hpp"
#include "nvct/compat/fatbin.hpp"
#include "nvct/compat/image_runtime.hpp"
#include "nvct/compat/verdict.hpp"

namespace nvct::compat {

enum class InputKind { rootfs, tree, file };
std::string_view to_string(InputKind k);  // "rootfs", "tree", "file"

struct ExplainOptions {
  std::string path;
  bool force_rootfs = false;  // --rootfs
  ImageEnv env;               // --env, --image-config
  bool compat_disabled = false;
  bool all_files = false;  // --all-files: host-only files are listed too
  bool strict = false;
  std::uint64_t max_file_size = std::uint64_t{2} << 30;
  std::uint64_t max_files = 1000000;
};

struct FileVerdict {
  std::string gpu;  // label: "GPU 0", "sm_80"
  CodeVerdict verdict;
};

struct FileReport {
  FileCode code;
  std::vector<FileVerdict> verdicts;
};

struct Report {
  std::string path;
  InputKind kind = InputKind::file;
  DriverFacts driver;
  std::optional<ImageRuntime> image;  // rootfs input only
  std::optional<std::string> require_cuda;
  std::optional<bool> require_cuda_satisfied;
  std::optional<RuntimeVerdict> runtime;  // rootfs input only
  std::vector<FileReport> files;          // sorted by path; host-only files only with all_files
  std::uint64_t host_only_files = 0;
  std::vector<std::string> errors;  // files that could not be read
  int exit_code = 0;
};

// Rootfs when --rootfs or the directory has etc/ and usr/; another directory is a tree; else a
// single file. Errors: the input cannot be opened (exit 2 in the command).
Result<Report> explain(const ExplainOptions& options, const DriverFacts& driver);

std::string render_text(const Report& report);
std::string render_json(const Report& report);
// The --list form: cuobjdump --list-elf then --list-ptx of every file.
std::string render_list(const Report& report);

}  // namespace nvct::compat
