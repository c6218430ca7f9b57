#include "nvct/runtime/csv_mode.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/cdi/csv_mount_spec.hpp"
#include "nvct/cdi/generate_hooks.hpp"
#include "nvct/runtime/cdi_mode.hpp"
#include "nvct/runtime/gated_modes.hpp"

namespace nvct::runtime {
namespace {

std::string join_dir(const std::string& dir, std::string_view name) {
  return (dir.empty() || dir.back() != '/' ? dir + "/" : dir) + std::string(name);
}

Result<std::vector<std::string>> all_csv_files(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::string> out;
  fs::directory_iterator it(dir, ec);
  if (ec)
    return fail(ec.value(), fmt::format("list the CSV mount specs in {}: {}", dir, ec.message()));
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!strings::ends_with(name, ".csv")) continue;
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;  // follows links, like opening the file would
    out.push_back(join_dir(dir, name));
  }
  if (ec)
    return fail(ec.value(), fmt::format("list the CSV mount specs in {}: {}", dir, ec.message()));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<std::string> csv_device_ids(const request::Request& request) {
  std::vector<std::string> out;
  if (!request.devices) return out;
  for (const auto& d : *request.devices) {
    if (d.empty() || d == "none" || d == "void") continue;
    std::string id = "mode=csv,id=" + d;
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(std::move(id));
  }
  return out;
}

bool csv_mounts_all(const request::Request& request) {
  return request.getenv("NVIDIA_REQUIRE_JETPACK") == "csv-mounts=all";
}

Result<std::vector<std::string>> csv_mount_spec_files(const request::Request& request,
                                                      const config::Config& cfg) {
  const std::string& dir = cfg.runtime.csv.mount_spec_path;
  if (csv_mounts_all(request)) return all_csv_files(dir);
  std::vector<std::string> out;
  for (const char* name : kCsvBaseFiles) out.push_back(join_dir(dir, name));
  return out;
}

Result<cdi::ModeOptions> csv_mode_options(const config::Config& cfg, std::vector<std::string> files,
                                          std::string_view path_env) {
  cdi::ModeOptions o;
  o.vendor = "runtime.nvidia.com";
  o.class_name = "gpu";
  o.driver_root = cfg.cli.root.empty() ? "/" : cfg.cli.root;
  o.dev_root = o.driver_root;
  NVCT_ASSIGN_OR_RETURN(o.hooks.binary,
                        cdi::resolve_hook_binary(cfg.ctk.path, path_env, cdi::kCtkPathSetting));
  o.features.no_additional_gids_for_device_nodes = cfg.features.no_additional_gids_for_device_nodes;
  o.csv_files = std::move(files);
  o.csv_compat_container_root = cfg.runtime.csv.compat_container_root;
  return o;
}

Result<bool> apply_csv_mode(nlohmann::ordered_json& spec, const request::Request& request,
                            const config::Config& cfg, const CudaFactsQuery& cuda,
                            cdi::DeviceLookup& lookup, std::string_view path_env) {
  // 1. nvidia-hook-remover.
  bool changed = remove_nvidia_prestart_hooks(spec);
  auto ids = csv_device_ids(request);
  if (ids.empty()) {
    log::debug("csv mode: no devices requested; nothing to add");
    return changed;
  }
  NVCT_TRY(check_csv_requirements(request, cfg, cuda));

  // 2. feature-gated: the gated device sets; never the CUDA compat hook in csv mode.
  NVCT_ASSIGN_OR_RETURN(bool gated, apply_legacy_gated_modes(spec, request, cfg, lookup));
  changed = changed || gated;

  // 3. csv: one JIT spec from the CSV mount specs.
  NVCT_ASSIGN_OR_RETURN(auto files, csv_mount_spec_files(request, cfg));
  log::info("csv mode: devices [{}] from {}", strings::join(ids, " "), strings::join(files, ", "));
  NVCT_ASSIGN_OR_RETURN(auto entries, cdi::read_csv_mount_spec_files(files));
  NVCT_ASSIGN_OR_RETURN(auto options, csv_mode_options(cfg, std::move(files), path_env));
  NVCT_ASSIGN_OR_RETURN(auto csv_spec, with_context(cdi::build_csv_spec(entries, options, lookup),
                                                    "failed to construct the csv CDI spec"));
  if (csv_spec.devices.empty()) {
    log::warn("csv mode: the CSV mount specs name nothing that exists under {}",
              options.driver_root);
    return changed;
  }
  // The csv spec keeps everything in its one device (mounts included), unlike jit-cdi's.
  for (const auto& d : csv_spec.devices)
    NVCT_TRY(with_context(cdi::apply_edits(spec, d.container_edits, lookup),
                          "failed to apply the csv CDI edits"));
  if (!csv_spec.container_edits.empty())
    NVCT_TRY(with_context(cdi::apply_edits(spec, csv_spec.container_edits, lookup),
                          "failed to apply the csv CDI edits"));
  return true;
}

}  // namespace nvct::runtime
