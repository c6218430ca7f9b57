// A small argp-style option parser: the reference CLI uses glibc argp, so option spelling must
// match it exactly: `-x`, `-xVALUE`, `-x VALUE`, grouped short flags (`-cu`), `--name`,
// `--name=VALUE`, `--name VALUE` (required arguments only), optional arguments only attached
// (`--user=1000`, `-u1000`), unique long-option prefixes, and `--` ends the options.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"

namespace nvct::cli {

enum class ArgKind { kNone, kRequired, kOptional };

struct OptionSpec {
  int id;
  char short_name;  // 0 = long only
  std::string_view long_name;
  ArgKind arg;
  std::string_view arg_name;
  std::string_view help;
};

struct ParsedOption {
  int id;
  std::optional<std::string> value;
};

struct ParsedArgs {
  std::vector<ParsedOption> options;
  std::vector<std::string> positionals;
};

// Parses args. With stop_at_positional, parsing stops at the first positional argument (the
// command) and it and everything after it land in positionals. Errors are argp's messages
// ("unrecognized option '--foo'", "option '--root' requires an argument").
Result<ParsedArgs> parse_args(const std::vector<OptionSpec>& specs,
                              const std::vector<std::string>& args, bool stop_at_positional);

// The --help text of a option table.
std::string format_help(std::string_view usage, std::string_view doc,
                        const std::vector<OptionSpec>& specs);

}  // namespace nvct::cli
