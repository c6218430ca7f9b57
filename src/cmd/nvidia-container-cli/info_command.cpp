// `nvidia-container-cli info [--csv]` (cli.md §5).
#include <fmt/format.h>

#include <cstdio>

#include "argp.hpp"
#include "commands.hpp"
#include "driver_session.hpp"
#include "nvct/driver/listing.hpp"

namespace nvct::cli {
namespace {

enum Id { kCsv, kHelp };
const std::vector<OptionSpec> kSpecs = {
    {kCsv, 0, "csv", ArgKind::kNone, "", "Output in CSV format"},
    {kHelp, '?', "help", ArgKind::kNone, "", "Give this help list"},
};

}  // namespace

Status run_info(const GlobalOptions& g, const std::vector<std::string>& args) {
  NVCT_ASSIGN_OR_RETURN(ParsedArgs parsed, parse_args(kSpecs, args, false));
  if (!parsed.positionals.empty())
    return fail(EINVAL, fmt::format("too many arguments: {}", parsed.positionals.front()));
  bool csv = false;
  for (const auto& o : parsed.options) {
    if (o.id == kHelp) {
      std::fputs(format_help("nvidia-container-cli info [OPTION...]",
                             "Report information about the driver and devices", kSpecs)
                     .c_str(),
                 stdout);
      return ok();
    }
    if (o.id == kCsv) csv = true;
  }
  NVCT_ASSIGN_OR_RETURN(DriverSession s, open_driver_session(g, discover_options(g)));
  std::string out = driver::format_info(s.info, csv);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return ok();
}

}  // namespace nvct::cli
