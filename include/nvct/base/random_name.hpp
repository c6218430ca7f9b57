#pragma once
// Unpredictable characters for temporary file names (base/file's atomic writes, the driver-facts
// cache, symlink and ldcache temp names, the CDI hooks' scratch names). One getrandom(2) call
// each: no file descriptor is opened (std::random_device opened /dev/urandom when the CPU lacks
// RDRAND, and the seccomp sandboxes allow getrandom but not open). O_EXCL on the name is what
// makes a temp file safe; these characters only keep concurrent writers from colliding and an
// attacker from pre-creating the name.

#include <cstddef>
#include <string>

namespace nvct {

// n characters from [a-z0-9].
std::string random_alnum(std::size_t n);
// n lowercase hex digits.
std::string random_hex(std::size_t n);

}  // namespace nvct
