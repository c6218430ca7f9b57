// nvidia-container-runtime-nvml: runs the NVML query for the static runtime shim, which cannot
// dlopen libnvidia-ml.so.1 itself (include/nvct/driver/nvml_helper.hpp has the protocol). It
// chroots into the driver root, drops to the given user and every capability, queries NVML and
// writes the JSON reply on stdout. Inputs come from argv only; the environment is never read.
#include <unistd.h>

#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "nvct/base/file.hpp"
#include "nvct/driver/nvml_helper.hpp"
#include "nvct/driver/nvml_process.hpp"

namespace {

using namespace nvct;

constexpr const char* kUsage =
    "usage: nvidia-container-runtime-nvml --root <driver root> --library <path in the root> "
    "[--user <uid>:<gid>]\n";

int usage_error(const std::string& message) {
  (void)write_all(STDERR_FILENO,
                  fmt::format("nvidia-container-runtime-nvml: {}\n{}", message, kUsage));
  return driver::kNvmlHelperUsage;
}

int run(int argc, char** argv) {
  // 1. The request, from argv alone.
  std::vector<std::string> args(argv + 1, argv + argc);
  auto options = driver::parse_nvml_helper_args(args);
  if (!options) return usage_error(options.error().message());

  // 2. Isolate and query: irreversible, this process exists only for it.
  auto facts = driver::query_nvml_here(*options);

  // 3. The reply, facts or error, in the wire form the shim decodes.
  if (!write_all(STDOUT_FILENO, driver::encode_nvml_result(facts)))
    return driver::kNvmlHelperWriteFailed;
  return facts ? driver::kNvmlHelperOk : driver::kNvmlHelperQueryFailed;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    return usage_error(fmt::format("unexpected error: {}", e.what()));
  }
}
