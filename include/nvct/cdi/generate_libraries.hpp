// The driver libraries of a generated CDI spec beyond legacy mode's per-capability list
// (spec/cdi.md §6.3): every *.so.<driver-version> of the ldcache (unless the feature flag
// enable-explicit-driver-libraries keeps only the list), the same in each --library-search-path
// directory, vdpau/libvdpau_nvidia.so.<version> next to the driver libraries (vdpau is not in
// ld.so.conf), and libnvidia-nvvm70.so.* (not versioned like the driver).
#pragma once

#include <string>
#include <vector>

#include "nvct/driver/driver_info.hpp"
#include "nvct/driver/driver_root.hpp"
#include "nvct/driver/ldcache.hpp"

namespace nvct::cdi {

struct LibraryDiscovery {
  // Root-relative directories searched besides the ldcache (--library-search-path).
  std::vector<std::string> search_paths;
  bool explicit_only = false;  // enable-explicit-driver-libraries
};

// Appends the extra libraries to info.libs (root-relative real paths, no duplicates, in
// discovery order). Only ELF files of the native architecture are taken.
void add_cdi_libraries(driver::DriverInfo& info, const driver::DriverRoot& root,
                       const driver::LdCache* cache, const LibraryDiscovery& options);

}  // namespace nvct::cdi
