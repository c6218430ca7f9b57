// The runtime's csv mode (Tegra; spec/runtime.md §7 "csv", §7.4, §7.6): NVIDIA prestart hooks are
// removed; for a container that requests devices, its NVIDIA_REQUIRE_* are checked
// (csv_requirements.hpp), the feature-gated devices (NVIDIA_GDS/MOFED/GDRCOPY/NVSWITCH=enabled)
// are added, and the requests `mode=csv,id=<dev>` are served from a spec built in memory by
// `cdi generate --mode csv`'s builder over the CSV mount specs of modes.csv.mount-spec-path.
// The gated modifier's CUDA compat hook is never added in csv mode; the csv spec's own
// enable-cuda-compat hook (from the mounted libcuda.so.<version>, with
// modes.csv.compat-container-root) is kept.
//
// Tegra has one integrated GPU: every requested id ("all", "0", ...) gets the csv spec's single
// device. NVIDIA_VISIBLE_DEVICES unset, void or none requests nothing: only the hooks are removed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "nvct/base/error.hpp"
#include "nvct/cdi/generate_modes.hpp"
#include "nvct/cdi/inject.hpp"
#include "nvct/config/config.hpp"
#include "nvct/request/request.hpp"
#include "nvct/runtime/csv_requirements.hpp"

namespace nvct::runtime {

inline constexpr const char* kCsvBaseFiles[] = {"devices.csv", "drivers.csv", "l4t.csv"};

// "mode=csv,id=<dev>" for each requested device ("none", "void" and empty slots dropped).
std::vector<std::string> csv_device_ids(const request::Request& request);

// NVIDIA_REQUIRE_JETPACK is exactly "csv-mounts=all": every *.csv in the directory.
bool csv_mounts_all(const request::Request& request);

// The CSV files to read: <mount-spec-path>/{devices,drivers,l4t}.csv, or every regular *.csv of
// that directory in name order with csv-mounts=all (an unreadable directory is an error then).
Result<std::vector<std::string>> csv_mount_spec_files(const request::Request& request,
                                                      const config::Config& cfg);

// The csv builder's options: vendor runtime.nvidia.com, class gpu, driver and dev root
// nvidia-container-cli.root, hooks run by nvidia-ctk.path (looked up in path_env),
// modes.csv.compat-container-root.
// Fails when the hook binary cannot be found.
Result<cdi::ModeOptions> csv_mode_options(const config::Config& cfg, std::vector<std::string> files,
                                          std::string_view path_env);

// The whole mode. Returns whether the spec changed.
Result<bool> apply_csv_mode(nlohmann::ordered_json& spec, const request::Request& request,
                            const config::Config& cfg, const CudaFactsQuery& cuda,
                            cdi::DeviceLookup& lookup, std::string_view path_env);

}  // namespace nvct::runtime
