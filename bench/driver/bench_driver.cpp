// Driver discovery benchmark. Prints a table of median times and fails only on gross misses
// (10x the target), so that CI noise never fails it:
//   ldcache parse     host /etc/ld.so.cache, from memory        target 100 us
//   discovery         initialize + discover on the 8-GPU root   target 2 ms (NVML child included)
//   info              fork+exec `nvidia-container-cli info`      target 10 ms
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "nvct/base/file.hpp"
#include "nvct/driver/driver_info.hpp"
#include "nvct/driver/ldcache.hpp"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

double median_us(int runs, const std::function<bool()>& fn) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    auto start = Clock::now();
    if (!fn()) return -1;
    t.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct Row {
  std::string name;
  double us;
  double target_us;
};

}  // namespace

int main(int argc, char** argv) {
  std::string root, cli;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--root") == 0) root = argv[i + 1];
    if (std::strcmp(argv[i], "--cli") == 0) cli = argv[i + 1];
  }
  if (root.empty() || cli.empty()) {
    std::fprintf(stderr,
                 "usage: bench_driver --root <8-GPU mock root> --cli <nvidia-container-cli>\n");
    return 2;
  }
  std::vector<Row> rows;

  auto cache = nvct::read_file("/etc/ld.so.cache", 64u << 20);
  if (!cache) {
    std::fprintf(stderr, "FATAL: %s\n", cache.error().message().c_str());
    return 1;
  }
  std::size_t entries = 0;
  rows.push_back({"ldcache parse (host)",
                  median_us(200,
                            [&] {
                              auto c = nvct::driver::parse_ldcache(*cache);
                              entries = c ? c->entries.size() : 0;
                              return c.has_value();
                            }),
                  100});

  nvct::driver::DiscoverOptions o;
  o.root = root;
  auto nvml = nvct::driver::isolated_nvml_query(std::nullopt);
  std::string error;
  std::size_t gpus = 0;
  auto discover = [&] {
    auto ctx = nvct::driver::initialize_driver(o, nvml);
    if (!ctx) return error = ctx.error().message(), false;
    auto info = nvct::driver::discover_driver(*ctx, o);
    if (!info) return error = info.error().message(), false;
    gpus = info->gpus.size();
    return true;
  };
  rows.push_back({"discovery, 8-GPU mock root", median_us(50, discover), 2000});
  if (gpus != 8) error = fmt::format("expected 8 GPUs, found {}: {}", gpus, error);
  // The two halves, to tell where time goes: the NVML child alone, and discovery with the NVML
  // facts already known (files, ld.so.cache, procfs).
  auto root_handle = nvct::driver::DriverRoot::open(root);
  rows.push_back(
      {"  of which: NVML child",
       median_us(
           50,
           [&] {
             return root_handle &&
                    nvml(*root_handle, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1").has_value();
           }),
       1500});
  auto facts = root_handle ? nvml(*root_handle, "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1")
                           : nvct::Result<nvct::driver::NvmlFacts>(nvct::fail("no root"));
  nvct::driver::NvmlQuery cached = [&](const nvct::driver::DriverRoot&, const std::string&) {
    return facts;
  };
  rows.push_back({"  of which: files and procfs",
                  median_us(50,
                            [&] {
                              auto ctx = nvct::driver::initialize_driver(o, cached);
                              return ctx && nvct::driver::discover_driver(*ctx, o).has_value();
                            }),
                  500});
  if (gpus != 8) error = fmt::format("expected 8 GPUs, found {}: {}", gpus, error);

  std::string root_arg = "--root=" + root;
  auto info = [&] {
    const char* args[] = {cli.c_str(), root_arg.c_str(), "info", nullptr};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, cli.c_str(), &fa, nullptr, const_cast<char**>(args), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return false;
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
  };
  rows.push_back({"nvidia-container-cli info", median_us(30, info), 10000});

  fmt::print("{:<30} {:>12} {:>12}  {}\n", "benchmark (median)", "time", "target", "result");
  bool gross_miss = false;
  for (const auto& r : rows) {
    const char* verdict = r.us < 0                   ? "FAILED"
                          : r.us <= r.target_us      ? "ok"
                          : r.us <= 10 * r.target_us ? "slow (within 10x)"
                                                     : "GROSS MISS";
    if (r.us < 0 || r.us > 10 * r.target_us) gross_miss = true;
    fmt::print("{:<30} {:>9.1f} us {:>9.0f} us  {}\n", r.name, r.us, r.target_us, verdict);
  }
  fmt::print("host ld.so.cache entries: {}\n", entries);
  if (!error.empty()) {
    fmt::print(stderr, "FATAL: {}\n", error);
    return 1;
  }
  return gross_miss ? 1 : 0;
}
