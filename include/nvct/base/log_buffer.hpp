// A sink that keeps messages until the real sink exists. A program whose log destination comes
// from its config (the hook: nvidia-container-cli.debug) installs it before loading the config,
// so that the loader's warnings (an unknown key) and its debug line (which file) are not lost:
//
//   auto early = std::make_shared<log::BufferSink>();
//   log::set_sink(early);
//   log::set_level(log::Level::kTrace);
//   auto cfg = load_config();
//   install_the_real_sink_and_level(*cfg);
//   early->replay();
#pragma once

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "nvct/base/log.hpp"

namespace nvct::log {

class BufferSink final : public Sink {
 public:
  void write(Level level, std::string_view message) override;

  // Logs every kept message again through the sink and level installed now (messages below that
  // level are dropped), in their order, and forgets them.
  void replay();

  // The kept messages (for tests).
  std::vector<std::pair<Level, std::string>> messages() const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<Level, std::string>> messages_;
};

}  // namespace nvct::log
