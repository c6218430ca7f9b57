// The runtime shim's argv (spec/runtime.md §3, §4): which bundle, which subcommand, and the
// runc global flags the shim itself reacts to. The argv itself is passed to runc unchanged.
#pragma once

#include <string>
#include <vector>

#include "nvct/base/error.hpp"

namespace nvct::oci {

struct RuntimeArgs {
  // The --bundle/-b value; "" means the current working directory.
  std::string bundle;
  // The runc subcommand ("create", "run", "state", ...), or "" when there is none.
  std::string subcommand;
  // True for "create" and "run" without -h/--help: the only commands whose config.json the shim
  // edits.
  bool modifies_spec = false;
  // -h/--help after the subcommand: runc prints the subcommand's usage.
  bool help = false;
  // A global flag named "version" (--version, -version) was given.
  bool version = false;
  // The runc global --debug flag (forces the debug log level).
  bool debug = false;
  // The runc global --log value ("" when absent).
  std::string log_file;
  // The runc global --log-format value ("" when absent; "json" means JSON log lines).
  std::string log_format;
};

// Parses argv[1:]. Fails only with "bundle option requires an argument" when --bundle/-b is the
// last argument. Unknown flags and subcommands are not errors: they are runc's to judge.
Result<RuntimeArgs> parse_runtime_args(const std::vector<std::string>& args);

// The config.json path of a bundle: "" -> "config.json", "/a/" -> "/a/config.json",
// "not/absolute" -> "not/absolute/config.json".
std::string spec_path(const std::string& bundle);

}  // namespace nvct::oci
