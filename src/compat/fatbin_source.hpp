// Where the reader's bytes come from: a file read with pread through a small cache, or a byte
// buffer (the fuzz harness). A Window is a range of a source (an `ar` member, an ELF section, a
// fatbin payload) addressed with its own offsets; reads are bounds-checked against it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace nvct::compat::detail {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::uint64_t size() const = 0;
  // Copies n bytes at off into buf; false when the range is outside the source or the read
  // fails (io_error() then says why).
  virtual bool read(std::uint64_t off, void* buf, std::size_t n) const = 0;
  int io_error() const { return io_error_; }

 protected:
  mutable int io_error_ = 0;
};

// pread with a 64 KiB read-ahead cache: a fatbin is walked in small steps (64-byte headers).
class FdSource final : public ByteSource {
 public:
  FdSource(int fd, std::uint64_t size) : fd_(fd), size_(size) {}
  std::uint64_t size() const override { return size_; }
  bool read(std::uint64_t off, void* buf, std::size_t n) const override;

 private:
  int fd_;
  std::uint64_t size_;
  mutable std::vector<unsigned char> cache_;
  mutable std::uint64_t cache_off_ = 0;
};

class SpanSource final : public ByteSource {
 public:
  explicit SpanSource(std::span<const std::byte> data) : data_(data) {}
  std::uint64_t size() const override { return data_.size(); }
  bool read(std::uint64_t off, void* buf, std::size_t n) const override;

 private:
  std::span<const std::byte> data_;
};

// True when [off, off + len) lies inside [0, size), without overflow.
inline bool in_range(std::uint64_t off, std::uint64_t len, std::uint64_t size) {
  return off <= size && len <= size - off;
}

// a + b, false on overflow.
inline bool add_overflows(std::uint64_t a, std::uint64_t b, std::uint64_t* out) {
  return __builtin_add_overflow(a, b, out);
}

struct Window {
  const ByteSource* src = nullptr;
  std::uint64_t base = 0;  // file offset of the window's first byte
  std::uint64_t size = 0;

  bool read(std::uint64_t off, void* buf, std::size_t n) const {
    return in_range(off, n, size) && src->read(base + off, buf, n);
  }
  // Up to n bytes at off (fewer at the end of the window).
  std::string read_some(std::uint64_t off, std::size_t n) const;
  Window sub(std::uint64_t off, std::uint64_t len) const { return {src, base + off, len}; }
};

// Little-endian loads from a byte buffer the caller has bounds-checked.
inline std::uint16_t le16(const unsigned char* p) {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}
inline std::uint32_t le32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
inline std::uint64_t le64(const unsigned char* p) {
  return static_cast<std::uint64_t>(le32(p)) | (static_cast<std::uint64_t>(le32(p + 4)) << 32);
}

}  // namespace nvct::compat::detail
