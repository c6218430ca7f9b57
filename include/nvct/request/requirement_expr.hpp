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
  std::optional<std::string> model;  // "NVIDIA A100-SXM4-80GB": for messages only, never checked
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

// Why an expression is unsatisfied, for the line nvct adds after the reference's error: the
// first failing factor of each space term with the fact it was compared with, e.g.
//   "cuda>=99.0 (the driver supports CUDA 12.4)"
//   "arch<9.0 (GPU 0 has compute capability 9.0); brand=tesla (GPU 0 is brand Nvidia)"
// failed_cuda is set to X when the first term's first failing factor is cuda>=X (or cuda>X).
// Empty when the expression passes or is invalid.
struct UnsatisfiedDetail {
  std::string text;
  std::optional<std::string> failed_cuda;
};
UnsatisfiedDetail unsatisfied_detail(std::string_view expression, const RequirementFacts& facts,
                                     UnknownKey unknown = UnknownKey::kInvalid);

// The expression among `expressions` that check_requirements reports, or nullopt when all pass.
std::optional<std::string> first_failing(const std::vector<std::string>& expressions,
                                         const RequirementFacts& facts,
                                         UnknownKey unknown = UnknownKey::kInvalid);

}  // namespace nvct::request
