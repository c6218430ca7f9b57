// `nvidia-ctk cuda explain` (spec/compat.md §2): will the GPU code of an image, tree or file run
// on this driver and these GPUs, and why. Exit codes (§6.5): 0 runs, 1 does not run (no-code,
// driver-too-old; with --strict also jit and the compat paths), 2 could not decide.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

#include "global_options.hpp"

namespace nvct::cmd::nvidia_ctk {

struct CudaExplainFlags {
  std::string path;
  bool rootfs = false;
  std::string driver_root;
  std::string driver_version, cuda_driver_version;
  std::vector<std::string> gpu_arch;
  std::string brand, model;
  std::vector<std::string> env;
  std::string image_config;
  std::string format = "text";
  bool list = false, all_files = false, strict = false;
  std::uint64_t max_file_size = std::uint64_t{2} << 30;
};

int run_cuda_explain(const CudaExplainFlags& flags, std::ostream& out, std::ostream& err);

void add_cuda_command(CLI::App& parent, GlobalOptions& globals);

// True when argv names the cuda command, so that main() exits 2 on its flag errors (§6.5).
bool is_cuda_invocation(int argc, char** argv);

}  // namespace nvct::cmd::nvidia_ctk
