#include "nvct/base/error.hpp"

#include <cstring>

namespace nvct {

tl::unexpected<Error> fail_errno(std::string_view what, int err) {
  return fail(err, fmt::format("{}: {}", what, std::strerror(err)));
}

}  // namespace nvct
