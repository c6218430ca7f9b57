// Every config.toml key of spec/config.md §3-§4, in the order of the reference's struct.
#include "nvct/config/schema.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "nvct/base/edit_distance.hpp"
#include "nvct/base/strings.hpp"

namespace nvct::config {
namespace {

using K = ValueKind;

// Captureless lambdas become the plain function pointers of KeySpec::field.
#define NVCT_FIELD(member) [](Config& c) -> FieldRef { return &c.member; }

constexpr bool kNullable = true;
constexpr bool kOmitEmpty = true;

// The values of the enum keys (spec/config.md §3; runtime.md §6 for the modes).
constexpr std::string_view kModes[] = {"auto", "legacy", "cdi", "jit-cdi", "csv"};
// The levels logrus parses, which is what the reference's runtime accepts.
constexpr std::string_view kLogLevels[] = {"panic",   "fatal", "error", "warn",
                                           "warning", "info",  "debug", "trace"};
constexpr std::string_view kCompatModes[] = {"ldconfig", "mount", "disabled", "hook"};
constexpr std::string_view kDriverCapabilities[] = {"compat32", "compute", "display", "graphics",
                                                    "ngx",      "utility", "video",   "all"};

constexpr AllowedValues kModeValues{kModes};
constexpr AllowedValues kLogLevelValues{kLogLevels, /*ignore_case=*/true};
constexpr AllowedValues kCompatModeValues{kCompatModes};
constexpr AllowedValues kCapabilityValues{kDriverCapabilities, false, /*comma_list=*/true};

const std::array kKeys = {
    KeySpec{"accept-nvidia-visible-devices-as-volume-mounts", K::kBool, false, false,
            NVCT_FIELD(accept_volume_mounts)},
    KeySpec{"accept-nvidia-visible-devices-envvar-when-unprivileged", K::kBool, false, false,
            NVCT_FIELD(accept_envvar_unprivileged)},
    KeySpec{"disable-require", K::kBool, false, false, NVCT_FIELD(disable_require)},
    KeySpec{"supported-driver-capabilities", K::kString, false, false,
            NVCT_FIELD(supported_driver_capabilities), kCapabilityValues},
    KeySpec{"swarm-resource", K::kString, false, false, NVCT_FIELD(swarm_resource)},

    KeySpec{"nvidia-container-cli.debug", K::kString, false, false, NVCT_FIELD(cli.debug)},
    KeySpec{"nvidia-container-cli.environment", K::kStringList, false, false,
            NVCT_FIELD(cli.environment)},
    KeySpec{"nvidia-container-cli.ldcache", K::kString, false, false, NVCT_FIELD(cli.ldcache)},
    KeySpec{"nvidia-container-cli.ldconfig", K::kString, false, false, NVCT_FIELD(cli.ldconfig)},
    KeySpec{"nvidia-container-cli.exec-ldconfig", K::kBool, false, kOmitEmpty,
            NVCT_FIELD(cli.exec_ldconfig)},
    KeySpec{"nvidia-container-cli.load-kmods", K::kBool, false, false, NVCT_FIELD(cli.load_kmods)},
    KeySpec{"nvidia-container-cli.no-cgroups", K::kBool, false, false, NVCT_FIELD(cli.no_cgroups)},
    KeySpec{"nvidia-container-cli.no-pivot", K::kBool, false, kOmitEmpty, NVCT_FIELD(cli.no_pivot)},
    KeySpec{"nvidia-container-cli.path", K::kString, false, false, NVCT_FIELD(cli.path)},
    KeySpec{"nvidia-container-cli.root", K::kString, false, false, NVCT_FIELD(cli.root)},
    KeySpec{"nvidia-container-cli.user", K::kString, false, false, NVCT_FIELD(cli.user)},

    KeySpec{"nvidia-container-runtime.debug", K::kString, false, false, NVCT_FIELD(runtime.debug)},
    KeySpec{"nvidia-container-runtime.log-level", K::kString, false, false,
            NVCT_FIELD(runtime.log_level), kLogLevelValues},
    KeySpec{"nvidia-container-runtime.mode", K::kString, false, false, NVCT_FIELD(runtime.mode),
            kModeValues},
    KeySpec{"nvidia-container-runtime.runtimes", K::kStringList, false, false,
            NVCT_FIELD(runtime.runtimes)},
    KeySpec{"nvidia-container-runtime.modes.cdi.annotation-prefixes", K::kStringList, false, false,
            NVCT_FIELD(runtime.cdi.annotation_prefixes)},
    KeySpec{"nvidia-container-runtime.modes.cdi.default-kind", K::kString, false, false,
            NVCT_FIELD(runtime.cdi.default_kind)},
    KeySpec{"nvidia-container-runtime.modes.cdi.spec-dirs", K::kStringList, false, false,
            NVCT_FIELD(runtime.cdi.spec_dirs)},
    KeySpec{"nvidia-container-runtime.modes.csv.compat-container-root", K::kString, false,
            kOmitEmpty, NVCT_FIELD(runtime.csv.compat_container_root)},
    KeySpec{"nvidia-container-runtime.modes.csv.mount-spec-path", K::kString, false, false,
            NVCT_FIELD(runtime.csv.mount_spec_path)},
    KeySpec{"nvidia-container-runtime.modes.jit-cdi.nvcdi-disable-hooks", K::kStringList, false,
            kOmitEmpty, NVCT_FIELD(runtime.jit_cdi.nvcdi_disable_hooks)},
    KeySpec{"nvidia-container-runtime.modes.jit-cdi.nvcdi-feature-flags", K::kStringList, false,
            kOmitEmpty, NVCT_FIELD(runtime.jit_cdi.nvcdi_feature_flags)},
    KeySpec{"nvidia-container-runtime.modes.legacy.cuda-compat-mode", K::kString, false, false,
            NVCT_FIELD(runtime.legacy.cuda_compat_mode), kCompatModeValues},

    KeySpec{"nvidia-container-runtime-hook.path", K::kString, false, false, NVCT_FIELD(hook.path)},
    KeySpec{"nvidia-container-runtime-hook.skip-mode-detection", K::kBool, false, false,
            NVCT_FIELD(hook.skip_mode_detection)},

    KeySpec{"nvidia-ctk.path", K::kString, false, false, NVCT_FIELD(ctk.path)},

    KeySpec{"features.allow-cuda-compat-libs-from-container", K::kBool, kNullable, kOmitEmpty,
            NVCT_FIELD(features.allow_cuda_compat_libs_from_container)},
    KeySpec{"features.allow-ldconfig-from-container", K::kBool, kNullable, kOmitEmpty,
            NVCT_FIELD(features.allow_ldconfig_from_container)},
    KeySpec{"features.allow-unknown-oci-spec-fields", K::kBool, kNullable, kOmitEmpty,
            NVCT_FIELD(features.allow_unknown_oci_spec_fields)},
    KeySpec{"features.disable-cuda-compat-lib-hook", K::kBool, kNullable, kOmitEmpty,
            NVCT_FIELD(features.disable_cuda_compat_lib_hook)},
    KeySpec{"features.disable-imex-channel-creation", K::kBool, kNullable, kOmitEmpty,
            NVCT_FIELD(features.disable_imex_channel_creation)},
    KeySpec{"features.ignore-imex-channel-requests", K::kBool, kNullable, kOmitEmpty,
            NVCT_FIELD(features.ignore_imex_channel_requests)},
    KeySpec{"features.no-additional-gids-for-device-nodes", K::kBool, kNullable, kOmitEmpty,
            NVCT_FIELD(features.no_additional_gids_for_device_nodes)},
};

#undef NVCT_FIELD

}  // namespace

std::span<const KeySpec> key_specs() { return kKeys; }

const KeySpec* find_key(std::string_view name) {
  for (const KeySpec& spec : kKeys) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

std::string_view kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::kBool:
      return "a boolean";
    case ValueKind::kString:
      return "a string";
    case ValueKind::kStringList:
      return "an array of strings";
  }
  return "a value";
}

