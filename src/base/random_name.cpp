#include "nvct/base/random_name.hpp"

#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <vector>

namespace nvct {
namespace {

// Fills buf from getrandom(2) (non-blocking pool: GRND_NONBLOCK only fails before the pool is
// initialised, early in boot). Where it cannot (ENOSYS in an old seccomp profile, EAGAIN), a
// mix of the clock, pid and a counter: still distinct between concurrent writers, which O_EXCL
// needs, if not unpredictable.
void fill_random(unsigned char* buf, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = ::getrandom(buf + got, n - got, GRND_NONBLOCK);
    if (r > 0) {
      got += static_cast<std::size_t>(r);
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    break;
  }
  if (got == n) return;
  static std::uint64_t counter = 0;
  struct timespec ts {};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  std::uint64_t x = static_cast<std::uint64_t>(ts.tv_nsec) ^
                    (static_cast<std::uint64_t>(ts.tv_sec) << 30) ^
                    (static_cast<std::uint64_t>(::getpid()) << 40) ^ (++counter * 0x9E3779B97F4A7C15ull);
  for (; got < n; ++got) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 29;
    buf[got] = static_cast<unsigned char>(x);
  }
}

std::string pick(std::size_t n, const char* alphabet, unsigned size) {
  std::vector<unsigned char> bytes(n);
  fill_random(bytes.data(), n);
  std::string out(n, '0');
  // 256 % 36 != 0 leaves a slight bias: harmless for a name that O_EXCL protects.
  for (std::size_t i = 0; i < n; ++i) out[i] = alphabet[bytes[i] % size];
  return out;
}

}  // namespace

std::string random_alnum(std::size_t n) { return pick(n, "abcdefghijklmnopqrstuvwxyz0123456789", 36); }

std::string random_hex(std::size_t n) { return pick(n, "0123456789abcdef", 16); }

}  // namespace nvct
