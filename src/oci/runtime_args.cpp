#include "nvct/oci/runtime_args.hpp"

#include <optional>
#include <string_view>

namespace nvct::oci {

namespace {

// A command-line token that looks like a flag: "-x", "--name", "-name=value", "--name=value".
// Go's flag packages accept one or two dashes; like the reference bundle parser, any number of
// leading dashes is trimmed. The value is split off at the FIRST '=' only.
struct Flag {
  std::string_view name;
  std::optional<std::string_view> value;
};

std::optional<Flag> as_flag(std::string_view arg) {
  if (arg.size() < 2 || arg.front() != '-') return std::nullopt;  // "-" alone is a value
  auto first = arg.find_first_not_of('-');
  if (first == std::string_view::npos) return std::nullopt;  // "--" and "---"
  std::string_view body = arg.substr(first);
  Flag flag;
  auto eq = body.find('=');
  if (eq == std::string_view::npos) {
    flag.name = body;
  } else {
    flag.name = body.substr(0, eq);
    flag.value = body.substr(eq + 1);
  }
  return flag;
}

bool is_bundle_flag(std::string_view name) { return name == "b" || name == "bundle"; }

// runc's global flags that take a value (runc 1.1.5: --root, --log, --log-format, --criu,
// --rootless). Their value is skipped when looking for the subcommand, so that
// `runc --log create start x` is a start.
bool is_valued_global(std::string_view name) {
  return name == "root" || name == "log" || name == "log-format" || name == "criu" ||
         name == "rootless";
}

// Go's bool flags: "--debug", "--debug=true", "--debug=false", "--debug=1".
bool bool_flag_value(const Flag& flag) {
  if (!flag.value) return true;
  std::string_view v = *flag.value;
  return v == "true" || v == "1" || v == "t" || v == "T" || v == "TRUE" || v == "True";
}

}  // namespace

// Why the parse is a single left-to-right pass with two phases:
//
// Global phase (before the subcommand): runc global flags are recognised, and the values of
// the valued ones are skipped, so a log file or root named "create" is not a subcommand. The
// first non-flag token is the subcommand; "--" ends the flags and the next token is it.
//
// Subcommand phase: only the bundle flag is interpreted (runc's create/run take --bundle after
// the subcommand); everything else is runc's.
//
// The bundle flag is accepted in both phases: the reference scans the whole argv for it
// (table TestGetBundleDir: `[-b create create]`, `[-b create]`), and a bundle flag always
// consumes the next token, so `-b create create` has bundle "create" AND subcommand "create",
// and `--bundle create` alone has no subcommand. The reference's create detection (any token
// equal to "create" not right after a bare -b/--bundle) agrees with this rule on every row of
// its tables (TestHasCreateSubcommand); they differ only where the reference is knowingly
// wrong: `delete create` (a container named create) and `--log create start x` are not create
// here (security.md #35). `run` also modifies the spec here, the reference ignores it.
//
// --version counts only in the global phase: `exec ctr cmd --version` is the container's
// argv, and printing our version block there would corrupt the exec's output.
Result<RuntimeArgs> parse_runtime_args(const std::vector<std::string>& args) {
  RuntimeArgs out;
  bool have_subcommand = false;
  bool after_terminator = false;  // "--" seen: the rest are positional (urfave/cli semantics)
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    auto flag = after_terminator ? std::nullopt : as_flag(arg);

    if (!flag) {
      if (!after_terminator && arg.find_first_not_of('-') == std::string_view::npos &&
          arg.size() >= 2) {
        after_terminator = true;  // "--"
        continue;
      }
      if (!have_subcommand) {
        out.subcommand = std::string(arg);
        have_subcommand = true;
        // Global flags end at the subcommand; a later "--" belongs to the subcommand.
        after_terminator = false;
      }
      continue;
    }

    if (is_bundle_flag(flag->name)) {
      if (flag->value) {
        out.bundle = std::string(*flag->value);
      } else if (i + 1 < args.size()) {
        out.bundle = args[++i];
      } else {
        return fail(EINVAL, "bundle option requires an argument");
      }
      continue;
    }
    if (have_subcommand) {
      if (flag->name == "h" || flag->name == "help") out.help = bool_flag_value(*flag);
      continue;
    }

    if (is_valued_global(flag->name)) {
      std::string value;
      if (flag->value) {
        value = std::string(*flag->value);
      } else if (i + 1 < args.size()) {
        value = args[++i];
      }  // a trailing valued flag without value is runc's error to report
      if (flag->name == "log") out.log_file = value;
      if (flag->name == "log-format") out.log_format = value;
    } else if (flag->name == "debug") {
      out.debug = bool_flag_value(*flag);
    } else if (flag->name == "version") {
      out.version = bool_flag_value(*flag);
    }
    // Other flags (--systemd-cgroup, --help, unknown ones) are booleans to us: an unknown
    // valued flag makes its value look like the subcommand, which fails safe (no edit).
  }
  // `create -h` prints runc's usage: nothing to edit, and usually no config.json to read.
  out.modifies_spec = (out.subcommand == "create" || out.subcommand == "run") && !out.help;
  return out;
}

std::string spec_path(const std::string& bundle) {
  if (bundle.empty()) return "config.json";
  if (bundle.back() == '/') return bundle + "config.json";
  return bundle + "/config.json";
}

}  // namespace nvct::oci
