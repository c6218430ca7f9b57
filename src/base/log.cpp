#include "nvct/base/log.hpp"

#include <atomic>

#include "nvct/base/strings.hpp"

namespace nvct::log {

namespace {
std::shared_ptr<Sink>& sink_slot() {
  static std::shared_ptr<Sink> sink;
  return sink;
}
std::atomic<Level> g_level{Level::kInfo};
}  // namespace

void set_sink(std::shared_ptr<Sink> sink) { sink_slot() = std::move(sink); }
void set_level(Level level) { g_level = level; }
Level level() { return g_level; }
bool enabled(Level lvl) { return sink_slot() && lvl >= g_level.load() && lvl != Level::kOff; }

void write(Level lvl, std::string_view message) {
  if (auto& s = sink_slot()) s->write(lvl, message);
}

bool parse_level(std::string_view text, Level& out) {
  auto t = strings::to_lower(strings::trim(text));
  if (t == "trace") out = Level::kTrace;
  else if (t == "debug") out = Level::kDebug;
  else if (t == "info") out = Level::kInfo;
  else if (t == "warn" || t == "warning") out = Level::kWarn;
  else if (t == "error" || t == "fatal" || t == "panic") out = Level::kError;
  else if (t == "off") out = Level::kOff;
  else return false;
  return true;
}

std::string_view level_name(Level lvl) {
  switch (lvl) {
    case Level::kTrace: return "trace";
    case Level::kDebug: return "debug";
    case Level::kInfo: return "info";
    case Level::kWarn: return "warning";
    case Level::kError: return "error";
    case Level::kOff: return "off";
  }
  return "info";
}

}  // namespace nvct::log
