// The toolkit config, read once per run: TOML parse (with the parser's line and column), the
// keys the schema does not know (config::unknown_keys) and the config the loader makes of it.
#include "nvct/diagnose/config_facts.hpp"

#include <toml++/toml.h>

#include <fmt/format.h>
#include <cerrno>

#include "nvct/config/document.hpp"
#include "nvct/config/load.hpp"
#include "nvct/ctk/toml_text.hpp"
#include "nvct/diagnose/host.hpp"

namespace nvct::diagnose {

bool RootHostFacts::file_exists(const std::string& path) const { return host_.exists(path); }

std::string RootHostFacts::os_release() const {
  for (const char* path : {"/etc/os-release", "/usr/lib/os-release"}) {
    if (auto text = host_.read(path, 64u << 10)) return *text;
  }
  return "";
}

ConfigFacts read_config_facts(const Host& host) {
  ConfigFacts facts;
  const SourceFile& file = host.config_file();
  facts.path = file.path;
  RootHostFacts host_facts(host);
  facts.config = config::default_config(host_facts);

  auto text = host.read(file, 1u << 20);
  if (!text) {
    if (text.error().code() != ENOENT) {
      facts.present = true;
      facts.read_error = text.error().message();
    }
    return facts;
  }
  facts.present = true;
  facts.text = std::move(*text);

  auto tree = ctk::parse_toml(facts.text, facts.path);
  if (!tree) {
    facts.parse_error = tree.error().message();
    return facts;
  }
  if (auto document = config::Document::parse(facts.text)) {
    facts.unknown_keys = config::unknown_keys(*document);
  }
  if (auto level = (*tree)["nvidia-container-runtime"]["log-level"].value<std::string>()) {
    facts.raw_log_level = *level;
  }

  auto loaded = config::load_from_string(facts.text, host_facts);
  if (!loaded) {
    facts.value_error = loaded.error().message();
    return facts;
  }
  facts.config = std::move(*loaded);
  facts.loaded = true;
  return facts;
}

}  // namespace nvct::diagnose
