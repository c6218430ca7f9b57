#include <gtest/gtest.h>

#include "../../../src/compat/fatbin_scan.hpp"
#include "fatbin_builder.hpp"

namespace nvct::compat::detail {
namespace {

TEST(Cubin, AbiV1FlagsFromCuda11) {
  auto h = decode_cubin_flags(7, 0x00460546);  // the spec's sm_70 example
  ASSERT_TRUE(h.sm);
  EXPECT_EQ(*h.sm, 70u);
  EXPECT_FALSE(h.arch_specific);
  EXPECT_EQ(*decode_cubin_flags(7, 0x00590559).sm, 89u);
  auto a = decode_cubin_flags(7, 0x005a0d5a);
  EXPECT_EQ(*a.sm, 90u);
  EXPECT_TRUE(a.arch_specific);
}

TEST(Cubin, AbiV2FlagsFromBlackwell) {
  auto h = decode_cubin_flags(8, 100u << 8);
  ASSERT_TRUE(h.sm);
  EXPECT_EQ(*h.sm, 100u);
  EXPECT_FALSE(h.arch_specific);
  auto a = decode_cubin_flags(8, (120u << 8) | 0x8);
  EXPECT_EQ(*a.sm, 120u);
  EXPECT_TRUE(a.arch_specific);
}

TEST(Cubin, UnknownAbiHasNoSm) {
  EXPECT_FALSE(decode_cubin_flags(0, 0x50).sm);
  EXPECT_FALSE(decode_cubin_flags(9, 0x5000).sm);
}

TEST(Cubin, ReadsTheHeaderOfACudaElf) {
  std::string c = fbt::cubin(7, 0x00500550);
  SpanSource src(std::as_bytes(std::span<const char>(c.data(), c.size())));
  auto h = read_cubin_header(Window{&src, 0, c.size()});
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->is_cuda);
  EXPECT_EQ(h->sm, 80u);
  EXPECT_EQ(h->e_flags, 0x00500550u);
  // A host ELF header is ELF but not CUDA; a short buffer is not a header.
  c[7] = 0;
  EXPECT_FALSE(read_cubin_header(Window{&src, 0, c.size()})->is_cuda);
  EXPECT_FALSE(read_cubin_header(Window{&src, 0, 40}));
}

}  // namespace
}  // namespace nvct::compat::detail
