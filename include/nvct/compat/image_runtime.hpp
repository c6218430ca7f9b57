// What CUDA runtime an image needs and which forward-compat package it ships (spec/compat.md §4),
// read from the image rootfs without running anything: libcudart file names in the library dirs
// and /usr/local/cuda*/lib64 (targets/*/lib), CUDA_VERSION of the image config,
// /usr/local/cuda/version.json and version.txt; /usr/local/cuda/compat/libcuda.so.*. Every path
// is resolved in-root (driver::DriverRoot: openat2 RESOLVE_IN_ROOT), so a link out of the rootfs
// stays inside it. Small and bounded: at most a few dozen directory listings and file opens.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/driver/driver_root.hpp"

namespace nvct::compat {

// The image's environment as far as the explainer cares (config.Env of the image, or --env).
struct ImageEnv {
  std::optional<std::string> cuda_version;         // CUDA_VERSION
  std::optional<std::string> require_cuda;         // NVIDIA_REQUIRE_CUDA
  bool disable_ptx_jit = false;                    // CUDA_DISABLE_PTX_JIT=1
  // Parses "K=V" entries; unrelated keys are ignored.
  static ImageEnv from_entries(const std::vector<std::string>& entries);
};

struct CudartCopy {
  std::string path;     // rootfs-relative, "usr/local/cuda-12.4/lib64/libcudart.so.12.4.127"
  std::string version;  // "12.4"
};

struct CompatPackage {
  bool present = false;
  std::string path;                         // the libcuda file, rootfs-relative
  std::optional<std::string> driver_version;  // from the file name: "550.54.15"
  std::optional<std::string> cuda_version;    // ELF note, else derived from the driver branch
};

struct ImageRuntime {
  std::optional<std::string> version;  // major.minor the image needs; nullopt: unknown
  std::string source;  // "libcudart", "CUDA_VERSION", "version.json", "version.txt", ""
  std::string path;    // the file that decided (rootfs-relative), "" for CUDA_VERSION
  std::vector<CudartCopy> cudart;  // every copy found, sorted by path
  std::optional<std::string> version_json, version_txt;  // what those files say, if present
  CompatPackage compat;
};

// "libcudart.so.12.4.127" -> "12.4"; nullopt for "libcudart.so.12" or "libcudart.so" (the soname
// says too little: 11.0 for every 11.x).
std::optional<std::string> cudart_file_version(std::string_view file_name);

// The version.json text's cuda.version (major.minor); nullopt when absent or malformed.
std::optional<std::string> version_json_cuda(std::string_view json);
// "CUDA Version 10.2.89" -> "10.2".
std::optional<std::string> version_txt_cuda(std::string_view text);

// Reads the image. `with_cudart` false skips the libcudart search (explain_requirement, which
// only needs the compat package). Errors only when the rootfs itself cannot be opened.
Result<ImageRuntime> read_image_runtime(const driver::DriverRoot& rootfs, const ImageEnv& env,
                                        bool with_cudart = true);

// Only the forward-compat package.
CompatPackage read_compat_package(const driver::DriverRoot& rootfs);

}  // namespace nvct::compat
