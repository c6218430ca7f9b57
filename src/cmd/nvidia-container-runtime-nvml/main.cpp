// nvidia-container-runtime-nvml: runs the NVML query for the static runtime shim, which cannot
// dlopen libnvidia-ml.so.1 itself (include/nvct/driver/nvml_helper.hpp has the protocol). It
// chroots into the driver root, drops to the given user and every capability, queries NVML (or,
// with --query cuda, libcuda's version for the csv mode's requirements) and writes the JSON reply
// on stdout. Inputs come from argv only; the environment is never read.
#include <unistd.h>

#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "nvct/base/file.hpp"
#include "nvct/base/version_info.hpp"
#include "nvct/driver/cuda_library.hpp"
#include "nvct/driver/nvml_helper.hpp"
#include "nvct/driver/nvml_process.hpp"

namespace {

using namespace nvct;

constexpr const char* kUsage =
    "usage: nvidia-container-runtime-nvml [--query nvml|cuda] --root <driver root> "
    "--library <path in the root> [--user <uid>:<gid>]\n";

int usage_error(const std::string& message) {
  (void)write_all(STDERR_FILENO,
                  fmt::format("nvidia-container-runtime-nvml: {}\n{}", message, kUsage));
  return driver::kNvmlHelperUsage;
}

int run(int argc, char** argv) {
  // 1. The request, from argv alone. --version alone: its name and the nvct version, so a user
  //    (or `nvidia-ctk doctor`) can check that the helper matches the shim it serves.
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1 && (args[0] == "--version" || args[0] == "-version")) {
    return write_all(STDOUT_FILENO, fmt::format("nvidia-container-runtime-nvml version {}\ncommit: "
                                                "{}\n",
                                                kVersion, kGitCommit))
               ? driver::kNvmlHelperOk
               : driver::kNvmlHelperWriteFailed;
  }
  auto request = driver::parse_helper_request(args);
  if (!request) return usage_error(request.error().message());

  // 2. Isolate and query: irreversible, this process exists only for it.
  // 3. The reply, facts or error, in the wire form the shim decodes.
  std::string reply;
  bool ok = false;
  if (request->query == driver::HelperQuery::kCuda) {
    auto facts = driver::query_cuda_here(request->options);
    ok = facts.has_value();
    reply = driver::encode_cuda_result(facts);
  } else {
    auto facts = driver::query_nvml_here(request->options);
    ok = facts.has_value();
    reply = driver::encode_nvml_result(facts);
  }
  if (!write_all(STDOUT_FILENO, reply)) return driver::kNvmlHelperWriteFailed;
  return ok ? driver::kNvmlHelperOk : driver::kNvmlHelperQueryFailed;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    return usage_error(fmt::format("unexpected error: {}", e.what()));
  }
}
