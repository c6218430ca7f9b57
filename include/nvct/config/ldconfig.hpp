// nvidia-container-cli.ldconfig: normalisation and validity (spec/config.md §5).
#pragma once

#include <string>

#include "nvct/base/error.hpp"
#include "nvct/config/host_facts.hpp"

namespace nvct::config {

inline constexpr const char* kDefaultLdconfig = "@/sbin/ldconfig";

// "@/x/ldconfig[.real]" becomes "@/x/ldconfig.real" when /x/ldconfig.real exists on the host and
// "@/x/ldconfig" otherwise. Ubuntu's /sbin/ldconfig is a shell script around ldconfig.real: run
// inside the container root it would execute the container's /bin/sh. Values without "@" (the
// container's own binary) and "" are returned unchanged.
std::string normalize_ldconfig(const std::string& value, const HostFacts& host);

// A value must be host-relative ("@...") unless features.allow-ldconfig-from-container: the image's
// ldconfig would otherwise run as root with host devices (CVE-2024-0136/0137).
Status validate_ldconfig(const std::string& value, bool allow_from_container);

}  // namespace nvct::config
