#include "nvct/compat/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "nvct/compat/tables.hpp"

namespace nvct::compat {
namespace {

std::string sm(std::uint32_t arch) { return fmt::format("sm_{}", arch); }

std::string driver_text(const DriverFacts& d) {
  std::string v = d.version ? "driver " + *d.version : "the driver";
  if (d.cuda_version) v += fmt::format(" (CUDA {})", *d.cuda_version);
  return v;
}

bool arch_specific(const CodeEntry& e) { return e.arch_specific.value_or(false); }

}  // namespace

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::ok:
      return "ok";
    case Verdict::minor_compat:
      return "minor-compat";
    case Verdict::forward_compat:
      return "forward-compat";
    case Verdict::native:
      return "native";
    case Verdict::jit:
      return "jit";
    case Verdict::driver_too_old:
      return "driver-too-old";
    case Verdict::no_code:
      return "no-code";
    case Verdict::host_only:
      return "host-only";
    case Verdict::malformed:
      return "malformed";
    case Verdict::unknown_runtime:
      break;
  }
  return "unknown-runtime";
}

RuntimeVerdict judge_runtime(const ImageRuntime& image, const DriverFacts& driver,
                             bool compat_disabled) {
  RuntimeVerdict out;
  if (!image.version) {
    out.message = "the image's CUDA runtime version is unknown (no libcudart, CUDA_VERSION or "
                  "version.json)";
    return out;
  }
  out.needed = image.version;
  out.min_driver = min_driver_for_cuda(*image.version);
  std::string need = fmt::format("needs CUDA {}", *image.version);
  if (out.min_driver) need += fmt::format(" (driver >= {})", *out.min_driver);
  auto R = parse_major_minor(*image.version);
  auto D = driver.cuda_version ? parse_major_minor(*driver.cuda_version) : std::nullopt;
  if (!D) {
    out.message = need + "; the driver's CUDA version is unknown";
    return out;
  }
  if (*R <= *D) {  // R1
    out.verdict = Verdict::ok;
    out.message = fmt::format("{}; {} has CUDA {}", need,
                              driver.version ? "driver " + *driver.version : "the driver",
                              *driver.cuda_version);
    return out;
  }
  auto floor = minor_compat_floor(R->major);
  if (R->major == D->major && R->major >= 11 && floor && driver.version &&
      compare_driver_versions(*driver.version, *floor).value_or(-1) >= 0) {  // R2
    out.verdict = Verdict::minor_compat;
    out.message = fmt::format("{}; {} runs it by minor version compatibility with a limited "
                              "feature set",
                              need, driver_text(driver));
    return out;
  }
  const CompatPackage& c = image.compat;
  auto C = c.cuda_version ? parse_major_minor(*c.cuda_version) : std::nullopt;
  if (c.present && C && *C >= *R && *C > *D) {
    std::string pkg = fmt::format("forward-compat libcuda {}{} from the image",
                                  c.driver_version.value_or("?"),
                                  c.cuda_version ? " (CUDA " + *c.cuda_version + ")" : "");
    if (compat_disabled) {
      out.verdict = Verdict::driver_too_old;
      out.message = fmt::format("{}; {} supports CUDA {}; the image's {} is present but not used "
                                "(CUDA compat is disabled)",
                                need, driver.version ? "driver " + *driver.version : "the driver",
                                *driver.cuda_version, pkg);
      return out;
    }
    for (const auto& g : driver.gpus) {
      if (g.forward_compat == Support::yes) continue;
      out.verdict = Verdict::driver_too_old;  // R4
      out.message = fmt::format(
          "{}; {} + {}: forward compat is {} on {} (data-center GPUs only; CUDA error 804)", need,
          driver_text(driver), pkg, g.forward_compat == Support::no ? "not supported" : "unknown",
          g.model.empty() ? g.label() : g.label() + " " + g.model);
      return out;
    }
    out.verdict = Verdict::forward_compat;  // R3
    std::vector<std::string> names;
    for (const auto& g : driver.gpus) names.push_back(g.model.empty() ? g.label() : g.model);
    out.message = fmt::format("{} + {}{}", driver_text(driver), pkg,
                              names.empty() ? std::string("; the GPUs were not checked")
                                            : "; supported on " + fmt::format("{}", fmt::join(names, ", ")));
    return out;
  }
  out.verdict = Verdict::driver_too_old;  // R5
  std::string compat_text = !c.present ? "the image ships no forward-compat package"
                                       : fmt::format("the image's forward-compat libcuda {} is "
                                                     "too old",
                                                     c.driver_version.value_or("?"));
  out.message = fmt::format("{}; {} supports CUDA {}; {}", need,
                            driver.version ? "driver " + *driver.version : "the driver",
                            *driver.cuda_version, compat_text);
  return out;
}

