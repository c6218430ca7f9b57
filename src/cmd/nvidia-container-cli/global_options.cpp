#include "global_options.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <grp.h>
#include <pwd.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <memory>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/base/log_file.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/base/unique_fd.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::cli {
namespace {

enum Id { kDebug, kLoadKmods, kNoPivot, kUser, kRoot, kLdcache, kNoImex, kVersion, kHelp, kUsage };

class GlogFileSink : public log::Sink {
 public:
  explicit GlogFileSink(unique_fd fd) : fd_(std::move(fd)) {}
  void write(log::Level level, std::string_view message) override {
    struct timeval tv {};
    ::gettimeofday(&tv, nullptr);
    struct tm tm {};
    ::localtime_r(&tv.tv_sec, &tm);
    char letter = level >= log::Level::kError ? 'E' : level == log::Level::kWarn ? 'W' : 'I';
    std::string line = fmt::format(
        "{}{:02}{:02} {:02}:{:02}:{:02}.{:06} {} nvidia-container-cli] {}\n", letter, tm.tm_mon + 1,
        tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, tv.tv_usec, ::getpid(), message);
    (void)write_all(fd_.get(), line);
  }

 private:
  unique_fd fd_;
};

}  // namespace

const std::vector<OptionSpec>& global_option_specs() {
  static const std::vector<OptionSpec> kSpecs = {
      {kDebug, 'd', "debug", ArgKind::kRequired, "FILE", "Log debug information"},
      {kLoadKmods, 'k', "load-kmods", ArgKind::kNone, "", "Load kernel modules"},
      {kNoPivot, 'n', "no-pivot", ArgKind::kNone, "", "Do not use pivot_root"},
      {kUser, 'u', "user", ArgKind::kOptional, "UID[:GID]",
       "User and group to use for privilege separation"},
      {kRoot, 'r', "root", ArgKind::kRequired, "PATH", "Path to the driver root directory"},
      {kLdcache, 'l', "ldcache", ArgKind::kRequired, "FILE", "Path to the system's DSO cache"},
      {kNoImex, 0, "no-create-imex-channels", ArgKind::kNone, "",
       "Don't automatically create IMEX channel device nodes"},
      {kVersion, 'V', "version", ArgKind::kNone, "", "Print program version"},
      {kHelp, '?', "help", ArgKind::kNone, "", "Give this help list"},
      {kUsage, 0, "usage", ArgKind::kNone, "", "Give a short usage message"},
  };
  return kSpecs;
}

Result<GlobalOptions> parse_global_options(const std::vector<std::string>& args) {
  NVCT_ASSIGN_OR_RETURN(ParsedArgs parsed, parse_args(global_option_specs(), args, true));
  GlobalOptions g;
  if (const char* env = std::getenv("NVC_DEBUG_FILE")) g.debug_file = env;
  for (auto& o : parsed.options) {
    switch (o.id) {
      case kDebug:
        g.debug_file = *o.value;
        break;
      case kLoadKmods:
        g.load_kmods = true;
        break;
      case kNoPivot:
        g.no_pivot = true;
        break;
      case kUser:
        g.user_given = true;
        g.user = o.value.value_or("");
        break;
      case kRoot:
        g.root = *o.value;
        break;
      case kLdcache:
        g.ldcache = *o.value;
        break;
      case kNoImex:
        g.no_create_imex_channels = true;
        break;
      case kVersion:
        g.version = true;
        break;
      case kHelp:
        g.help = true;
        break;
      case kUsage:
        g.usage = true;
        break;
      default:
        break;
    }
  }
  g.command = std::move(parsed.positionals);
  return g;
}

Result<driver::NvmlUser> resolve_nvml_user(const GlobalOptions& g) {
  // The reference's default needs root; an unprivileged caller keeps its own ids instead of
  // failing to switch to the overflow ids.
  if (!g.user_given) {
    if (::geteuid() != 0) return driver::NvmlUser{::geteuid(), ::getegid()};
    return driver::default_nvml_user();
  }
  if (g.user.empty()) return driver::NvmlUser{::geteuid(), ::getegid()};
  auto colon = g.user.find(':');
  std::string u = g.user.substr(0, colon);
  driver::NvmlUser out;
  bool have_gid = false;
  if (auto n = driver::parse_unsigned(u)) {
    out.uid = *n;
    if (struct passwd* pw = ::getpwuid(*n)) {
      out.gid = pw->pw_gid;
      have_gid = true;
    }
  } else if (struct passwd* pw = ::getpwnam(u.c_str())) {
    out.uid = pw->pw_uid;
    out.gid = pw->pw_gid;
    have_gid = true;
  } else {
    return fail(EINVAL, fmt::format("invalid user: {}", g.user));
  }
  if (colon != std::string::npos) {
    std::string gs = g.user.substr(colon + 1);
    if (auto n = driver::parse_unsigned(gs)) {
      out.gid = *n;
    } else if (struct group* gr = ::getgrnam(gs.c_str())) {
      out.gid = gr->gr_gid;
    } else {
      return fail(EINVAL, fmt::format("invalid group: {}", gs));
    }
  } else if (!have_gid) {
    out.gid = out.uid;
  }
  return out;
}

Status install_debug_log(const GlobalOptions& g) {
  if (g.debug_file.empty()) return ok();
  // --debug=/dev/stderr (the usual way to watch it) and /dev/stdout: the already open stream,
  // duplicated; opening the /dev link would follow it to whatever fd 2 is.
  if (g.debug_file == "/dev/stderr" || g.debug_file == "/dev/stdout") {
    unique_fd fd(::fcntl(g.debug_file == "/dev/stderr" ? 2 : 1, F_DUPFD_CLOEXEC, 3));
    if (!fd) return fail_errno(fmt::format("open the --debug log {}", g.debug_file));
    log::set_sink(std::make_shared<GlogFileSink>(std::move(fd)));
    log::set_level(log::Level::kDebug);
    return ok();
  }
  // Any other path as the shim's and the hook's logs (security.md row 41): a FIFO, a device, a
  // symlink, a hard-linked or planted file is refused instead of blocking the open or
  // redirecting root's appends.
  auto fd = open_log_file_for_append(g.debug_file);
  if (!fd) return tl::unexpected(std::move(fd.error()).context("open the --debug log"));
  log::set_sink(std::make_shared<GlogFileSink>(std::move(*fd)));
  log::set_level(log::Level::kDebug);
  return ok();
}

}  // namespace nvct::cli
