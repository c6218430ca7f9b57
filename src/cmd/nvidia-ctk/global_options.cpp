// nvidia-ctk global options and logging (spec/ctk.md §1).
#include "global_options.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <memory>

#include "nvct/base/log.hpp"
#include "nvct/base/version_info.hpp"
#include "nvct/config/load.hpp"

namespace nvct::cmd::nvidia_ctk {
namespace {

// Writes logrus' text format (`time="..." level=info msg="..."`), which users grep for.
class StderrSink final : public log::Sink {
 public:
  StderrSink()
      : logger_(std::make_shared<spdlog::logger>(
            "nvidia-ctk", std::make_shared<spdlog::sinks::stderr_sink_mt>())) {
    logger_->set_pattern(R"(time="%Y-%m-%dT%H:%M:%S%z" level=%l msg="%v")");
    logger_->set_level(spdlog::level::trace);  // nvct::log filters
    logger_->flush_on(spdlog::level::trace);
  }

  void write(log::Level level, std::string_view message) override {
    logger_->log(to_spdlog(level), "{}", escape(message));
  }

 private:
  static spdlog::level::level_enum to_spdlog(log::Level level) {
    switch (level) {
      case log::Level::kTrace:
        return spdlog::level::trace;
      case log::Level::kDebug:
        return spdlog::level::debug;
      case log::Level::kInfo:
        return spdlog::level::info;
      case log::Level::kWarn:
        return spdlog::level::warn;
      case log::Level::kError:
        return spdlog::level::err;
      case log::Level::kOff:
        return spdlog::level::off;
    }
    return spdlog::level::info;
  }

  static std::string escape(std::string_view message) {
    std::string out;
    for (char c : message) {
      if (c == '"' || c == '\\') out += '\\';
      if (c == '\n') {
        out += "\\n";
        continue;
      }
      out += c;
    }
    return out;
  }

  std::shared_ptr<spdlog::logger> logger_;
};

}  // namespace

std::string GlobalOptions::effective_config_path() const {
  return config_path.empty() ? config::default_path() : config_path;
}

void GlobalOptions::report(const Status& status) {
  if (status) return;
  log::error("{}", status.error().message());
  exit_code = 1;
}

std::string version_text() {
  return fmt::format("NVIDIA Container Toolkit CLI version {}\ncommit: {}", kVersion, kGitCommit);
}

void configure_logging(const GlobalOptions& options) {
  log::set_sink(std::make_shared<StderrSink>());
  log::Level level = log::Level::kInfo;
  if (options.debug) level = log::Level::kDebug;
  if (options.quiet) level = log::Level::kError;
  log::set_level(level);
}

void add_global_options(CLI::App& app, GlobalOptions& options) {
  app.set_version_flag(
      "-v,--version", [] { return version_text(); }, "print the version");
  app.add_flag("-d,--debug", options.debug, "Enable debug-level logging")
      ->envname("NVIDIA_CTK_DEBUG");
  app.add_flag("--quiet", options.quiet, "Suppress all output except for errors; overrides --debug")
      ->envname("NVIDIA_CTK_QUIET");
  app.add_option("--config", options.config_path,
                 "Specify the config file to use (default: the config.toml search path)")
      ->envname("NVIDIA_CTK_CONFIG");
  configure_logging(options);  // so that errors before parsing completes are still reported
  app.parse_complete_callback([&options] { configure_logging(options); });
}

}  // namespace nvct::cmd::nvidia_ctk
