// containerd config.toml (versions 1-3) as `nvidia-ctk runtime configure --runtime=containerd`
// edits it: the tree edit, the go-toml serialisation, the drop-in, and the layout-keeping text
// edit of issue 14.
#include "fuzz_common.hpp"
#include "nvct/ctk/containerd_config.hpp"
#include "nvct/ctk/toml_edit.hpp"

using namespace nvct;

NVCT_FUZZ_TARGET {
  std::string_view text = fuzz::as_text(data, size);
  auto config = ctk::ContainerdConfig::parse(text, "<fuzz>");
  if (!config) return 0;
  (void)config->runtime_binary("runc");
  auto drop_in = config->drop_in_base();
  (void)drop_in.serialize();
  if (!config->add_runtime("nvidia", "/usr/bin/nvidia-container-runtime", size % 2 == 0)) return 0;
  (void)config->enable_cdi();
  std::string serialized = config->serialize();
  if (!ctk::ContainerdConfig::parse(serialized, "<fuzz output>")) __builtin_trap();
  const std::string& cri = config->cri_plugin();
  ctk::TomlEdits edits;
  edits.tables = {{"plugins", cri, "containerd", "runtimes", "nvidia"},
                  {"plugins", cri, "containerd", "runtimes", "runc"}};
  edits.keys = {{{}, "version"},
                {{"plugins", cri, "containerd"}, "default_runtime_name"},
                {config->version() == 1 ? ctk::TomlPath{"plugins", cri, "containerd"}
                                        : ctk::TomlPath{"plugins", cri},
                 "enable_cdi"}};
  (void)ctk::edit_toml_text(text, config->tree(), edits);
  toml::table top;
  (void)ctk::ContainerdConfig::add_import(top, "/etc/containerd/conf.d/*.toml", config->version());
  (void)config->remove_runtime("nvidia");
  return 0;
}
