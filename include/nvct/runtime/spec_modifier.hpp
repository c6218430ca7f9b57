// What the shim does to a bundle at `create`/`run` (spec/runtime.md §2 steps 4-7, §9): load
// config.json strictly, read the GPU request, apply the mode's modifiers, and write the file
// back atomically only when something changed.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/config/config.hpp"
#include "nvct/request/request.hpp"
#include "nvct/runtime/csv_requirements.hpp"
#include "nvct/runtime/mode.hpp"

namespace nvct::runtime {

struct ModifierOptions {
  Mode mode = Mode::kLegacy;
  // Absolute path of the prestart hook (resolve_hook_path), or why it could not be found: the
  // error fails only the containers that need the hook (legacy mode, a GPU requested).
  Result<std::string> hook_path = std::string();
  // The config file the shim loaded, passed to the hook as `-config <path>` so both read the same
  // file; the hook never looks at its environment for it (security.md §5.2). "" = none.
  std::string config_path;
  // "NAME=value" entries added to the hook's env (legacy_hook.hpp's hook_env_from).
  std::vector<std::string> hook_env;
  // csv mode: where the CUDA driver facts for NVIDIA_REQUIRE_* come from (the shim runs the
  // nvidia-container-runtime-nvml helper). Unset: requirements that need them fail closed.
  CudaFactsQuery cuda_facts;
};

// Applies the modifiers of options.mode to a parsed spec for the given request. A request that
// is not a GPU container changes nothing. Returns whether the spec changed.
Result<bool> apply_modifiers(nlohmann::ordered_json& spec, const request::Request& request,
                             const ModifierOptions& options);

enum class BundleOutcome { kUnchanged, kRewritten };

// Loads <bundle>/config.json ("" = the cwd), applies the modifiers and saves it atomically when
// it changed. A malformed spec fails before anything is written; a spec that requests no GPU is
// left byte-identical.
Result<BundleOutcome> modify_bundle(const std::string& bundle, const config::Config& cfg,
                                    const ModifierOptions& options);

}  // namespace nvct::runtime
