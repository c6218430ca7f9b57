// daemon.json as `nvidia-ctk runtime configure --runtime=docker` and `runtime remove` edit it.
#include "fuzz_common.hpp"
#include "nvct/ctk/docker_config.hpp"

using namespace nvct;

NVCT_FUZZ_TARGET {
  auto config = ctk::DockerConfig::parse(fuzz::as_text(data, size), "<fuzz>");
  if (!config) return 0;
  (void)config->has_runtime("nvidia");
  (void)config->runtime_path("nvidia");
  auto edited = *config;
  if (edited.add_runtime("nvidia", "/usr/bin/nvidia-container-runtime", size % 2 == 0) &&
      edited.enable_cdi()) {
    // What nvct writes, it reads back.
    std::string text = edited.serialize();
    auto again = ctk::DockerConfig::parse(text, "<fuzz output>");
    if (!again || !again->has_runtime("nvidia")) __builtin_trap();
    (void)again->remove_runtime("nvidia");
  }
  (void)config->remove_runtime("runc");
  (void)config->serialize();
  return 0;
}
