#include "nvct/runtime/log_file_sink.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <ctime>
#include <nlohmann/json.hpp>

#include "nvct/base/file.hpp"
#include "nvct/base/log_file.hpp"

namespace nvct::runtime {

LogFormat parse_log_format(std::string_view format) {
  return format == "json" ? LogFormat::kJson : LogFormat::kText;
}

namespace {

std::string rfc3339(std::chrono::system_clock::time_point when) {
  auto secs = std::chrono::time_point_cast<std::chrono::seconds>(when);
  auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(when - secs).count();
  std::time_t t = std::chrono::system_clock::to_time_t(secs);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, nanos);
}

// JSON string literal of text, invalid UTF-8 replaced by U+FFFD (dump never throws then).
std::string json_string(std::string_view text) {
  return nlohmann::json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string format_log_line(log::Level level, std::string_view message, LogFormat format,
                            std::chrono::system_clock::time_point when) {
  auto level_text = log::level_name(level);
  if (format == LogFormat::kJson) {
    return fmt::format("{{\"level\":{},\"msg\":{},\"time\":{}}}\n", json_string(level_text),
                       json_string(message), json_string(rfc3339(when)));
  }
  return fmt::format("time={} level={} msg={}\n", json_string(rfc3339(when)), level_text,
                     json_string(message));
}

Result<unique_fd> open_log_file(const std::string& path) {
  if (path.empty() || path == "/dev/null") return unique_fd();
  // Never a FIFO, a device, a symlink, a hard link or a planted file (security.md row 41).
  return open_log_file_for_append(path);
}

void LogFileSink::add(unique_fd fd, LogFormat format) {
  if (!fd) return;
  std::lock_guard lock(mutex_);
  targets_.push_back(Target{std::move(fd), format});
}

void LogFileSink::write(log::Level level, std::string_view message) {
  auto now = std::chrono::system_clock::now();
  std::lock_guard lock(mutex_);
  if (deferring_) {
    deferred_.push_back(Deferred{level, std::string(message), now});
    return;
  }
  write_locked(level, message, now);
}

void LogFileSink::defer() {
  std::lock_guard lock(mutex_);
  deferring_ = true;
}

void LogFileSink::flush_deferred(log::Level min_level) {
  std::lock_guard lock(mutex_);
  deferring_ = false;
  for (const auto& d : deferred_) {
    if (d.level >= min_level) write_locked(d.level, d.message, d.when);
  }
  deferred_.clear();
}

void LogFileSink::write_locked(log::Level level, std::string_view message,
                               std::chrono::system_clock::time_point when) {
  for (auto& target : targets_) {
    auto line = format_log_line(level, message, target.format, when);
    // O_APPEND + a single write keeps each line whole in a file shared by parallel shims; a
    // failing log must never fail container creation, so the result is ignored.
    (void)write_all(target.fd.get(), line);
  }
}

}  // namespace nvct::runtime
