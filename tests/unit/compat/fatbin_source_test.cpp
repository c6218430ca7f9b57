#include "../../../src/compat/fatbin_source.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>

namespace nvct::compat::detail {
namespace {

TEST(FatbinSource, FdSourceReadsAcrossItsCacheAndRefusesOutOfRange) {
  int fd = ::memfd_create("src", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  std::string data(200000, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  ASSERT_EQ(::write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  FdSource src(fd, data.size());
  char buf[100];
  for (std::uint64_t off : {0ull, 65500ull, 65536ull, 131000ull, 199900ull, 5ull}) {
    ASSERT_TRUE(src.read(off, buf, sizeof buf)) << off;
    EXPECT_EQ(std::string(buf, sizeof buf), data.substr(off, sizeof buf)) << off;
  }
  std::string big(70000, '\0');
  ASSERT_TRUE(src.read(1000, big.data(), big.size()));
  EXPECT_EQ(big, data.substr(1000, big.size()));
  EXPECT_FALSE(src.read(199950, buf, sizeof buf));
  EXPECT_FALSE(src.read(UINT64_MAX - 10, buf, sizeof buf));
  EXPECT_EQ(src.io_error(), 0);
  ::close(fd);
}

TEST(FatbinSource, WindowsAreBoundsChecked) {
  std::string data = "0123456789";
  SpanSource src(std::as_bytes(std::span<const char>(data.data(), data.size())));
  Window w{&src, 2, 5};
  char b[3];
  ASSERT_TRUE(w.read(0, b, 3));
  EXPECT_EQ(std::string(b, 3), "234");
  EXPECT_FALSE(w.read(3, b, 3));
  EXPECT_EQ(w.read_some(3, 100), "56");
  EXPECT_EQ(w.read_some(9, 1), "");
  EXPECT_EQ(w.sub(1, 2).read_some(0, 10), "34");
  std::uint64_t out = 0;
  EXPECT_TRUE(add_overflows(UINT64_MAX, 1, &out));
  EXPECT_FALSE(in_range(UINT64_MAX, 2, 10));
}

}  // namespace
}  // namespace nvct::compat::detail