CodeVerdict judge_code(const std::vector<CodeEntry>& entries, const std::string& arch,
                       const std::optional<std::string>& driver_cuda, bool disable_ptx_jit) {
  CodeVerdict out;
  auto gpu = parse_major_minor(arch);
  if (!gpu) {
    out.message = fmt::format("unknown GPU architecture {}", arch);
    return out;
  }
  const std::uint32_t g = static_cast<std::uint32_t>(gpu->major * 10 + gpu->minor);
  const std::string gpu_sm = sm(g);
  // C1: SASS of the same major, minor <= the GPU's; `a` targets only on exactly their arch.
  const CodeEntry* best = nullptr;
  for (const auto& e : entries) {
    if (e.kind != EntryKind::sass || e.arch == 0) continue;
    if (e.arch / 10 != g / 10 || e.arch > g) continue;
    if (arch_specific(e) && e.arch != g) continue;
    if (!best || e.arch > best->arch) best = &e;
  }
  if (best) {
    out.verdict = Verdict::native;
    out.using_entry = best->arch_name();
    out.message = best->arch == g ? fmt::format("SASS {} runs on {}", out.using_entry, gpu_sm)
                                  : fmt::format("SASS {} runs on {} (same major, lower minor)",
                                                out.using_entry, gpu_sm);
    return out;
  }
  // C2/C3: PTX of an arch <= the GPU's; `a` PTX only on exactly its arch.
  const CodeEntry* ptx = nullptr;
  const CodeEntry* newer_ptx = nullptr;
  for (const auto& e : entries) {
    if (e.kind != EntryKind::ptx || e.arch == 0) continue;
    if (e.arch > g || (arch_specific(e) && e.arch != g)) {
      if (!newer_ptx || e.arch < newer_ptx->arch) newer_ptx = &e;
      continue;
    }
    if (!ptx || e.arch > ptx->arch) ptx = &e;
  }
  std::string why;
  if (ptx && !disable_ptx_jit) {
    std::string isa = fmt::format("{}.{}", ptx->version_major, ptx->version_minor);
    auto accepted = driver_cuda ? ptx_isa_for_cuda(*driver_cuda) : std::nullopt;
    auto isa_mm = parse_major_minor(isa);
    if (accepted && isa_mm && ptx->version_major > 0 && *isa_mm > *parse_major_minor(*accepted)) {
      out.verdict = Verdict::driver_too_old;  // C3
      out.using_entry = ptx->arch_name();
      auto needs = cuda_for_ptx_isa(isa);
      out.message = fmt::format("no SASS for {}; PTX {} has ISA {}{}, newer than driver CUDA {} "
                                "can JIT-compile",
                                gpu_sm, out.using_entry, isa,
                                needs ? fmt::format(" (needs a CUDA {} driver)", *needs) : "",
                                *driver_cuda);
      return out;
    }
    out.verdict = Verdict::jit;
    out.using_entry = ptx->arch_name();
    out.message = fmt::format("no SASS for {}; PTX {} will be JIT-compiled (slow first start)",
                              gpu_sm, out.using_entry);
    return out;
  }
  if (ptx && disable_ptx_jit) {
    why = fmt::format(" (PTX {} is there but CUDA_DISABLE_PTX_JIT=1 turns JIT off)",
                      ptx->arch_name());
  } else if (newer_ptx) {
    why = fmt::format(" (PTX {} is newer than the GPU)", newer_ptx->arch_name());
  } else {
    std::vector<std::uint32_t> majors;
    for (const auto& e : entries)
      if (e.kind == EntryKind::sass && e.arch != 0) majors.push_back(e.arch);
    if (!majors.empty()) {
      std::sort(majors.begin(), majors.end());
      std::uint32_t m = majors.front();
      why = fmt::format(" (SASS {} runs only on {}.x)", sm(m), m / 10);
    }
  }
  out.verdict = Verdict::no_code;  // C4
  out.message = fmt::format("no SASS or PTX for {}{}", gpu_sm, why);
  return out;
}

int exit_code_of(Verdict v, bool strict) {
  switch (v) {
    case Verdict::no_code:
    case Verdict::driver_too_old:
      return 1;
    case Verdict::malformed:
      return 2;
    case Verdict::jit:
    case Verdict::minor_compat:
    case Verdict::forward_compat:
      return strict ? 1 : 0;
    default:
      return 0;
  }
}

}  // namespace nvct::compat
