// Cubin headers: the SM of a CUDA ELF is in e_flags, encoded per EI_ABIVERSION (§3.3).
#include <cstring>

#include "fatbin_scan.hpp"

namespace nvct::compat::detail {

namespace {
constexpr unsigned char kCudaOsAbi = 0x33;
constexpr std::uint16_t kEmCuda = 190;
}  // namespace

CubinHeader decode_cubin_flags(std::uint8_t abi_version, std::uint32_t e_flags) {
  CubinHeader h;
  h.abi_version = abi_version;
  h.e_flags = e_flags;
  if (abi_version == 7) {  // V1: EF_CUDA_SM = flags & 0xff, 0x800 = accelerators (`a`)
    h.sm = e_flags & 0xff;
    h.arch_specific = (e_flags & 0x800) != 0;
  } else if (abi_version == 8) {  // V2 (Blackwell, CUDA 13): (flags >> 8) & 0xff, 0x8 = `a`
    h.sm = (e_flags >> 8) & 0xff;
    h.arch_specific = (e_flags & 0x8) != 0;
  }
  return h;
}

std::optional<CubinHeader> read_cubin_header(const Window& w) {
  unsigned char e[64];
  if (!w.read(0, e, 52)) return std::nullopt;
  if (std::memcmp(e,
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      e[5] != 1)
    return std::nullopt;  // ELF, LE
  std::uint32_t flags = 0;
  if (e[4] == 2) {
    if (!w.read(0, e, 64)) return std::nullopt;
    flags = le32(e + 48);
  } else if (e[4] == 1) {
    flags = le32(e + 36);
  } else {
    return std::nullopt;
  }
  CubinHeader h = decode_cubin_flags(e[8], flags);
  h.is_cuda = e[7] == kCudaOsAbi && le16(e + 18) == kEmCuda;
  return h;
}

}  // namespace nvct::compat::detail
