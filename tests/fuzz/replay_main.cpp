// The replay program of the normal (g++) build: every harness of tests/fuzz is compiled in with
// its entry point renamed (CMakeLists.txt), and
//   fuzz_replay <harness> <dir>...
// runs that harness once on every file of each directory (sorted, for stable output). A crash
// fails the test as it would have under libFuzzer; sanitisers are not needed for that, and the
// asan preset adds them. The first directory (the seed corpus) must hold at least one file, so
// that a misplaced corpus fails instead of passing silently.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#define NVCT_FUZZ_HARNESS(name) \
  extern "C" int nvct_fuzz_##name(const std::uint8_t* data, std::size_t size);
#include "fuzz_harnesses.inc"
#undef NVCT_FUZZ_HARNESS

namespace {

using Entry = int (*)(const std::uint8_t*, std::size_t);

struct Harness {
  const char* name;
  Entry entry;
};

constexpr Harness kHarnesses[] = {
#define NVCT_FUZZ_HARNESS(name) {#name, &nvct_fuzz_##name},
#include "fuzz_harnesses.inc"
#undef NVCT_FUZZ_HARNESS
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <harness> <corpus dir> [<dir>...]\nharnesses:", argv[0]);
    for (const auto& h : kHarnesses) std::fprintf(stderr, " %s", h.name);
    std::fprintf(stderr, "\n");
    return 2;
  }
  const auto* harness =
      std::find_if(std::begin(kHarnesses), std::end(kHarnesses),
                   [&](const Harness& h) { return std::strcmp(h.name, argv[1]) == 0; });
  if (harness == std::end(kHarnesses)) {
    std::fprintf(stderr, "fuzz_replay: unknown harness %s (run without arguments for the list)\n",
                 argv[1]);
    return 2;
  }
  for (int i = 2; i < argc; ++i) {
    namespace fs = std::filesystem;
    std::error_code ec;
    std::vector<fs::path> files;
    const bool is_dir = fs::is_directory(argv[i], ec);
    if (is_dir) {
      for (const auto& e : fs::directory_iterator(argv[i], ec))
        if (e.is_regular_file()) files.push_back(e.path());
    } else if (i > 2) {
      // A harness without regressions has no directory for them (git keeps no empty folders).
      std::printf("fuzz_replay %s: no %s, nothing to replay there\n", harness->name, argv[i]);
      continue;
    }
    if ((is_dir && ec) || (i == 2 && files.empty())) {
      std::fprintf(stderr,
                   "fuzz_replay %s: the seed corpus %s is missing or empty: add inputs to "
                   "tests/fuzz/corpus/%s\n",
                   harness->name, argv[i], harness->name);
      return 1;
    }
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
      std::ifstream in(path, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (!in.good() && !in.eof()) {
        std::fprintf(stderr, "fuzz_replay %s: cannot read %s\n", harness->name, path.c_str());
        return 1;
      }
      // Announce the input first: a crash names it in the test log.
      std::fprintf(stderr, "%s\n", path.c_str());
      std::fflush(stderr);
      harness->entry(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    }
    std::printf("fuzz_replay %s: %zu inputs of %s\n", harness->name, files.size(), argv[i]);
  }
  return 0;
}
