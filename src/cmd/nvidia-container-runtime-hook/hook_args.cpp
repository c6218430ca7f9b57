#include "hook_args.hpp"

#include <fmt/format.h>

#include "nvct/base/version_info.hpp"
#include "nvct/request/requirements.hpp"

namespace nvct::hook {
namespace {

std::optional<Command> parse_command(std::string_view name) {
  if (name == "prestart") return Command::kPrestart;
  if (name == "poststart") return Command::kPoststart;
  if (name == "poststop") return Command::kPoststop;
  return std::nullopt;
}

ParseResult usage_error(std::string message) {
  return ParseResult{std::nullopt, {std::move(message)}};
}

// A boolean flag: "-debug" sets it, "-debug=<go bool>" sets the value.
bool set_bool(bool& out, const std::optional<std::string>& value, std::string_view name,
              std::string& error) {
  if (!value) {
    out = true;
    return true;
  }
  auto parsed = request::parse_go_bool(*value);
  if (!parsed) {
    error = fmt::format("invalid boolean value \"{}\" for -{}: parse error", *value, name);
    return false;
  }
  out = *parsed;
  return true;
}

}  // namespace

ParseResult parse_hook_args(const std::vector<std::string>& argv) {
  HookArgs args;
  std::size_t i = 0;
  for (; i < argv.size(); ++i) {
    std::string_view arg = argv[i];
    if (arg.size() < 2 || arg[0] != '-') break;
    if (arg == "--") {
      ++i;
      break;
    }
    std::string_view body = arg.substr(arg[1] == '-' ? 2 : 1);
    if (body.empty() || body[0] == '-' || body[0] == '=') {
      return usage_error(fmt::format("bad flag syntax: {}", arg));
    }
    std::string_view name = body;
    std::optional<std::string> value;
    if (auto eq = body.find('='); eq != std::string_view::npos) {
      name = body.substr(0, eq);
      value = std::string(body.substr(eq + 1));
    }
    std::string error;
    if (name == "config") {
      if (!value) {
        if (i + 1 >= argv.size()) return usage_error("flag needs an argument: -config");
        value = argv[++i];
      }
      args.config_path = *value;
    } else if (name == "debug") {
      if (!set_bool(args.debug, value, name, error)) return usage_error(error);
    } else if (name == "version") {
      if (!set_bool(args.version, value, name, error)) return usage_error(error);
    } else if (name == "h" || name == "help") {
      args.help = true;
      return ParseResult{args, {}};
    } else {
      return usage_error(fmt::format("flag provided but not defined: -{}", name));
    }
  }
  if (args.version) return ParseResult{args, {}};
  if (i >= argv.size()) return usage_error("");
  args.command = parse_command(argv[i]);
  if (!args.command) return usage_error(fmt::format("unknown command \"{}\"", argv[i]));
  return ParseResult{args, {}};
}

std::string usage_text(std::string_view program) {
  return fmt::format(
      "Usage of {}:\n"
      "  -config string\n"
      "    \tconfiguration file (the runtime shim passes it; no environment override)\n"
      "  -debug\n"
      "    \tenable debug output of the mount library on stderr\n"
      "  -version\n"
      "    \tshow the version and exit\n"
      "\n"
      "Commands:\n"
      "  prestart\n"
      "    \trun the prestart hook (OCI state on stdin)\n"
      "  poststart\n"
      "    \tno-op\n"
      "  poststop\n"
      "    \tno-op\n",
      program);
}

std::string version_text() {
  return fmt::format("NVIDIA Container Runtime Hook version {}\ncommit: {}\n", kVersion,
                     kGitCommit);
}

}  // namespace nvct::hook
