// The few host facts that change config defaults (spec/config.md §2, §5): whether a file such as
// /sbin/ldconfig.real exists, and /etc/os-release (SUSE uses "root:video" as the cli user).
// Behind an interface so that the tables of the spec are unit tested without touching the host.
#pragma once

#include <string>

namespace nvct::config {

class HostFacts {
 public:
  virtual ~HostFacts() = default;
  virtual bool file_exists(const std::string& path) const = 0;
  // Contents of /etc/os-release; "" when it cannot be read.
  virtual std::string os_release() const = 0;
};

// The running host.
const HostFacts& real_host_facts();

// True when os-release's ID_LIKE names suse or opensuse.
bool is_suse(const HostFacts& host);

}  // namespace nvct::config
