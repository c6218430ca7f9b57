#include "empty_values.hpp"

namespace nvct::cmd::nvidia_ctk {

std::vector<std::string> split_empty_values(int argc, const char* const* argv) {
  std::vector<std::string> out;
  bool options = true;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") options = false;
    if (options && i > 0 && arg.size() > 3 && arg.compare(0, 2, "--") == 0 && arg.back() == '=' &&
        arg.find('=') == arg.size() - 1) {
      arg.pop_back();
      out.push_back(arg);
      out.emplace_back();
      continue;
    }
    out.push_back(std::move(arg));
  }
  return out;
}

}  // namespace nvct::cmd::nvidia_ctk
