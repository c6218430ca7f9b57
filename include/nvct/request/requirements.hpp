// The toolkit side of requirements: which NVIDIA_REQUIRE_* become --require, the legacy
// CUDA_VERSION rule and NVIDIA_DISABLE_REQUIRE (spec/request.md §6, §10.5).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/config/config.hpp"
#include "nvct/request/request.hpp"

namespace nvct::request {

// Go's strconv.ParseBool: 1 t T TRUE true True / 0 f F FALSE false False; else nullopt.
std::optional<bool> parse_go_bool(std::string_view text);

// CUDA_VERSION -> "major.minor": an optional leading 'v', then a semantic version whose minor and
// patch may be omitted (prerelease/build only after a patch), components without leading zeros,
// major and minor below 2^32. "9" -> "9.0", "9.0.116" -> "9.0", "v11.6" -> "11.6".
Result<std::string> cuda_major_minor(std::string_view cuda_version);

// NVIDIA_DISABLE_REQUIRE is a true Go bool, or config disable-require is set.
bool requirements_disabled(const Request& req, const config::Config& cfg);

// The --require values: for a legacy image "cuda>=<major.minor of CUDA_VERSION>" first, then the
// value of every NVIDIA_REQUIRE_* variable except NVIDIA_REQUIRE_JETPACK* in name order (the
// reference iterates a Go map, so any order is faithful). Empty values require nothing and are
// skipped. Disabled -> none. An invalid CUDA_VERSION of a legacy image is an error.
Result<std::vector<std::string>> requirements(const Request& req, const config::Config& cfg);

}  // namespace nvct::request
