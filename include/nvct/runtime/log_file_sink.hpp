// The shim's log destinations (spec/runtime.md §10): its own debug file (config
// nvidia-container-runtime.debug) and runc's --log file, whose lines containerd decodes as JSON
// to report the last error. Never stdout: callers parse `state`/`features` output.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/base/log.hpp"
#include "nvct/base/unique_fd.hpp"

namespace nvct::runtime {

enum class LogFormat { kText, kJson };

// "json" -> kJson, anything else (runc's default "text") -> kText.
LogFormat parse_log_format(std::string_view format);

// One line, newline-terminated. JSON: {"level":"error","msg":"...","time":"<RFC3339>"} with
// invalid UTF-8 replaced, so every line stays decodable. Text: logrus-like
// time="..." level=info msg="...".
std::string format_log_line(log::Level level, std::string_view message, LogFormat format,
                            std::chrono::system_clock::time_point when);

// "" and /dev/null mean no file (an invalid fd, no error). Otherwise
// open_log_file_for_append (base/log_file.hpp): a symlink, FIFO, device, hard-linked file or a
// file planted by another user in a world-writable log dir is refused, never followed nor waited
// on.
Result<unique_fd> open_log_file(const std::string& path);

// Writes each message to every target with one write() per line, so concurrent shims appending
// to the same file never interleave within a line.
class LogFileSink : public log::Sink {
 public:
  void add(unique_fd fd, LogFormat format);
  bool empty() const { return targets_.empty(); }
  void write(log::Level level, std::string_view message) override;

  // While deferring, messages are kept in memory (with their time) instead of written: the
  // config's own warnings are logged before the config has named the debug file.
  void defer();
  // Writes the kept messages at min_level or above to every target added by now, then writes
  // directly again. The shim defers at trace level and flushes at the level the config sets, so
  // the config loader's debug line (which file it read) obeys the config's own log-level.
  void flush_deferred(log::Level min_level = log::Level::kTrace);

 private:
  struct Target {
    unique_fd fd;
    LogFormat format;
  };
  struct Deferred {
    log::Level level;
    std::string message;
    std::chrono::system_clock::time_point when;
  };
  void write_locked(log::Level level, std::string_view message,
                    std::chrono::system_clock::time_point when);

  std::mutex mutex_;
  std::vector<Target> targets_;
  bool deferring_ = false;
  std::vector<Deferred> deferred_;
};

}  // namespace nvct::runtime
