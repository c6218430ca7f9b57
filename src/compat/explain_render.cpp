// Text (§6.3), JSON (§6.4) and --list (§3.4) forms of an explain report. Equal input gives
// byte-identical output: files are sorted by path, entries kept in file order.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "nvct/compat/explain.hpp"
#include "nvct/compat/tables.hpp"

namespace nvct::compat {
namespace {

template <class T>
nlohmann::ordered_json opt(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

std::string entry_list(const FileCode& code, EntryKind kind) {
  std::string out;
  std::vector<std::string> seen;  // a file holds the same arch once per container
  for (const auto& e : code.entries) {
    if (e.kind != kind) continue;
    std::string name = e.arch_name();
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
    seen.push_back(name);
    out += " " + name;
    if (kind == EntryKind::ptx && e.version_major)
      out += fmt::format(" (ISA {}.{}{})", e.version_major, e.version_minor,
                         e.compressed ? ", compressed" : "");
    else if (e.compressed)
      out += " (compressed)";
  }
  return out;
}

std::string verdict_summary(const Report& r) {
  std::vector<std::string> bad;
  for (const auto& g : r.driver.gpus) {
    std::string label = g.label();
    for (const auto& f : r.files)
      for (const auto& v : f.verdicts)
        if (v.gpu == label && exit_code_of(v.verdict.verdict, false) != 0) {
          bad.push_back(label);
          goto next;
        }
  next:;
  }
  std::string host = r.host_only_files
                         ? fmt::format("; {} files without GPU code", r.host_only_files)
                         : std::string();
  if (r.exit_code == 2) return "Verdict: could not decide (see the errors above)" + host;
  if (r.runtime && exit_code_of(r.runtime->verdict, false) != 0)
    return fmt::format("Verdict: does not run: runtime {}{}", to_string(r.runtime->verdict), host);
  if (r.driver.gpus.empty()) return "Verdict: no GPU to judge against (use --gpu-arch)" + host;
  if (!bad.empty())
    return fmt::format("Verdict: does not run on {}{}", fmt::join(bad, ", "), host);
  std::vector<std::string> all;
  for (const auto& g : r.driver.gpus) all.push_back(g.label());
  return fmt::format("Verdict: runs on {}{}", fmt::join(all, ", "), host);
}

}  // namespace

std::string render_text(const Report& r) {
  std::string out;
  const auto& d = r.driver;
  if (d.version || d.cuda_version) {
    out += fmt::format("Driver   {}, CUDA {}{}", d.version.value_or("unknown"),
                       d.cuda_version.value_or("unknown"), d.cuda_version_derived ? " (derived)" : "");
    out += d.source == "driver-root" ? fmt::format(" (driver root {})\n", d.root) : " (flags)\n";
  }
  for (const auto& g : d.gpus) {
    out += fmt::format("{:<8} {}{}{}   forward compat: {}\n",
                       g.index ? g.label() : std::string("GPU"),
                       g.model.empty() ? "" : g.model + "   ", "sm_" + [&] {
                         auto mm = parse_major_minor(g.arch);
                         return mm ? fmt::format("{}{}", mm->major, mm->minor) : std::string("?");
                       }(),
                       g.brand.empty() ? "" : "   brand " + g.brand, to_string(g.forward_compat));
  }
  if (r.image) {
    const auto& im = *r.image;
    out += fmt::format("Image    {}   CUDA runtime {}{}\n", r.path, im.version.value_or("unknown"),
                       im.source.empty() ? ""
                                         : fmt::format(" ({})", im.path.empty() ? im.source : im.path));
    if (im.compat.present)
      out += fmt::format("         forward-compat package {} (libcuda {}, CUDA {})\n",
                         im.compat.path, im.compat.driver_version.value_or("?"),
                         im.compat.cuda_version.value_or("?"));
  }
  if (r.require_cuda)
    out += fmt::format("         NVIDIA_REQUIRE_CUDA \"{}\": {}\n", *r.require_cuda,
                       r.require_cuda_satisfied.value_or(false) ? "satisfied" : "not satisfied");
  if (r.runtime)
    out += fmt::format("runtime: {}: {}\n", to_string(r.runtime->verdict), r.runtime->message);
  for (const auto& e : r.errors) out += fmt::format("error: {}\n", e);
  for (const auto& f : r.files) {
    if (f.code.error) {
      out += f.code.error->text() + "\n";
      continue;
    }
    out += f.code.path + "\n";
    std::string sass = entry_list(f.code, EntryKind::sass), ptx = entry_list(f.code, EntryKind::ptx);
    if (sass.empty() && ptx.empty()) {
      out += "    no GPU code\n";
    } else {
      out += "   ";
      if (!sass.empty()) out += " SASS" + sass;
      if (!ptx.empty()) out += (sass.empty() ? "" : "  ") + std::string(" PTX") + ptx;
      out += "\n";
    }
    for (const auto& w : f.code.warnings) out += "    warning: " + w + "\n";
    for (const auto& v : f.verdicts)
      out += fmt::format("    {}: {}: {}\n", v.gpu, to_string(v.verdict.verdict), v.verdict.message);
  }
  bool jit = false;
  for (const auto& f : r.files)
    for (const auto& v : f.verdicts) jit = jit || v.verdict.verdict == Verdict::jit;
  if (jit)
    out += "Note: PTX is JIT-compiled at first use (seconds to minutes for large libraries); the "
           "compute cache (CUDA_CACHE_PATH, CUDA_CACHE_MAXSIZE) is lost with the container\n";
  out += verdict_summary(r) + "\n";
  return out;
}

std::string render_json(const Report& r) {
  using J = nlohmann::ordered_json;
  J j;
  j["schemaVersion"] = 1;
  j["input"] = {{"path", r.path}, {"kind", std::string(to_string(r.kind))}};
  const auto& d = r.driver;
  j["driver"] = {{"source", d.source},
                 {"root", d.root.empty() ? J(nullptr) : J(d.root)},
                 {"version", opt(d.version)},
                 {"cudaVersion", opt(d.cuda_version)},
                 {"cudaVersionDerived", d.cuda_version_derived}};
  J gpus = J::array();
  for (const auto& g : d.gpus)
    gpus.push_back({{"index", opt(g.index)},
                    {"uuid", g.uuid.empty() ? J(nullptr) : J(g.uuid)},
                    {"model", g.model.empty() ? J(nullptr) : J(g.model)},
                    {"brand", g.brand.empty() ? J(nullptr) : J(g.brand)},
                    {"arch", g.arch.empty() ? J(nullptr) : J(g.arch)},
                    {"forwardCompat", std::string(to_string(g.forward_compat))}});
  j["gpus"] = gpus;
  if (r.image) {
    const auto& im = *r.image;
    j["image"] = {
        {"cudaRuntime",
         {{"version", opt(im.version)},
          {"source", im.source.empty() ? J(nullptr) : J(im.source)},
          {"path", im.path.empty() ? J(nullptr) : J(im.path)}}},
        {"requireCuda", opt(r.require_cuda)},
        {"requireCudaSatisfied", opt(r.require_cuda_satisfied)},
        {"compat",
         {{"present", im.compat.present},
          {"path", im.compat.path.empty() ? J(nullptr) : J(im.compat.path)},
          {"driverVersion", opt(im.compat.driver_version)},
          {"cudaVersion", opt(im.compat.cuda_version)},
          {"used", r.runtime && r.runtime->verdict == Verdict::forward_compat},
          {"reason", r.runtime ? J(r.runtime->message) : J(nullptr)}}}};
  } else {
    j["image"] = nullptr;
  }
  if (r.runtime) {
    j["runtime"] = {{"verdict", std::string(to_string(r.runtime->verdict))},
                    {"needed", opt(r.runtime->needed)},
                    {"minDriver", opt(r.runtime->min_driver)},
                    {"message", r.runtime->message}};
  } else {
    j["runtime"] = nullptr;
  }
  J files = J::array();
  std::uint64_t with_code = 0, native = 0, jit = 0, no_code = 0, too_old = 0, malformed = 0;
  for (const auto& f : r.files) {
    J entries = J::array();
    for (const auto& e : f.code.entries) {
      entries.push_back({{"kind", std::string(to_string(e.kind))},
                         {"arch", e.arch_name()},
                         {"archSpecific", opt(e.arch_specific)},
                         {"codeVersion", fmt::format("{}.{}", e.version_major, e.version_minor)},
                         {"ptxIsa", e.kind == EntryKind::ptx
                                        ? J(fmt::format("{}.{}", e.version_major, e.version_minor))
                                        : J(nullptr)},
                         {"compressed", e.compressed},
                         {"compression", std::string(to_string(e.compression))},
                         {"container", e.container},
                         {"index", e.index},
                         {"fileOffset", e.file_offset},
                         {"size", e.payload_size}});
    }
    J verdicts = J::array();
    for (const auto& v : f.verdicts) {
      verdicts.push_back({{"gpu", v.gpu},
                          {"verdict", std::string(to_string(v.verdict.verdict))},
                          {"using", v.verdict.using_entry.empty() ? J(nullptr)
                                                                  : J(v.verdict.using_entry)},
                          {"message", v.verdict.message}});
      switch (v.verdict.verdict) {
        case Verdict::native: ++native; break;
        case Verdict::jit: ++jit; break;
        case Verdict::no_code: ++no_code; break;
        case Verdict::driver_too_old: ++too_old; break;
        default: break;
      }
    }
    if (f.code.error) ++malformed;
    if (f.code.has_gpu_code()) ++with_code;
    files.push_back({{"path", f.code.path},
                     {"size", f.code.size},
                     {"kind", std::string(to_string(f.code.kind))},
                     {"error", f.code.error ? J(f.code.error->text()) : J(nullptr)},
                     {"entries", entries},
                     {"verdicts", verdicts}});
  }
  j["files"] = files;
  j["summary"] = {{"files", with_code + malformed + r.host_only_files},
                  {"withGpuCode", with_code},
                  {"native", native},
                  {"jit", jit},
                  {"noCode", no_code},
                  {"driverTooOld", too_old},
                  {"malformed", malformed}};
  j["errors"] = r.errors;
  j["exitCode"] = r.exit_code;
  return j.dump(2) + "\n";
}

std::string render_list(const Report& r) {
  std::string out;
  for (const auto& f : r.files) {
    out += cuobjdump_list(f.code, EntryKind::sass, f.code.path);
    out += cuobjdump_list(f.code, EntryKind::ptx, f.code.path);
  }
  return out;
}

}  // namespace nvct::compat
