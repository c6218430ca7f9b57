// The real host behind HostFacts, and the SUSE check of the reference's default cli user.
#include "nvct/config/host_facts.hpp"

#include <sys/stat.h>

#include "nvct/base/file.hpp"
#include "nvct/base/strings.hpp"

namespace nvct::config {
namespace {

class RealHostFacts final : public HostFacts {
 public:
  bool file_exists(const std::string& path) const override {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
  }
  std::string os_release() const override {
    auto text = read_file("/etc/os-release", 64 * 1024);
    return text ? *text : std::string();
  }
};

std::string_view unquote(std::string_view v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    return v.substr(1, v.size() - 2);
  }
  return v;
}

}  // namespace

const HostFacts& real_host_facts() {
  static const RealHostFacts host;
  return host;
}

bool is_suse(const HostFacts& host) {
  for (const std::string& line : strings::split(host.os_release(), '\n')) {
    std::string_view l = strings::trim(line);
    if (!strings::starts_with(l, "ID_LIKE=")) continue;
    for (const std::string& id : strings::split_trimmed(unquote(l.substr(8)), ' ')) {
      if (id == "suse" || id == "opensuse") return true;
    }
  }
  return false;
}

}  // namespace nvct::config
