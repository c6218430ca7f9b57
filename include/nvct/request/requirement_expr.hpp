// The requirement language of --require / NVIDIA_REQUIRE_* (spec/request.md §10): space-separated
// terms are OR'ed, comma-separated factors inside a term are AND'ed, each factor is KEY OP VALUE.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"

namespace nvct::request {

// Facts of one selected GPU (a selected MIG device contributes its parent GPU).
struct DeviceFacts {
  std::optional<std::string> arch;   // compute capability "M.m"; nullopt: satisfied
  std::optional<std::string> brand;  // "Tesla", "GeForce", ...; nullopt: satisfied
};

// What requirements are checked against; fed by the hook or the CLI from NVML or a mock.
struct RequirementFacts {
  std::optional<std::string> cuda_version;    // "12.4"; nullopt: `cuda` is satisfied
  std::optional<std::string> driver_version;  // "550.54.14"; nullopt: `driver` is satisfied
  // The selected GPUs. Empty: `arch` and `brand` are satisfied, `cuda` and `driver` still count.
  std::vector<DeviceFacts> devices;
};

enum class UnknownKey {
  kInvalid,  // libnvidia-container: "requirement error: invalid expression"
  kIgnore,   // the runtime's csv-mode evaluator: the factor is satisfied
};

// Compares dotted numeric versions (only digits and '.'): numerically component by component;
// when one side runs out, the other side's remaining '.' and '0' are ignored ("12.4" == "12.4.0",
// "12.01" == "12.1") and anything else makes it larger. Returns <0, 0, >0; error if not numeric.
Result<int> compare_versions(std::string_view a, std::string_view b);

// Checks one expression against every selected device. Errors:
//   "requirement error: invalid expression"
//   "requirement error: unsatisfied condition: <first space term>" (+ ", please update your
//   driver to a newer version, or use an earlier cuda container" when that term starts with
//   "cuda>=").
// Terms are parsed lazily: a bad term after one that passes is never looked at.
Status check_requirement(std::string_view expression, const RequirementFacts& facts,
                         UnknownKey unknown = UnknownKey::kInvalid);

// Every expression must pass (one --require each); the first failure is returned.
Status check_requirements(const std::vector<std::string>& expressions,
                          const RequirementFacts& facts, UnknownKey unknown = UnknownKey::kInvalid);

}  // namespace nvct::request
