#include "nvct/compat/image_runtime.hpp"

#include <fcntl.h>
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "nvct/base/elf_note.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/compat/tables.hpp"
#include "nvct/request/requirements.hpp"

namespace nvct::compat {
namespace {

constexpr std::string_view kCudartPrefix = "libcudart.so.";
constexpr std::string_view kLibcudaPrefix = "libcuda.so.";
constexpr std::size_t kMaxVersionFile = 64 * 1024;
constexpr std::size_t kMaxCudaDirs = 16;

const char* const kLibraryDirs[] = {
    "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib",
    "/lib/x86_64-linux-gnu",     "/lib/aarch64-linux-gnu",     "/lib64",
};

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), strings::is_ascii_digit);
}

std::string relative(std::string_view path) {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  return std::string(path);
}

// The libcudart files of one directory (regular files and links alike: both name a version).
// Paths are named by the directory's in-root real path, so /usr/local/cuda -> cuda-12.4 is one
// copy, not two.
void collect_cudart(const driver::DriverRoot& root, const std::string& dir,
                    std::vector<CudartCopy>& out) {
  auto real = root.resolve(dir);
  if (!real) return;
  auto names = root.list_dir(*real);
  if (!names) return;
  for (const auto& name : *names) {
    auto version = cudart_file_version(name);
    if (!version) continue;
    std::string path = relative(*real + "/" + name);
    if (std::none_of(out.begin(), out.end(), [&](const CudartCopy& c) { return c.path == path; }))
      out.push_back({path, *version});
  }
}

// /usr/local/cuda* directories (cuda, cuda-12.4, ...), bounded.
std::vector<std::string> cuda_dirs(const driver::DriverRoot& root) {
  std::vector<std::string> out;
  auto names = root.list_dir("/usr/local");
  if (!names) return out;
  for (const auto& name : *names) {
    if (name != "cuda" && !strings::starts_with(name, "cuda-")) continue;
    out.push_back("/usr/local/" + name);
    if (out.size() >= kMaxCudaDirs) break;
  }
  return out;
}

}  // namespace

ImageEnv ImageEnv::from_entries(const std::vector<std::string>& entries) {
  ImageEnv env;
  for (const auto& e : entries) {
    auto eq = e.find('=');
    if (eq == std::string::npos) continue;
    std::string key = e.substr(0, eq), value = e.substr(eq + 1);
    if (key == "CUDA_VERSION") env.cuda_version = value;
    if (key == "NVIDIA_REQUIRE_CUDA") env.require_cuda = value;
    if (key == "CUDA_DISABLE_PTX_JIT") env.disable_ptx_jit = value == "1";
  }
  return env;
}

std::optional<std::string> cudart_file_version(std::string_view file_name) {
  if (!strings::starts_with(file_name, kCudartPrefix)) return std::nullopt;
  auto parts = strings::split(file_name.substr(kCudartPrefix.size()), '.');
  // major.minor.patch: a two-part name is the 11.x soname form ("11.0" for every 11.x).
  if (parts.size() < 3 || !all_digits(parts[0]) || !all_digits(parts[1])) return std::nullopt;
  return fmt::format("{}.{}", parts[0], parts[1]);
}

std::optional<std::string> version_json_cuda(std::string_view json) {
  auto doc = nlohmann::json::parse(json, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  for (const char* key : {"cuda", "cuda_cudart"}) {
    auto it = doc.find(key);
    if (it == doc.end() || !it->is_object()) continue;
    auto v = it->find("version");
    if (v == it->end() || !v->is_string()) continue;
    if (auto mm = parse_major_minor(v->get<std::string>())) return mm->str();
  }
  return std::nullopt;
}

std::optional<std::string> version_txt_cuda(std::string_view text) {
  constexpr std::string_view kPrefix = "CUDA Version ";
  auto pos = text.find(kPrefix);
  if (pos == std::string_view::npos) return std::nullopt;
  auto mm = parse_major_minor(strings::trim(text.substr(pos + kPrefix.size())));
  if (!mm) return std::nullopt;
  return mm->str();
}

CompatPackage read_compat_package(const driver::DriverRoot& rootfs) {
  CompatPackage out;
  const std::string dir = "/usr/local/cuda/compat";
  auto names = rootfs.list_dir(dir);
  if (!names) return out;
  for (const auto& name : *names) {
    if (!strings::starts_with(name, kLibcudaPrefix)) continue;
    std::string version = name.substr(kLibcudaPrefix.size());
    // libcuda.so.550.54.15: the driver's own version; libcuda.so.1 is the soname link.
    if (std::count(version.begin(), version.end(), '.') < 1) continue;
    if (out.driver_version && compare_driver_versions(*out.driver_version, version) >= 0) continue;
    out.present = true;
    out.path = relative(dir + "/" + name);
    out.driver_version = version;
  }
  if (!out.present) return out;
  if (auto fd = rootfs.open_file("/" + out.path, O_RDONLY)) {
    if (auto note = read_elf_note(fd->get(), "NVIDIA", 1, 32); note && *note)
      out.cuda_version = parse_major_minor(**note) ? parse_major_minor(**note)->str() : **note;
  }
  if (!out.cuda_version) out.cuda_version = cuda_for_driver(*out.driver_version);
  return out;
}

Result<ImageRuntime> read_image_runtime(const driver::DriverRoot& rootfs, const ImageEnv& env,
                                        bool with_cudart) {
  ImageRuntime out;
  if (with_cudart) {
    for (const char* dir : kLibraryDirs) collect_cudart(rootfs, dir, out.cudart);
    for (const auto& dir : cuda_dirs(rootfs)) {
      collect_cudart(rootfs, dir + "/lib64", out.cudart);
      if (auto targets = rootfs.list_dir(dir + "/targets")) {
        for (const auto& t : *targets) collect_cudart(rootfs, dir + "/targets/" + t + "/lib", out.cudart);
      }
    }
    std::sort(out.cudart.begin(), out.cudart.end(),
              [](const CudartCopy& a, const CudartCopy& b) { return a.path < b.path; });
  }
  if (auto text = rootfs.read("/usr/local/cuda/version.json", kMaxVersionFile))
    out.version_json = version_json_cuda(*text);
  if (auto text = rootfs.read("/usr/local/cuda/version.txt", kMaxVersionFile))
    out.version_txt = version_txt_cuda(*text);

  // The highest libcudart decides (a framework may bundle its own copy next to the system one).
  const CudartCopy* best = nullptr;
  for (const auto& c : out.cudart) {
    if (!best || *parse_major_minor(c.version) > *parse_major_minor(best->version)) best = &c;
  }
  if (best) {
    out.version = best->version;
    out.source = "libcudart";
    out.path = best->path;
  } else if (env.cuda_version && !env.cuda_version->empty()) {
    if (auto mm = request::cuda_major_minor(*env.cuda_version)) {
      out.version = *mm;
      out.source = "CUDA_VERSION";
    }
  }
  if (!out.version && out.version_json) {
    out.version = out.version_json;
    out.source = "version.json";
    out.path = "usr/local/cuda/version.json";
  }
  if (!out.version && out.version_txt) {
    out.version = out.version_txt;
    out.source = "version.txt";
    out.path = "usr/local/cuda/version.txt";
  }
  out.compat = read_compat_package(rootfs);
  return out;
}

}  // namespace nvct::compat
