// The log sink of nvidia-cdi-hook: logrus text lines on stderr (runc embeds a failing hook's
// stderr in its error message, so one line per event).
#pragma once

#include <memory>

#include "nvct/base/log.hpp"

namespace nvct::cmd::cdi_hook {

std::shared_ptr<log::Sink> make_stderr_sink();

}  // namespace nvct::cmd::cdi_hook
