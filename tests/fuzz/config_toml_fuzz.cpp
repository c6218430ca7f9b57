// config.toml: parsed onto the defaults and validated, then rendered back (`nvidia-ctk config`)
// and the rendering parsed again.
#include "fuzz_common.hpp"
#include "nvct/config/document.hpp"
#include "nvct/config/load.hpp"

using namespace nvct;

NVCT_FUZZ_TARGET {
  const auto& host = fuzz::fake_host();
  auto document = config::Document::parse(fuzz::as_text(data, size));
  if (!document) return 0;
  (void)document->keys();
  auto cfg = document->to_config(host, "<fuzz>");
  std::string text = document->render(host);
  if (cfg) {
    // A config that loads renders to text that loads.
    auto again = config::load_from_string(text, host);
    if (!again) __builtin_trap();
  }
  return 0;
}
