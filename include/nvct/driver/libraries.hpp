// Driver libraries and binaries per capability (driver.md §2, §3) and the selection of library
// files from ld.so.cache (§10).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/driver/driver_root.hpp"
#include "nvct/driver/ldcache.hpp"

namespace nvct::driver {

// The capability a driver file belongs to (the mount-time filter of driver.md §2.2).
enum class Capability { kUtility, kCompute, kNgx, kVideo, kGraphics };

std::string_view capability_name(Capability cap);

struct DriverFileName {
  std::string_view name;  // a prefix of the file name ("libcuda.so", "nvidia-smi")
  Capability capability;
};

// Lookup order, which is also the order of `list`: utility, compute, ngx, video, graphics, glvnd.
const std::vector<DriverFileName>& driver_library_names();
const std::vector<DriverFileName>& driver_binary_names();

struct DriverLibrary {
  std::string_view name;
  Capability capability;
  std::string path;  // root-relative real path
};

// Only a file whose basename ends with the RM version belongs to this driver.
bool matches_driver_version(std::string_view path, std::string_view version);

// Selects one file per wanted name from the cache entries of the given architecture, following
// driver.md §10: first wanted prefix of the key, value resolved in the root, the selector (ELF
// file, version filter) decides, a later accepted entry replaces an earlier pick. Names with no
// pick are logged as missing ("missing library X" / "missing compat32 library X") and left out.
std::vector<DriverLibrary> select_libraries(const LdCache& cache, const DriverRoot& root,
                                            std::uint32_t arch, std::string_view version,
                                            bool compat32);

// The root-relative path of `soname` for the given architecture, resolved in the root; falls
// back to the default library directories when the cache has no entry.
Result<std::string> find_library(const LdCache* cache, const DriverRoot& root, std::uint32_t arch,
                                 std::string_view soname);

// Binaries: the first hit in each PATH directory joined under the root (a regular executable).
struct DriverBinary {
  std::string_view name;
  Capability capability;
  std::string path;      // the file, symlinks resolved inside the root
  std::string found_at;  // where PATH found it (Debian: /usr/bin/nvidia-smi, an alternatives link)
};
// The first regular executable of each name along path_env (in-root): driver_binary_names() for
// libnvidia-container's list, cdi_binary_names() for a CDI spec.
std::vector<DriverBinary> find_binaries(const DriverRoot& root, std::string_view path_env,
                                        const std::vector<DriverFileName>& names);

// The binaries of a CDI spec (cdi.md §6.3): the CLI's without nv-fabricmanager, plus the IMEX
// daemon and its control program.
const std::vector<DriverFileName>& cdi_binary_names();

}  // namespace nvct::driver
