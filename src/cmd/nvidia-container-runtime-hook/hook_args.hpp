// The hook's command line (spec/hook.md §1): Go `flag` style single-dash flags followed by one
// command. The config path comes only from here, never from the environment (security.md §5.2).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nvct::hook {

enum class Command { kPrestart, kPoststart, kPoststop };

struct HookArgs {
  std::optional<std::string> config_path;  // -config <file>: the file is then required
  bool debug = false;                      // -debug: the mount library logs to stderr
  bool version = false;                    // -version
  bool help = false;                       // -h / -help: usage, exit 0 (Go's flag package)
  std::optional<Command> command;          // unset with -version or -help
};

// What the parse decided when it is not a command to run.
struct UsageError {
  std::string message;  // e.g. "flag provided but not defined: -x"; "" = just the usage
};

// Go flag rules: "-name", "--name", "-name=value", "--name value"; boolean flags take
// "-debug=false" but never a separate value; parsing stops at the first non-flag or "--".
// The first remaining argument is the command; the rest are ignored, as the reference does.
// Errors (unknown flag, missing value, no or unknown command) become a UsageError: the caller
// prints it and the usage to stderr and exits 2.
struct ParseResult {
  std::optional<HookArgs> args;
  UsageError error;
};
ParseResult parse_hook_args(const std::vector<std::string>& argv);

// The usage text (ends with a newline). `program` is basename(argv[0]).
std::string usage_text(std::string_view program);

// "NVIDIA Container Runtime Hook version <v>\ncommit: <sha>\n".
std::string version_text();

}  // namespace nvct::hook
