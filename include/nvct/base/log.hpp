// Logging through an injected sink. Libraries call nvct::log::info(...) etc.; each main()
// installs a sink (usually backed by spdlog) with set_sink(). Without a sink nothing is logged.
#pragma once

#include <memory>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace nvct::log {

enum class Level { kTrace = 0, kDebug, kInfo, kWarn, kError, kOff };

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void write(Level level, std::string_view message) = 0;
};

void set_sink(std::shared_ptr<Sink> sink);
void set_level(Level level);
Level level();
bool enabled(Level level);
void write(Level level, std::string_view message);

// Parses trace|debug|info|warn|warning|error|off (case-insensitive); nullopt-like false return.
bool parse_level(std::string_view text, Level& out);
std::string_view level_name(Level level);

template <class... Args>
void emit(Level lvl, fmt::format_string<Args...> f, Args&&... args) {
  if (enabled(lvl)) write(lvl, fmt::format(f, std::forward<Args>(args)...));
}
template <class... Args>
void trace(fmt::format_string<Args...> f, Args&&... a) { emit(Level::kTrace, f, std::forward<Args>(a)...); }
template <class... Args>
void debug(fmt::format_string<Args...> f, Args&&... a) { emit(Level::kDebug, f, std::forward<Args>(a)...); }
template <class... Args>
void info(fmt::format_string<Args...> f, Args&&... a) { emit(Level::kInfo, f, std::forward<Args>(a)...); }
template <class... Args>
void warn(fmt::format_string<Args...> f, Args&&... a) { emit(Level::kWarn, f, std::forward<Args>(a)...); }
template <class... Args>
void error(fmt::format_string<Args...> f, Args&&... a) { emit(Level::kError, f, std::forward<Args>(a)...); }

}  // namespace nvct::log
