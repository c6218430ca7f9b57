// BufferSink: messages kept until the program's real log exists.
#include "nvct/base/log_buffer.hpp"

namespace nvct::log {

void BufferSink::write(Level level, std::string_view message) {
  std::lock_guard lock(mutex_);
  messages_.emplace_back(level, std::string(message));
}

void BufferSink::replay() {
  std::vector<std::pair<Level, std::string>> kept;
  {
    std::lock_guard lock(mutex_);
    kept.swap(messages_);
  }
  for (const auto& [level, message] : kept) {
    if (enabled(level)) log::write(level, message);
  }
}

std::vector<std::pair<Level, std::string>> BufferSink::messages() const {
  std::lock_guard lock(mutex_);
  return messages_;
}

}  // namespace nvct::log