std::string allowed_values_text(const KeySpec& spec) {
  std::vector<std::string> values(spec.allowed.values.begin(), spec.allowed.values.end());
  return strings::join(values, ", ");
}

Status check_value(const KeySpec& spec, std::string_view value) {
  const AllowedValues& allowed = spec.allowed;
  if (allowed.values.empty()) return ok();
  // "" is how a file leaves an optional key unset (cuda-compat-mode).
  if (value.empty()) {
    Config scratch;
    if (std::holds_alternative<std::optional<std::string>*>(spec.field(scratch))) return ok();
  }
  auto valid = [&](std::string_view item) {
    std::string wanted = allowed.ignore_case ? strings::to_lower(item) : std::string(item);
    return std::find(allowed.values.begin(), allowed.values.end(), wanted) != allowed.values.end();
  };
  std::vector<std::string> items = allowed.comma_list
                                       ? strings::split_trimmed(value, ',')
                                       : std::vector<std::string>{std::string(value)};
  for (const std::string& item : items) {
    if (valid(item)) continue;
    std::string message =
        allowed.comma_list ? fmt::format(
                                 "{}: invalid value \"{}\": unknown item \"{}\" (valid values: a "
                                 "comma-separated list of {})",
                                 spec.name, value, item, allowed_values_text(spec))
                           : fmt::format("{}: invalid value \"{}\" (valid values: {})", spec.name,
                                         value, allowed_values_text(spec));
    std::string probe = allowed.ignore_case ? strings::to_lower(item) : item;
    if (auto near = nearest_words(probe, allowed.values); !near.empty()) {
      message += fmt::format("; did you mean {}?", quoted_alternatives(near));
    }
    return fail(EINVAL, std::move(message));
  }
  return ok();
}

}  // namespace nvct::config
