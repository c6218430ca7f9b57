// NVIDIA_VISIBLE_DEVICES, the swarm variables and NVIDIA_IMEX_CHANNELS (spec/request.md §2, §7).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nvct/config/config.hpp"
#include "nvct/request/request.hpp"

namespace nvct::request {

inline constexpr const char* kVisibleDevicesEnv = "NVIDIA_VISIBLE_DEVICES";
inline constexpr const char* kImexChannelsEnv = "NVIDIA_IMEX_CHANNELS";

// The device list of one (possibly concatenated) value; nullopt `value` means "no variable set".
//   unset + legacy image      -> {"all"}
//   no items, or any "void"   -> nullopt (not a GPU container)
//   first of all/none decides -> {"all"} / {""}
//   otherwise the items in order; a duplicated id keeps the slot of its last occurrence and
//   earlier slots become "" ("0,1,0" -> {"", "1", "0"}), as the reference's map-based list does.
std::optional<std::vector<std::string>> parse_device_list(const std::optional<std::string>& value,
                                                          bool legacy_image);

// The value of the variables that carry the device list: the swarm-resource entries present in
// env, concatenated with ','; NVIDIA_VISIBLE_DEVICES when none of them is present; nullopt when
// the chosen variable is unset.
std::optional<std::string> device_list_value(const Environment& env, const config::Config& cfg);

// The name of what device_list_value() reads, for error messages: the swarm variables present
// (joined by ','), else NVIDIA_VISIBLE_DEVICES.
std::string device_list_source(const Environment& env, const config::Config& cfg);

// parse_device_list(device_list_value(env, cfg), legacy_image).
std::optional<std::vector<std::string>> visible_devices_from_env(const Environment& env,
                                                                 const config::Config& cfg,
                                                                 bool legacy_image);

// NVIDIA_IMEX_CHANNELS parsed like visible devices; "all" is no request (toolkit v1.17.0 failed
// `--gpus all` with "unsupported IMEX channel value: all"); empty slots and duplicates dropped.
std::vector<std::string> imex_channels_from_env(const Environment& env, bool legacy_image);

}  // namespace nvct::request
