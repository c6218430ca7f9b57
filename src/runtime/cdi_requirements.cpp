#include "nvct/runtime/cdi_requirements.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/compat/requirement_explain.hpp"
#include "nvct/driver/driver_info.hpp"
#include "nvct/driver/nvml_process.hpp"
#include "nvct/request/requirements.hpp"
#include "nvct/runtime/jit_cdi.hpp"

namespace nvct::runtime {
namespace {

std::string_view device_id(std::string_view name) {
  auto eq = name.rfind('=');
  return eq == std::string_view::npos ? name : name.substr(eq + 1);
}

std::optional<std::size_t> gpu_of(const driver::NvmlFacts& nvml, std::string_view id) {
  auto parse_index = [](std::string_view s) -> std::optional<std::size_t> {
    if (s.empty() || !std::all_of(s.begin(), s.end(), strings::is_ascii_digit) || s.size() > 6)
      return std::nullopt;
    return static_cast<std::size_t>(std::stoul(std::string(s)));
  };
  auto colon = id.find(':');
  if (auto i = parse_index(id.substr(0, colon)); i && *i < nvml.gpus.size()) return *i;
  for (std::size_t i = 0; i < nvml.gpus.size(); ++i) {
    if (strings::to_lower(nvml.gpus[i].uuid) == strings::to_lower(id)) return i;
    for (const auto& m : nvml.gpus[i].migs)
      if (strings::to_lower(m.uuid) == strings::to_lower(id)) return i;
  }
  return std::nullopt;
}

}  // namespace

request::RequirementFacts cdi_requirement_facts(const driver::NvmlFacts& nvml, bool procfs_fallback,
                                                const std::vector<std::string>& device_names) {
  request::RequirementFacts f;
  if (!nvml.driver_version.empty()) f.driver_version = nvml.driver_version;
  // As legacy mode: the procfs fallback knows no CUDA version, and `cuda` is then satisfied.
  if (!nvml.cuda_version.empty() && !procfs_fallback) f.cuda_version = nvml.cuda_version;
  std::vector<std::size_t> selected;
  for (const auto& name : device_names) {
    auto id = device_id(name);
    if (id == "all") {
      for (std::size_t i = 0; i < nvml.gpus.size(); ++i) selected.push_back(i);
    } else if (auto i = gpu_of(nvml, id)) {
      selected.push_back(*i);
    }
  }
  std::vector<std::size_t> seen;
  for (auto i : selected) {
    if (std::find(seen.begin(), seen.end(), i) != seen.end()) continue;
    seen.push_back(i);
    const auto& g = nvml.gpus[i];
    request::DeviceFacts d;
    if (g.cc_major > 0) d.arch = fmt::format("{}.{}", g.cc_major, g.cc_minor);
    if (auto brand = driver::brand_name(g.brand); !brand.empty()) d.brand = brand;
    if (!g.name.empty()) d.model = g.name;
    f.devices.push_back(std::move(d));
  }
  return f;
}

Status check_cdi_requirements(const std::string& rootfs, const request::Request& request,
                              const config::Config& cfg, const driver::NvmlQuery& nvml) {
  if (!request.devices || request.devices->empty()) return ok();
  if (request::requirements_disabled(request, cfg)) {
    log::debug("requirements are disabled; not checking NVIDIA_REQUIRE_*");
    return ok();
  }
  NVCT_ASSIGN_OR_RETURN(auto expressions, request::requirements(request, cfg));
  if (expressions.empty()) return ok();
  driver::DiscoverOptions o;
  o.root = cfg.cli.root.empty() ? "/" : cfg.cli.root;
  if (auto user = driver::default_nvml_user()) o.nvml_user = *user;
  // The create's shared query (spec_modifier): jit-cdi's discovery reuses this answer.
  auto ctx = driver::initialize_driver(o, nvml ? nvml : runtime_nvml_query());
  if (!ctx) {
    // A CDI spec needs no driver access at create; a driver root nvct cannot read (a driver
    // container not up yet, a wrong nvidia-container-cli.root) must not stop containers that
    // ran before requirements were checked in this mode.
    log::warn("requirements [{}] not checked: the driver at {} cannot be read: {}",
              strings::join(expressions, "; "), o.root, ctx.error().message());
    return ok();
  }
  auto facts = cdi_requirement_facts(ctx->nvml, ctx->nvml_fallback, *request.devices);
  log::debug("checking requirements [{}] against driver {} (CUDA {})",
             strings::join(expressions, "; "), facts.driver_version.value_or("unknown"),
             facts.cuda_version.value_or("unknown"));
  compat::RequirementContext rc;
  rc.rootfs = rootfs;
  return compat::check_requirements_explained(expressions, facts, rc);
}

}  // namespace nvct::runtime
