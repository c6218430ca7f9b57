// `--flag=` with nothing after `=`: NVIDIA's CLI (urfave/cli) takes it as an empty value, which
// is how its docs switch the drop-in off (`--drop-in-config=""` reaches the program as
// `--drop-in-config=`). CLI11 refuses it ("1 required TEXT missing"), so such arguments are split
// into the flag and an empty argument before parsing; `--flag ""` already works.
#pragma once

#include <string>
#include <vector>

namespace nvct::cmd::nvidia_ctk {

// argv[0..argc) with every "--name=" (a long option ending in '=') turned into "--name", "".
// Arguments after a lone "--" are left alone.
std::vector<std::string> split_empty_values(int argc, const char* const* argv);

}  // namespace nvct::cmd::nvidia_ctk
