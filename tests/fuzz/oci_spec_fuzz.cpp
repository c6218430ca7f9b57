// OCI config.json: the strict parser of the shim and the hook, then the GPU request read from
// the spec (process.env, mounts, annotations, capabilities) in both request modes.
#include "fuzz_common.hpp"
#include "nvct/config/config.hpp"
#include "nvct/oci/spec_document.hpp"
#include "nvct/request/mount_request.hpp"
#include "nvct/request/request.hpp"

using namespace nvct;

NVCT_FUZZ_TARGET {
  auto spec = oci::parse_spec(fuzz::as_text(data, size), "<fuzz>");
  if (!spec) return 0;
  static const config::Config cfg = config::default_config(fuzz::fake_host());
  for (bool cdi_mode : {false, true}) {
    auto req = request::from_spec(*spec, cfg, {.cdi_mode = cdi_mode});
    if (!req) continue;
    (void)req->is_legacy_image();
    if (req->is_gpu_container()) (void)request::mount_request(*req, cfg);
  }
  (void)spec->dump();
  return 0;
}
