#include "fatbin_source.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace nvct::compat::detail {

namespace {
constexpr std::size_t kFdSourceCache = 64 * 1024;

bool pread_all(int fd, void* buf, std::size_t n, std::uint64_t off, int* err) {
  auto* p = static_cast<unsigned char*>(buf);
  while (n > 0) {
    ssize_t r = ::pread(fd, p, n, static_cast<off_t>(off));
    if (r < 0) {
      if (errno == EINTR) continue;
      *err = errno;
      return false;
    }
    if (r == 0) {  // the file shrank under us
      *err = EIO;
      return false;
    }
    p += r;
    n -= static_cast<std::size_t>(r);
    off += static_cast<std::uint64_t>(r);
  }
  return true;
}
}  // namespace

bool FdSource::read(std::uint64_t off, void* buf, std::size_t n) const {
  if (!in_range(off, n, size_)) return false;
  if (n == 0) return true;
  if (n > kFdSourceCache / 2) return pread_all(fd_, buf, n, off, &io_error_);
  if (cache_.empty() || off < cache_off_ || off + n > cache_off_ + cache_.size()) {
    std::size_t len =
        static_cast<std::size_t>(std::min<std::uint64_t>(kFdSourceCache, size_ - off));
    cache_.resize(len);
    if (!pread_all(fd_, cache_.data(), len, off, &io_error_)) {
      cache_.clear();
      return false;
    }
    cache_off_ = off;
  }
  std::memcpy(buf, cache_.data() + (off - cache_off_), n);
  return true;
}

bool SpanSource::read(std::uint64_t off, void* buf, std::size_t n) const {
  if (!in_range(off, n, data_.size())) return false;
  if (n > 0) std::memcpy(buf, data_.data() + off, n);
  return true;
}

std::string Window::read_some(std::uint64_t off, std::size_t n) const {
  if (off >= size) return {};
  std::size_t len = static_cast<std::size_t>(std::min<std::uint64_t>(n, size - off));
  std::string out(len, '\0');
  if (!read(off, out.data(), len)) return {};
  return out;
}

}  // namespace nvct::compat::detail
