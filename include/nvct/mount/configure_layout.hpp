// The container directories of driver.md §8, chosen per rootfs through in-root fds: a Debian
// image (/etc/debian_version) gets the multiarch dirs, any other image /usr/lib64 and a libs32
// dir picked by what exists.
#pragma once

#include <string_view>

#include "nvct/base/error.hpp"
#include "nvct/edits/builder.hpp"
#include "nvct/mount/in_root.hpp"

namespace nvct::mount {

// `machine` is uname's machine ("x86_64", "aarch64", "ppc64le"); "" = this host's.
Result<edits::ContainerLayout> choose_container_layout(const Root& rootfs,
                                                       std::string_view machine = "");

}  // namespace nvct::mount
