#include "output.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "nvct/base/file.hpp"

namespace nvct::cmd::nvidia_ctk {

Status write_output(const std::string& path, std::string_view content) {
  if (path.empty()) return with_context(write_all(STDOUT_FILENO, content), "write to stdout");
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec)
      return fail(ec.value(),
                  fmt::format("create directory {}: {}", parent.string(), ec.message()));
  }
  // A hard-linked output file (a CDI spec, a config) is refused: its other name may be a host
  // file (security.md row 44).
  return with_context(write_file_atomic(path, content, {.refuse_hard_links = true}),
                      fmt::format("write {}", path));
}

}  // namespace nvct::cmd::nvidia_ctk
