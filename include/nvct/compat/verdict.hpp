// The verdict rules of spec/compat.md §6.1: the runtime verdict (R1-R6: the CUDA runtime the image
// needs against the driver, minor version compatibility, the forward-compat package) and the code
// verdict of one file for one GPU (C1-C6: native SASS, PTX JIT, PTX too new for the driver, no
// code), each with the sentence the output prints.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nvct/compat/driver_facts.hpp"
#include "nvct/compat/fatbin.hpp"
#include "nvct/compat/image_runtime.hpp"

namespace nvct::compat {

enum class Verdict {
  ok,              // runtime R1
  minor_compat,    // R2
  forward_compat,  // R3
  native,          // C1
  jit,             // C2
  driver_too_old,  // R4, R5, C3
  no_code,         // C4
  host_only,       // C5
  malformed,       // C6
  unknown_runtime, // R6
};
std::string_view to_string(Verdict v);  // "ok", "minor-compat", ..., "unknown-runtime"

struct RuntimeVerdict {
  Verdict verdict = Verdict::unknown_runtime;
  std::optional<std::string> needed;      // CUDA major.minor
  std::optional<std::string> min_driver;  // §5.1 for `needed`
  std::string message;                    // the sentence after "runtime: <verdict>: "
};

// R1-R6. compat_used: the package would be used (present, newer than the driver, not disabled).
RuntimeVerdict judge_runtime(const ImageRuntime& image, const DriverFacts& driver,
                             bool compat_disabled);

struct CodeVerdict {
  Verdict verdict = Verdict::no_code;
  std::string using_entry;  // "sm_80", "compute_90"; "" when none
  std::string message;      // the sentence after "<file>: <verdict>: "
};

// C1-C4 for a GPU of compute capability `arch` ("8.6"). driver_cuda: the driver's CUDA version
// (for the PTX ISA check), nullopt = not checked. disable_ptx_jit: CUDA_DISABLE_PTX_JIT=1.
CodeVerdict judge_code(const std::vector<CodeEntry>& entries, const std::string& arch,
                       const std::optional<std::string>& driver_cuda, bool disable_ptx_jit);

// Exit code contributions (§6.5): 1 for no-code and driver-too-old (and, strict, jit,
// minor-compat and forward-compat), 2 for malformed, else 0.
int exit_code_of(Verdict v, bool strict);

}  // namespace nvct::compat
