// The line nvct adds after the reference's requirement error (spec/compat.md §6.6): the hook and
// `nvidia-container-cli configure` (legacy), and the shim (csv, cdi, jit-cdi) keep
//   requirement error: unsatisfied condition: cuda>=12.4, please update your driver ...
// byte for byte and follow it with one line that says which condition failed against which fact
// and, for cuda>=, which driver satisfies it and whether the image's forward-compat package
// applies:
//   nvct: this image needs CUDA 12.4 (driver >= 550.54.14); this host has driver 535.104.05
//   (CUDA 12.2) and the image has no forward-compat package; details: nvidia-ctk cuda explain
//   <rootfs>
// Image-level only (§4 compat package, §5 tables; no fatbin scan): a handful of in-root opens.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/request/requirement_expr.hpp"

namespace nvct::compat {

struct RequirementContext {
  std::string rootfs;  // host path of the container rootfs; "" = no image to look at
  // cuda-compat-mode disabled (legacy) or the enable-cuda-compat hook disabled (jit-cdi): a
  // compat package in the image is present but not used.
  bool compat_disabled = false;
};

// The nvct line for an unsatisfied cuda>=`needed` (without a trailing newline). Never fails: what
// cannot be read is left out.
std::string explain_requirement(std::string_view needed, const request::RequirementFacts& facts,
                                const RequirementContext& ctx);

// request::check_requirements, and on an unsatisfied condition the reference message followed by
// "\n" and the nvct line (explain_requirement for cuda>=, else the failing factors with the
// facts they were compared with). Invalid expressions keep their message unchanged.
Status check_requirements_explained(const std::vector<std::string>& expressions,
                                    const request::RequirementFacts& facts,
                                    const RequirementContext& ctx,
                                    request::UnknownKey unknown = request::UnknownKey::kInvalid);

}  // namespace nvct::compat
