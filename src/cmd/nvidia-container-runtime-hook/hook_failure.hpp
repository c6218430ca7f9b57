// How a failing prestart reports itself (issue 16). runc wraps the hook's stderr into its own
// error ("error running prestart hook #0: ... stderr: <line>") and the engine shows that to the
// user, so the failure is one line there; the same line goes to the hook's log file
// (nvidia-container-cli.debug) at error level with the container id and bundle, and the log sink
// adds the time, so an administrator can find a given container's failure after the engine's
// message is gone.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace nvct::hook {

// `message` on one line: line breaks and other control characters become spaces.
std::string single_line(std::string_view message);

// The log text of a failure: "prestart of container <id> (bundle <bundle>) failed: <line>";
// "prestart failed: <line>" while the OCI state (and so the id) is not known.
std::string failure_log_text(std::string_view id, std::string_view bundle, std::string_view line);

class FailureReporter {
 public:
  explicit FailureReporter(std::function<void(std::string_view line)> print)
      : print_(std::move(print)) {}
  // The container, once the OCI state is read.
  void set_container(std::string id, std::string bundle) {
    id_ = std::move(id);
    bundle_ = std::move(bundle);
  }
  // Prints `message` as one line to stderr, logs it with the container, and returns 1 (the
  // hook's exit status).
  int fail(std::string_view message) const;

 private:
  std::function<void(std::string_view)> print_;
  std::string id_, bundle_;
};

}  // namespace nvct::hook
