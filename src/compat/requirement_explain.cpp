#include "nvct/compat/requirement_explain.hpp"

#include <fmt/format.h>

#include "nvct/base/strings.hpp"
#include "nvct/compat/gpu_table.hpp"
#include "nvct/compat/image_runtime.hpp"
#include "nvct/compat/tables.hpp"

namespace nvct::compat {
namespace {

std::string host_text(const request::RequirementFacts& facts) {
  std::string cuda = facts.cuda_version ? *facts.cuda_version
                                        : (facts.driver_version
                                               ? cuda_for_driver(*facts.driver_version).value_or("")
                                               : "");
  // csv mode (Tegra) knows only libcuda's CUDA version.
  if (!facts.driver_version)
    return cuda.empty() ? "an unknown driver" : fmt::format("a driver with CUDA {}", cuda);
  std::string driver = "driver " + *facts.driver_version;
  if (cuda.empty()) return driver;
  return fmt::format("{} (CUDA {})", driver, cuda);
}

// Whether the compat package covers `needed` on the selected GPUs, as a clause.
std::string compat_clause(std::string_view needed, const request::RequirementFacts& facts,
                          const RequirementContext& ctx, const CompatPackage& compat) {
  if (!compat.present) return "the image has no forward-compat package";
  std::string what = fmt::format("the image's forward-compat package (libcuda {}{})",
                                 compat.driver_version.value_or("?"),
                                 compat.cuda_version ? ", CUDA " + *compat.cuda_version : "");
  auto has = compat.cuda_version ? parse_major_minor(*compat.cuda_version) : std::nullopt;
  auto want = parse_major_minor(needed);
  if (has && want && *has < *want) return what + " is too old for it";
  if (ctx.compat_disabled) return what + " is not used (CUDA compat is disabled in the config)";
  for (const auto& d : facts.devices) {
    Support s = forward_compat_support(d.brand.value_or(""), d.model.value_or(""));
    std::string name = d.model ? *d.model : (d.brand ? "brand " + *d.brand : "this GPU");
    if (s == Support::no)
      return what + fmt::format(" cannot help: forward compat is not supported on {} "
                                "(data-center GPUs only; CUDA error 804)",
                                name);
    if (s == Support::unknown)
      return what + fmt::format(" may help if {} supports forward compat (data-center GPUs only)",
                                name);
  }
  return what + " would run it, but requirements are checked against the host driver: set "
                "NVIDIA_DISABLE_REQUIRE=true to rely on it";
}

}  // namespace

std::string explain_requirement(std::string_view needed, const request::RequirementFacts& facts,
                                const RequirementContext& ctx) {
  std::string need = fmt::format("CUDA {}", needed);
  if (auto driver = min_driver_for_cuda(needed)) need += fmt::format(" (driver >= {})", *driver);
  CompatPackage compat;
  if (!ctx.rootfs.empty()) {
    if (auto root = driver::DriverRoot::open(ctx.rootfs)) compat = read_compat_package(*root);
  }
  std::string line = fmt::format("nvct: this image needs {}; this host has {} and {}", need,
                                 host_text(facts), compat_clause(needed, facts, ctx, compat));
  if (!ctx.rootfs.empty()) line += "; details: nvidia-ctk cuda explain " + ctx.rootfs;
  return line;
}

Status check_requirements_explained(const std::vector<std::string>& expressions,
                                    const request::RequirementFacts& facts,
                                    const RequirementContext& ctx, request::UnknownKey unknown) {
  auto checked = request::check_requirements(expressions, facts, unknown);
  if (checked) return checked;
  const std::string& message = checked.error().message();
  if (!strings::starts_with(message, "requirement error: unsatisfied condition:")) return checked;
  auto failing = request::first_failing(expressions, facts, unknown);
  if (!failing) return checked;
  auto detail = request::unsatisfied_detail(*failing, facts, unknown);
  std::string line;
  if (detail.failed_cuda) {
    line = explain_requirement(*detail.failed_cuda, facts, ctx);
  } else if (!detail.text.empty()) {
    line = fmt::format("nvct: \"{}\" is not met: {}", *failing, detail.text);
  }
  if (line.empty()) return checked;
  return fail(checked.error().code(), message + "\n" + line);
}

}  // namespace nvct::compat
