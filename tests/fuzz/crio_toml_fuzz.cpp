// CRI-O TOML as `nvidia-ctk runtime configure --runtime=crio` edits it: drop-in and in place,
// with the layout-keeping text edit for the in-place form.
#include "fuzz_common.hpp"
#include "nvct/ctk/crio_config.hpp"
#include "nvct/ctk/toml_edit.hpp"

using namespace nvct;

NVCT_FUZZ_TARGET {
  std::string_view text = fuzz::as_text(data, size);
  for (bool in_place : {false, true}) {
    auto config = ctk::CrioConfig::parse(text, "<fuzz>", in_place);
    if (!config) return 0;
    (void)config->has_runtime("runc");
    (void)config->runtime_path("runc");
    if (!config->add_runtime("nvidia", "/usr/bin/nvidia-container-runtime", size % 2 == 0))
      continue;
    (void)config->serialize();
    if (in_place)
      (void)ctk::edit_toml_text(text, config->destination(),
                                {.tables = {{"crio", "runtime", "runtimes", "nvidia"}},
                                 .keys = {{{"crio", "runtime"}, "default_runtime"}}});
    (void)config->remove_runtime("nvidia");
  }
  return 0;
}
