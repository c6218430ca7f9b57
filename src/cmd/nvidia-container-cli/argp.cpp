#include "argp.hpp"

#include <fmt/format.h>

namespace nvct::cli {
namespace {

const OptionSpec* find_short(const std::vector<OptionSpec>& specs, char c) {
  for (const auto& s : specs)
    if (s.short_name == c) return &s;
  return nullptr;
}

Result<const OptionSpec*> find_long(const std::vector<OptionSpec>& specs, std::string_view name) {
  const OptionSpec* prefix_match = nullptr;
  int prefix_matches = 0;
  for (const auto& s : specs) {
    if (s.long_name.empty()) continue;
    if (s.long_name == name) return &s;
    if (s.long_name.substr(0, name.size()) == name) {
      prefix_match = &s;
      ++prefix_matches;
    }
  }
  if (prefix_matches == 1) return prefix_match;
  if (prefix_matches > 1) return fail(EINVAL, fmt::format("option '--{}' is ambiguous", name));
  return fail(EINVAL, fmt::format("unrecognized option '--{}'", name));
}

}  // namespace

Result<ParsedArgs> parse_args(const std::vector<OptionSpec>& specs,
                              const std::vector<std::string>& args, bool stop_at_positional) {
  ParsedArgs out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      out.positionals.insert(out.positionals.end(), args.begin() + static_cast<long>(i) + 1,
                             args.end());
      break;
    }
    if (a.size() < 2 || a[0] != '-') {
      if (stop_at_positional) {
        out.positionals.insert(out.positionals.end(), args.begin() + static_cast<long>(i),
                               args.end());
        break;
      }
      out.positionals.push_back(a);
      continue;
    }
    if (a[1] == '-') {
      std::string_view body = std::string_view(a).substr(2);
      auto eq = body.find('=');
      std::string_view name = body.substr(0, eq);
      NVCT_ASSIGN_OR_RETURN(const OptionSpec* s, find_long(specs, name));
      ParsedOption p{s->id, std::nullopt};
      if (eq != std::string_view::npos) {
        if (s->arg == ArgKind::kNone)
          return fail(EINVAL, fmt::format("option '--{}' doesn't allow an argument", s->long_name));
        p.value = std::string(body.substr(eq + 1));
      } else if (s->arg == ArgKind::kRequired) {
        if (i + 1 >= args.size())
          return fail(EINVAL, fmt::format("option '--{}' requires an argument", s->long_name));
        p.value = args[++i];
      }
      out.options.push_back(std::move(p));
      continue;
    }
    for (std::size_t j = 1; j < a.size(); ++j) {
      const OptionSpec* s = find_short(specs, a[j]);
      if (!s) return fail(EINVAL, fmt::format("invalid option -- '{}'", a[j]));
      ParsedOption p{s->id, std::nullopt};
      if (s->arg != ArgKind::kNone) {
        if (j + 1 < a.size()) {
          p.value = a.substr(j + 1);
        } else if (s->arg == ArgKind::kRequired) {
          if (i + 1 >= args.size())
            return fail(EINVAL, fmt::format("option requires an argument -- '{}'", a[j]));
          p.value = args[++i];
        }
        out.options.push_back(std::move(p));
        break;
      }
      out.options.push_back(std::move(p));
    }
  }
  return out;
}

std::string format_help(std::string_view usage, std::string_view doc,
                        const std::vector<OptionSpec>& specs) {
  std::string s = fmt::format("Usage: {}\n{}\n\n", usage, doc);
  for (const auto& o : specs) {
    std::string left = o.short_name ? fmt::format("-{}, ", o.short_name) : std::string("    ");
    left += fmt::format("--{}", o.long_name);
    if (o.arg == ArgKind::kRequired) left += fmt::format("={}", o.arg_name);
    if (o.arg == ArgKind::kOptional) left += fmt::format("[={}]", o.arg_name);
    s += fmt::format("  {:<28} {}\n", left, o.help);
  }
  return s;
}

}  // namespace nvct::cli
