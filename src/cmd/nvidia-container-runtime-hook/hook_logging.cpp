#include "hook_logging.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <time.h>

#include <memory>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/base/log_file.hpp"
#include "nvct/base/unique_fd.hpp"

namespace nvct::hook {
namespace {

// On stderr (-debug) runc shows the lines as they are; a log file is read later, next to the
// lines of other containers and other hooks, so each line there starts with the UTC time and pid.
class FdSink : public log::Sink {
 public:
  explicit FdSink(int fd, unique_fd owned = {}) : fd_(fd), owned_(std::move(owned)) {}
  void write(log::Level level, std::string_view message) override {
    std::string prefix = owned_ ? log_line_prefix() : "nvidia-container-runtime-hook";
    // One write() per line: other hooks may append to the same file at the same time.
    (void)write_all(fd_, fmt::format("{}: {}: {}\n", prefix, log::level_name(level), message));
  }

 private:
  int fd_;
  unique_fd owned_;
};

}  // namespace

std::string log_line_prefix() {
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  struct tm utc {};
  ::gmtime_r(&now.tv_sec, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z nvidia-container-runtime-hook[{}]",
                     utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min,
                     utc.tm_sec, now.tv_nsec / 1000, ::getpid());
}

void print_stderr_line(std::string_view line) {
  std::string text(line);
  text += '\n';
  (void)write_all(STDERR_FILENO, text);
}

Status install_hook_logging(bool debug_flag, const std::string& debug_file) {
  if (debug_flag) {
    log::set_sink(std::make_shared<FdSink>(STDERR_FILENO));
    log::set_level(log::Level::kDebug);
    return ok();
  }
  log::set_level(log::Level::kOff);
  if (debug_file.empty()) return ok();
  // Never a FIFO, a device, a symlink, a hard link or a planted file (security.md row 41).
  auto opened = open_log_file_for_append(debug_file);
  if (!opened) return tl::unexpected(std::move(opened).error());
  unique_fd fd = std::move(*opened);
  int raw = fd.get();
  log::set_sink(std::make_shared<FdSink>(raw, std::move(fd)));
  log::set_level(log::Level::kDebug);
  return ok();
}

}  // namespace nvct::hook
