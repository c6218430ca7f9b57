// The toolkit config doctor checks, read once: its text, whether TOML accepts it, and the config
// it yields (the built-in defaults when it is absent or invalid, so later checks still run).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nvct/config/config.hpp"
#include "nvct/config/host_facts.hpp"
#include "nvct/config/unknown_keys.hpp"

namespace nvct::diagnose {

class Host;

struct ConfigFacts {
  std::string path;  // as printed
  bool present = false;
  std::string text;
  std::string read_error;     // present but unreadable
  std::string parse_error;    // "line L, column C: message" of the TOML parser
  std::string value_error;    // the loader's message for a wrong type or value
  std::string raw_log_level;  // nvidia-container-runtime.log-level as written (the loader
                              // replaces an invalid one with "info")
  std::vector<config::UnknownKey> unknown_keys;  // keys not in the schema, in file order
  config::Config config;                         // effective: defaults unless the file loaded
  bool loaded = false;                           // config comes from the file
};

// Host facts of config.md §2/§5 (ldconfig.real, os-release) answered below the root.
class RootHostFacts : public config::HostFacts {
 public:
  explicit RootHostFacts(const Host& host) : host_(host) {}
  bool file_exists(const std::string& path) const override;
  std::string os_release() const override;

 private:
  const Host& host_;
};

ConfigFacts read_config_facts(const Host& host);

}  // namespace nvct::diagnose
