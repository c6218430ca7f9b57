// `nvidia-ctk cuda explain`: flags -> driver facts and explain options, run, print, exit code.
#include "cuda_command.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "nvct/base/log.hpp"
#include "nvct/compat/explain.hpp"
#include "nvct/compat/tables.hpp"

namespace nvct::cmd::nvidia_ctk {
namespace {

constexpr int kCannotDecide = 2;

int cannot(std::ostream& err, std::string_view message) {
  err << "nvidia-ctk cuda explain: " << message << "\n";
  return kCannotDecide;
}

// config.Env of an OCI image config (or of a whole `docker inspect` object's Config).
Result<std::vector<std::string>> image_config_env(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fail(ENOENT, fmt::format("--image-config {}: cannot open the file", path));
  std::stringstream text;
  text << in.rdbuf();
  auto doc = nlohmann::json::parse(text.str(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return fail(EINVAL, fmt::format("--image-config {}: not a JSON object", path));
  std::vector<std::string> out;
  for (const char* key : {"config", "Config"}) {
    auto it = doc.find(key);
    if (it == doc.end() || !it->is_object()) continue;
    auto env = it->find("Env");
    if (env == it->end() || !env->is_array()) continue;
    for (const auto& e : *env)
      if (e.is_string()) out.push_back(e.get<std::string>());
  }
  return out;
}

Result<compat::DriverFacts> driver_facts(const CudaExplainFlags& f) {
  compat::DriverFacts facts;
  // Flags are checked before anything is read.
  std::vector<std::string> archs;
  for (const auto& a : f.gpu_arch) {
    NVCT_ASSIGN_OR_RETURN(auto arch, compat::parse_gpu_arch(a));
    archs.push_back(arch);
  }
  if (!f.driver_version.empty() && !compat::parse_major_minor(f.driver_version))
    return fail(EINVAL, fmt::format("--driver-version {}: expected X.Y[.Z], e.g. 550.54.14",
                                    f.driver_version));
  bool from_flags = !f.driver_version.empty() || !f.cuda_driver_version.empty();
  if (!from_flags) {
    NVCT_ASSIGN_OR_RETURN(facts, compat::facts_from_driver_root(f.driver_root));
  }
  if (!f.driver_version.empty()) {
    facts.version = f.driver_version;
    facts.cuda_version.reset();
    facts.cuda_version_derived = false;
  }
  if (!f.cuda_driver_version.empty()) {
    auto mm = compat::parse_major_minor(f.cuda_driver_version);
    if (!mm)
      return fail(EINVAL, fmt::format("--cuda-driver-version {}: expected X.Y, e.g. 12.4",
                                      f.cuda_driver_version));
    facts.cuda_version = mm->str();
    facts.cuda_version_derived = false;
  }
  compat::derive_cuda_version(facts);
  if (!f.gpu_arch.empty()) {
    facts.gpus.clear();
    for (const auto& arch : archs) {
      compat::GpuFacts g;
      g.arch = arch;
      g.brand = f.brand;
      g.model = f.model;
      g.forward_compat = compat::forward_compat_support(f.brand, f.model);
      facts.gpus.push_back(std::move(g));
    }
  }
  if (from_flags) facts.source = "flags";
  return facts;
}

}  // namespace

int run_cuda_explain(const CudaExplainFlags& f, std::ostream& out, std::ostream& err) {
  if (f.format != "text" && f.format != "json")
    return cannot(err, fmt::format("--format {}: expected text or json", f.format));
  compat::ExplainOptions o;
  o.path = f.path;
  o.force_rootfs = f.rootfs;
  o.all_files = f.all_files;
  o.strict = f.strict;
  o.max_file_size = f.max_file_size;
  std::vector<std::string> env;
  if (!f.image_config.empty()) {
    auto entries = image_config_env(f.image_config);
    if (!entries) return cannot(err, entries.error().message());
    env = *entries;
  }
  env.insert(env.end(), f.env.begin(), f.env.end());
  o.env = compat::ImageEnv::from_entries(env);
  // The driver is only asked when something is judged against it (not for --list).
  compat::DriverFacts facts;
  if (!f.list) {
    auto d = driver_facts(f);
    if (!d) return cannot(err, d.error().message());
    facts = *d;
  }
  // The loaders reused here log what they find as warnings; the report says it instead.
  const log::Level saved = log::level();
  if (saved < log::Level::kError) log::set_level(log::Level::kError);
  auto report = compat::explain(o, facts);
  log::set_level(saved);
  if (!report) return cannot(err, report.error().message());
  if (f.list) {
    out << compat::render_list(*report);
  } else if (f.format == "json") {
    out << compat::render_json(*report);
  } else {
    out << compat::render_text(*report);
  }
  out.flush();
  return report->exit_code;
}

void add_cuda_command(CLI::App& parent, GlobalOptions& globals) {
  auto f = std::make_shared<CudaExplainFlags>();
  CLI::App* cuda = parent.add_subcommand("cuda", "CUDA compatibility of images and binaries");
  cuda->require_subcommand(1);
  CLI::App* explain = cuda->add_subcommand(
      "explain", "Will the GPU code in this image, directory or file run on this driver and these "
                 "GPUs, and why (reads, never runs)");
  explain->add_option("path", f->path, "Image rootfs, directory, ELF file, fatbin or PTX file")
      ->required();
  explain->add_flag("--rootfs", f->rootfs, "Treat the directory as an image rootfs");
  explain->add_option("--driver-root", f->driver_root, "Driver root to read the facts from")
      ->default_str("/");
  explain->add_option("--driver-version", f->driver_version,
                      "Host driver version X.Y[.Z] (no driver root is read)");
  explain->add_option("--cuda-driver-version", f->cuda_driver_version,
                      "The driver's CUDA version X.Y (default: from --driver-version)");
  explain->add_option("--gpu-arch", f->gpu_arch, "GPU to judge against: sm_80, 8.0 (repeat)");
  explain->add_option("--brand", f->brand, "Brand of the --gpu-arch GPUs (Tesla, GeForce, ...)");
  explain->add_option("--model", f->model, "Model of the --gpu-arch GPUs (NVIDIA A100, ...)");
  explain->add_option("--env", f->env, "Image environment K=V (repeat)");
  explain->add_option("--image-config", f->image_config, "OCI image config JSON (config.Env)");
  explain->add_option("--format", f->format, "Output format: text or json")->default_str("text");
  explain->add_flag("--list", f->list, "Print the cuobjdump --list-elf/--list-ptx forms");
  explain->add_flag("--all-files", f->all_files, "List files without GPU code too");
  explain->add_flag("--strict", f->strict, "Exit 1 on jit, minor-compat and forward-compat too");
  explain->add_option("--max-file-size", f->max_file_size, "Skip larger files (bytes)");
  explain->callback([f, &globals] {
    if (f->driver_root.empty()) f->driver_root = "/";
    globals.exit_code = run_cuda_explain(*f, std::cout, std::cerr);
  });
}

bool is_cuda_invocation(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.empty() || arg[0] == '-') continue;
    return arg == "cuda";
  }
  return false;
}

}  // namespace nvct::cmd::nvidia_ctk
