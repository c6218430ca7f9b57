#include "stderr_sink.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

namespace nvct::cmd::cdi_hook {
namespace {

class StderrSink final : public log::Sink {
 public:
  void write(log::Level level, std::string_view message) override {
    std::string escaped;
    for (char c : message) {
      if (c == '"' || c == '\\') escaped += '\\';
      if (c == '\n') {
        escaped += "\\n";
        continue;
      }
      escaped += c;
    }
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    ::localtime_r(&now, &tm);
    std::string line = fmt::format("time=\"{:%Y-%m-%dT%H:%M:%S%z}\" level={} msg=\"{}\"\n", tm,
                                   log::level_name(level), escaped);
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
  }
};

}  // namespace

std::shared_ptr<log::Sink> make_stderr_sink() { return std::make_shared<StderrSink>(); }

}  // namespace nvct::cmd::cdi_hook
