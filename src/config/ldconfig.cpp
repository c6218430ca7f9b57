// nvidia-container-cli.ldconfig normalisation and validity (spec/config.md §5).
#include "nvct/config/ldconfig.hpp"

#include <fmt/format.h>

#include "nvct/base/strings.hpp"

namespace nvct::config {
namespace {

bool is_host_relative(const std::string& value) { return strings::starts_with(value, "@"); }

}  // namespace

std::string normalize_ldconfig(const std::string& value, const HostFacts& host) {
  if (!is_host_relative(value)) return value;
  std::string path = value.substr(1);
  if (strings::ends_with(path, ".real")) path.resize(path.size() - 5);
  // A missing or unreadable .real means the plain binary, as the reference does.
  if (host.file_exists(path + ".real")) return "@" + path + ".real";
  return "@" + path;
}

Status validate_ldconfig(const std::string& value, bool allow_from_container) {
  if (is_host_relative(value) || allow_from_container) return ok();
  return fail(EINVAL, fmt::format("nvidia-container-cli.ldconfig: invalid value \"{}\": not "
                                  "host-relative (prefix it with '@' or set "
                                  "features.allow-ldconfig-from-container)",
                                  value));
}

}  // namespace nvct::config
