#include "nvct/runtime/csv_requirements.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/compat/requirement_explain.hpp"
#include "nvct/request/requirement_expr.hpp"
#include "nvct/request/requirements.hpp"

namespace nvct::runtime {
namespace {

bool names(const std::vector<std::string>& properties, std::string_view name) {
  return std::find(properties.begin(), properties.end(), name) != properties.end();
}

}  // namespace

std::vector<std::string> requirement_properties(std::string_view expression) {
  std::vector<std::string> out;
  for (const auto& term : strings::split(expression, ' ')) {
    for (const auto& factor : strings::split(term, ',')) {
      if (factor.empty()) continue;
      auto op = factor.find_first_of("<>=!");
      out.push_back(strings::to_lower(factor.substr(0, op)));
    }
  }
  return out;
}

Status check_csv_requirements(const request::Request& request, const config::Config& cfg,
                              const CudaFactsQuery& query) {
  if (request::requirements_disabled(request, cfg)) {
    log::debug("requirements are disabled; not checking NVIDIA_REQUIRE_*");
    return ok();
  }
  NVCT_ASSIGN_OR_RETURN(auto expressions, request::requirements(request, cfg));
  if (expressions.empty()) return ok();

  const std::string root = cfg.cli.root.empty() ? "/" : cfg.cli.root;
  request::RequirementFacts facts;
  std::string cuda_missing, arch_missing;
  auto cuda =
      query ? query(root)
            : Result<driver::CudaDriverFacts>(fail(ENOSYS, "no CUDA driver query is available"));
  if (cuda) {
    facts.cuda_version = driver::cuda_version_string(cuda->driver_version);
    if (cuda->device0_arch)
      facts.devices.push_back({cuda->device0_arch, std::nullopt, std::nullopt});
    else
      arch_missing = cuda->arch_error.empty() ? "no compute capability reported" : cuda->arch_error;
    log::info("CUDA driver version {} (libcuda), device 0 compute capability {}",
              *facts.cuda_version, cuda->device0_arch.value_or("unknown"));
  } else {
    cuda_missing = cuda.error().message();
    arch_missing = cuda_missing;
    log::warn("failed to get the CUDA driver version: {}", cuda_missing);
  }

  for (const auto& expression : expressions) {
    auto properties = requirement_properties(expression);
    if (!facts.cuda_version && names(properties, "cuda"))
      return fail(EINVAL, fmt::format("requirement \"{}\" cannot be checked: the CUDA driver "
                                      "version is unknown: {}",
                                      expression, cuda_missing));
    if (facts.devices.empty() && names(properties, "arch"))
      return fail(EINVAL, fmt::format("requirement \"{}\" cannot be checked: the compute "
                                      "capability of device 0 is unknown: {}",
                                      expression, arch_missing));
  }
  log::debug("checking requirements [{}]", strings::join(expressions, "; "));
  return compat::check_requirements_explained(expressions, facts, {},
                                              request::UnknownKey::kIgnore);
}

}  // namespace nvct::runtime
