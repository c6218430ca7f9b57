// WSL2 driver files (driver.md §14): the NVIDIA driver store that Windows shares with the
// Linux guest under /usr/lib/wsl/drivers, libdxcore.so and the /dev/dxg node.
//
// The reference asks Windows' libdxcore for the driver store of each adapter. nvct does not
// load libdxcore (it would have to run it in the driver root and it only answers on a real WSL
// kernel); instead every directory directly under <driver-root>/usr/lib/wsl/drivers that holds
// libcuda.so.1.1 or libnvidia-ml.so.1 is an NVIDIA driver store, in name order, all of them
// included (a machine with two NVIDIA adapters of different driver packages has two). Other
// vendors' stores (no such file) are ignored. Every lookup goes through DriverRoot, so links in
// the root never lead outside it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/driver/driver_root.hpp"

namespace nvct::driver {

inline constexpr std::string_view kWslDriversDir = "/usr/lib/wsl/drivers";
inline constexpr std::string_view kWslLibDir = "/usr/lib/wsl/lib";
inline constexpr std::string_view kDxcoreLibrary = "libdxcore.so";
inline constexpr std::string_view kDxgNode = "/dev/dxg";

// The NVIDIA user-mode files of a driver store that a container gets (those present), in the
// order they are mounted.
inline const std::vector<std::string> kWslDriverStoreFiles = {"libcuda.so.1.1",
                                                              "libcuda_loader.so",
                                                              "libnvidia-ptxjitcompiler.so.1",
                                                              "libnvidia-ml.so.1",
                                                              "libnvidia-ml_loader.so",
                                                              "libnvdxgdmal.so.1",
                                                              "nvcubins.bin",
                                                              "nvidia-smi"};

struct WslDriverStore {
  std::string path;                // root-relative real path of the store directory
  std::vector<std::string> files;  // names of kWslDriverStoreFiles present, in that order
};

// The NVIDIA driver stores (see above). No store is an ENOENT error naming the directory
// searched and the files looked for.
Result<std::vector<WslDriverStore>> find_wsl_driver_stores(const DriverRoot& root);

// The root-relative real path of libdxcore.so in the first of `search_paths` (root-relative
// directories; empty = /usr/lib/wsl/lib) that has it; ENOENT naming the directories otherwise.
Result<std::string> find_dxcore(const DriverRoot& root,
                                const std::vector<std::string>& search_paths);

}  // namespace nvct::driver
