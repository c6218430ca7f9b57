#include "nvct/runtime/spec_modifier.hpp"

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/oci/spec_document.hpp"
#include "nvct/runtime/legacy_hook.hpp"

namespace nvct::runtime {

Result<bool> apply_modifiers(nlohmann::ordered_json& spec, const request::Request& request,
                             const ModifierOptions& options) {
  if (!request.is_gpu_container()) {
    log::debug("no GPU requested; the spec is left unmodified");
    return false;
  }
  log::info("GPU container requesting devices [{}]; applying {} mode modifiers",
            strings::join(*request.devices, ","), mode_name(options.mode));
  switch (options.mode) {
    case Mode::kLegacy:
      return add_legacy_prestart_hook(spec, options.hook_path);
  }
  return false;
}

Result<BundleOutcome> modify_bundle(const std::string& bundle, const config::Config& cfg,
                                    const ModifierOptions& options) {
  NVCT_ASSIGN_OR_RETURN(auto doc, oci::SpecDocument::load(bundle));
  NVCT_ASSIGN_OR_RETURN(auto req, with_context(request::from_spec(doc.json(), cfg),
                                               "read the GPU request from " + doc.path()));
  NVCT_ASSIGN_OR_RETURN(bool changed, with_context(apply_modifiers(doc.json(), req, options),
                                                   "modify " + doc.path()));
  if (!changed) return BundleOutcome::kUnchanged;
  NVCT_TRY(with_context(doc.save(), "write " + doc.path()));
  log::info("updated {}", doc.path());
  return BundleOutcome::kRewritten;
}

}  // namespace nvct::runtime
