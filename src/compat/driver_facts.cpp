#include "nvct/compat/driver_facts.hpp"

#include <fmt/format.h>

#include "nvct/base/strings.hpp"
#include "nvct/compat/tables.hpp"
#include "nvct/driver/driver_info.hpp"
#include "nvct/driver/nvml_process.hpp"

namespace nvct::compat {

std::string GpuFacts::label() const {
  if (index) return fmt::format("GPU {}", *index);
  auto mm = parse_major_minor(arch);
  return mm ? fmt::format("sm_{}{}", mm->major, mm->minor) : "GPU";
}

void derive_cuda_version(DriverFacts& facts) {
  if (facts.cuda_version || !facts.version) return;
  if (auto cuda = cuda_for_driver(*facts.version)) {
    facts.cuda_version = *cuda;
    facts.cuda_version_derived = true;
  }
}

DriverFacts facts_from_nvml(const driver::NvmlFacts& nvml, bool procfs_fallback,
                            const std::string& root) {
  DriverFacts f;
  f.source = "driver-root";
  f.root = root;
  if (!nvml.driver_version.empty()) f.version = nvml.driver_version;
  if (!nvml.cuda_version.empty() && !procfs_fallback) f.cuda_version = nvml.cuda_version;
  derive_cuda_version(f);
  for (std::size_t i = 0; i < nvml.gpus.size(); ++i) {
    const auto& g = nvml.gpus[i];
    GpuFacts gpu;
    gpu.index = static_cast<unsigned>(i);
    gpu.uuid = g.uuid;
    gpu.model = g.name;
    gpu.brand = driver::brand_name(g.brand);
    if (g.cc_major > 0) gpu.arch = fmt::format("{}.{}", g.cc_major, g.cc_minor);
    gpu.forward_compat = forward_compat_support(gpu.brand, gpu.model);
    f.gpus.push_back(std::move(gpu));
  }
  return f;
}

Result<DriverFacts> facts_from_driver_root(const std::string& root) {
  driver::DiscoverOptions o;
  o.root = root.empty() ? "/" : root;
  if (auto user = driver::default_nvml_user()) o.nvml_user = *user;
  NVCT_ASSIGN_OR_RETURN(
      auto ctx, with_context(driver::initialize_driver(o, driver::isolated_nvml_query(o.nvml_user)),
                             "read the driver facts of driver root " + o.root));
  return facts_from_nvml(ctx.nvml, ctx.nvml_fallback, o.root);
}

Result<std::string> parse_gpu_arch(const std::string& text) {
  std::string t = strings::to_lower(strings::trim(text));
  auto bad = [&] {
    return fail(EINVAL, fmt::format("--gpu-arch {}: not a GPU architecture; use sm_80, compute_80 "
                                    "or 8.0",
                                    text));
  };
  if (t.find('.') != std::string::npos) {
    auto mm = parse_major_minor(t);
    if (!mm || mm->major == 0) return bad();
    return mm->str();
  }
  for (std::string_view prefix : {"sm_", "compute_"}) {
    if (!strings::starts_with(t, prefix)) continue;
    std::string digits = t.substr(prefix.size());
    if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.pop_back();
    if (digits.size() < 2 || digits.size() > 3) return bad();
    for (char c : digits)
      if (!strings::is_ascii_digit(c)) return bad();
    return digits.substr(0, digits.size() - 1) + "." + digits.back();
  }
  return bad();
}

}  // namespace nvct::compat
