// Builds small OCI specs for the request tests.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace nvct::request::testing {

struct SpecBuilder {
  std::vector<std::string> env;
  std::vector<std::pair<std::string, std::string>> mounts;  // source, destination
  std::vector<std::pair<std::string, std::string>> annotations;
  bool privileged = false;

  nlohmann::ordered_json build() const {
    nlohmann::ordered_json spec = {{"ociVersion", "1.0.2"}};
    spec["process"]["env"] = env;
    spec["process"]["capabilities"]["bounding"] =
        privileged ? std::vector<std::string>{"CAP_CHOWN", "CAP_SYS_ADMIN"}
                   : std::vector<std::string>{"CAP_CHOWN"};
    spec["mounts"] = nlohmann::ordered_json::array();
    for (const auto& [source, destination] : mounts) {
      spec["mounts"].push_back(
          {{"destination", destination}, {"type", "bind"}, {"source", source}});
    }
    for (const auto& [key, value] : annotations) spec["annotations"][key] = value;
    return spec;
  }
};

inline std::pair<std::string, std::string> device_mount(const std::string& id) {
  return {"/dev/null", "/var/run/nvidia-container-devices/" + id};
}

}  // namespace nvct::request::testing
