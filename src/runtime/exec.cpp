#include "nvct/runtime/exec.hpp"

#include <unistd.h>

#include <cerrno>

extern char** environ;

namespace nvct::runtime {

std::vector<std::string> runtime_argv(const std::string& runtime, int argc,
                                      const char* const* argv) {
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(argc > 0 ? argc : 1));
  out.push_back(runtime);
  for (int i = 1; i < argc; ++i) out.emplace_back(argv[i]);
  return out;
}

Status exec_runtime(const std::string& runtime, const std::vector<std::string>& argv) {
  std::vector<char*> raw;
  raw.reserve(argv.size() + 1);
  for (const auto& arg : argv) raw.push_back(const_cast<char*>(arg.c_str()));
  raw.push_back(nullptr);
  ::execve(runtime.c_str(), raw.data(), environ);
  return fail_errno("exec low-level runtime " + runtime);
}

}  // namespace nvct::runtime
