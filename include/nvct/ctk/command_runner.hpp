// Running a helper program and capturing its stdout: `containerd config dump`, `crio status
// config` for --config-source=command and `containerd --version` for the version-3 check. An
// interface so that tests replace the programs.
#pragma once

#include <string>
#include <vector>

#include "nvct/base/error.hpp"

namespace nvct::ctk {

struct CommandOutput {
  int exit_status = 0;  // exit code, or 128+signal
  std::string out;      // stdout
};

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // argv[0] is looked up in PATH when it has no slash. A program that cannot be started is an
  // error with ENOENT/EACCES; a non-zero exit is not an error here.
  virtual Result<CommandOutput> run(const std::vector<std::string>& argv) = 0;
};

// fork/exec with stdout on a pipe, stderr to /dev/null, stdin from /dev/null.
class ProcessRunner : public CommandRunner {
 public:
  Result<CommandOutput> run(const std::vector<std::string>& argv) override;
};

}  // namespace nvct::ctk
