// nvct-fatbin-list: the fatbinary reader on files, for the oracle test and the bench.
//
//   nvct-fatbin-list --list-elf FILE     cuobjdump --list-elf form (FILE named as given)
//   nvct-fatbin-list --list-ptx FILE     cuobjdump --list-ptx form
//   nvct-fatbin-list --summary FILE...   kind, containers, entries, archs per file
//   nvct-fatbin-list --time RUNS FILE    median wall time of one scan, in ms
//
// Exit 0, or 2 when a file is malformed or unreadable (the message names file and offset).
#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "nvct/compat/fatbin.hpp"

namespace {

using nvct::compat::EntryKind;
using nvct::compat::FileCode;

int usage() {
  std::fputs(
      "usage: nvct-fatbin-list --list-elf|--list-ptx FILE | --summary FILE... | --time RUNS FILE\n",
      stderr);
  return 2;
}

std::optional<FileCode> scan(const std::string& path) {
  auto code = nvct::compat::scan_file(AT_FDCWD, path);
  if (!code) {
    fmt::print(stderr, "nvct-fatbin-list: {}\n", code.error().message());
    return std::nullopt;
  }
  if (code->error) fmt::print(stderr, "{}\n", code->error->text());
  return std::move(*code);
}

std::string archs(const FileCode& c, EntryKind kind) {
  std::map<std::string, int> n;
  for (const auto& e : c.entries) {
    if (e.kind == kind) ++n[e.arch_name()];
  }
  std::string out;
  for (const auto& [a, count] : n) out += fmt::format(" {}x{}", a, count);
  return out.empty() ? " -" : out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() < 2) return usage();
  const std::string& mode = args[0];
  if (mode == "--list-elf" || mode == "--list-ptx") {
    auto c = scan(args[1]);
    if (!c) return 2;
    fmt::print("{}", nvct::compat::cuobjdump_list(
                         *c, mode == "--list-elf" ? EntryKind::sass : EntryKind::ptx, args[1]));
    return c->error ? 2 : 0;
  }
  if (mode == "--summary") {
    int rc = 0;
    for (std::size_t i = 1; i < args.size(); ++i) {
      auto c = scan(args[i]);
      if (!c || c->error) rc = 2;
      if (!c) continue;
      int sass = 0, ptx = 0, compressed = 0;
      for (const auto& e : c->entries) {
        sass += e.kind == EntryKind::sass;
        ptx += e.kind == EntryKind::ptx;
        compressed += e.compressed;
      }
      fmt::print("{}: kind {} containers {} sass {} ptx {} compressed {}\n  SASS{}\n  PTX{}\n",
                 args[i], nvct::compat::to_string(c->kind), c->containers.size(), sass, ptx,
                 compressed, archs(*c, EntryKind::sass), archs(*c, EntryKind::ptx));
    }
    return rc;
  }
  if (mode == "--time" && args.size() == 3) {
    const int runs = std::max(1, std::atoi(args[1].c_str()));
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      auto c = nvct::compat::scan_file(AT_FDCWD, args[2]);
      auto t1 = std::chrono::steady_clock::now();
      if (!c || c->error) return 2;
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    fmt::print("{:.3f}\n", ms[ms.size() / 2]);
    return 0;
  }
  return usage();
}
