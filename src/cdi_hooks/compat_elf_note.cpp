// Reading the CUDA version note of a compat libcuda (owner "NVIDIA", type 1). The file comes
// from the image: base/elf_note bounds-checks every field and reads only the note sections.
#include "nvct/base/elf_note.hpp"
#include "nvct/cdi_hooks/cuda_compat.hpp"

namespace nvct::cdi_hooks {
namespace {
constexpr std::string_view kOwner = "NVIDIA";
constexpr std::uint32_t kCudaVersionNote = 1;
constexpr std::size_t kMaxVersionText = 31;
}  // namespace

Result<std::optional<std::string>> read_compat_cuda_version(int fd) {
  return with_context(read_elf_note(fd, kOwner, kCudaVersionNote, kMaxVersionText),
                      "read the compat library's CUDA version note");
}

}  // namespace nvct::cdi_hooks
