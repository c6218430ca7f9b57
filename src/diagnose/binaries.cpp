// Family `binaries` (spec/doctor.md §3.5): are the toolkit's programs installed where the engines
// and the hook look for them, from one nvct release? Versions come from the version note each
// nvct program carries (src/cmd/version_note.cpp); nothing is executed. A program without the
// note (NVIDIA's, a wrapper script) is "foreign".
#include <fcntl.h>
#include <sys/stat.h>

#include <fmt/format.h>

#include <map>
#include <set>

#include "nvct/base/elf_note.hpp"
#include "nvct/base/install_dirs.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/diagnose/config_facts.hpp"
#include "nvct/diagnose/engine_facts.hpp"
#include "nvct/diagnose/families.hpp"

namespace nvct::diagnose {
namespace {

// The five programs the pipeline runs (spec/doctor.md §3.5), in the order they are reported.
constexpr std::string_view kPrograms[] = {"nvidia-container-runtime",
                                          "nvidia-container-runtime-hook", "nvidia-ctk",
                                          "nvidia-cdi-hook", "nvidia-container-cli"};
constexpr std::string_view kHelper = "nvidia-container-runtime-nvml";
constexpr std::size_t kMaxVersionText = 63;

struct Program {
  std::string name;
  std::string path;     // root-relative; "" when not found
  std::string version;  // nvct's version; "" for a foreign file
  std::string why_foreign;
};

// The default PATH, then the install bindir when it is not on it (a /opt/nvct install).
std::vector<std::string> search_dirs() {
  std::vector<std::string> dirs = strings::split(kDefaultPath, ':');
  if (std::find(dirs.begin(), dirs.end(), install_bindir()) == dirs.end())
    dirs.emplace_back(install_bindir());
  return dirs;
}

std::string find_program(const Host& host, std::string_view name,
                         const std::vector<std::string>& dirs) {
  for (const auto& dir : dirs) {
    std::string path = fmt::format("{}/{}", dir, name);
    auto st = host.stat(path);
    if (st && S_ISREG(st->st_mode)) return path;
  }
  return "";
}

void read_version(const Host& host, Program& p) {
  auto fd = host.root().open_file(p.path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (!fd) {
    p.why_foreign = fd.error().message();
    return;
  }
  auto note = read_elf_note(fd->get(), kVersionNoteOwner, kVersionNoteType, kMaxVersionText);
  if (!note) {
    p.why_foreign = note.error().message();
  } else if (!*note) {
    p.why_foreign = "no nvct version note";
  } else {
    p.version = **note;
  }
}

std::string describe(const Program& p) {
  if (!p.version.empty()) return fmt::format("{}: nvct {}", p.path, p.version);
  return fmt::format("{}: foreign ({})", p.path, p.why_foreign);
}

// A configured absolute path that is not the program PATH finds.
void compare_path(std::vector<std::string>& evidence, std::string_view setting,
                  const std::string& configured, const Program& found) {
  if (configured.empty() || configured.front() != '/' || found.path.empty()) return;
  if (strings::dirname(configured) == strings::dirname(found.path)) return;
  evidence.push_back(fmt::format("{} = {}; PATH finds {}", setting, configured, found.path));
}

}  // namespace

std::vector<Finding> check_binaries(Host& host) {
  std::vector<Finding> out;
  const auto dirs = search_dirs();
  std::vector<Program> programs;
  std::vector<std::string> missing;
  for (auto name : kPrograms) {
    Program p{std::string(name), find_program(host, name, dirs), "", ""};
    if (p.path.empty()) {
      missing.push_back(fmt::format("{}: not found in {}", name, strings::join(dirs, ":")));
    } else {
      read_version(host, p);
    }
    programs.push_back(std::move(p));
  }
  if (!missing.empty()) {
    out.push_back({"binaries.missing", Severity::kError,
                   fmt::format("{} of the toolkit's {} programs missing", missing.size(),
                               std::size(kPrograms)),
                   missing,
                   "install the toolkit packages (nvidia-container-toolkit, "
                   "nvidia-container-toolkit-base, libnvidia-container-tools)"});
  }

  // One release: the same nvct version everywhere, no foreign program in between. The shim's
  // NVML helper counts when it is installed.
  std::vector<const Program*> found;
  for (const auto& p : programs)
    if (!p.path.empty()) found.push_back(&p);
  Program helper{std::string(kHelper), "", "", ""};
  const Program& shim = programs[0];
  std::vector<std::string> helper_dirs;
  if (!shim.path.empty()) helper_dirs.push_back(strings::dirname(shim.path));
  helper_dirs.emplace_back(install_helper_dir());
  helper.path = find_program(host, kHelper, helper_dirs);
  if (!helper.path.empty()) {
    read_version(host, helper);
    found.push_back(&helper);
  }
  std::set<std::string> versions;
  std::size_t foreign = 0;
  std::vector<std::string> listing;
  for (const auto* p : found) {
    if (p->version.empty())
      ++foreign;
    else
      versions.insert(p->version);
    listing.push_back(describe(*p));
  }
  if (versions.size() > 1 || (!versions.empty() && foreign > 0)) {
    out.push_back({"binaries.version-skew", Severity::kWarn,
                   versions.size() > 1
                       ? fmt::format("nvct programs of {} versions: {}", versions.size(),
                                     strings::join({versions.begin(), versions.end()}, ", "))
                       : fmt::format("nvct {} mixed with {} foreign program{}", *versions.begin(),
                                     foreign, foreign == 1 ? "" : "s"),
                   listing, "reinstall one package set (apt-get install --reinstall ...)"});
  }

  // The paths the config and the engines name against the programs found.
  std::vector<std::string> mismatches;
  const ConfigFacts& config = host.config();
  compare_path(mismatches, fmt::format("{}: nvidia-container-runtime-hook.path", config.path),
               config.config.hook.path, programs[1]);
  compare_path(mismatches, fmt::format("{}: nvidia-ctk.path", config.path), config.config.ctk.path,
               programs[2]);
  compare_path(mismatches, fmt::format("{}: nvidia-container-cli.path", config.path),
               config.config.cli.path, programs[4]);
  const EngineFacts& engines = host.engines();
  for (const EngineConfig* engine : {&engines.docker, &engines.containerd, &engines.crio}) {
    for (const auto& runtime : engine->runtimes) {
      if (!strings::starts_with(strings::basename(runtime.path), "nvidia-container-runtime"))
        continue;
      compare_path(
          mismatches,
          fmt::format("{}: {} runtime {}", engine->config_path, engine->name, runtime.name),
          runtime.path, shim);
    }
  }
  if (!mismatches.empty()) {
    out.push_back({"binaries.path-mismatch", Severity::kWarn,
                   "a configured program path is not the program PATH finds", mismatches,
                   "point the setting at the installed program (nvidia-ctk config --set "
                   "nvidia-container-runtime-hook.path=<path> --in-place; nvidia-ctk runtime "
                   "configure --nvidia-runtime-path=<path>)"});
  }

  // Links that lead nowhere: the hook's alias and the programs themselves.
  std::vector<std::string> dangling;
  std::vector<std::string_view> names(std::begin(kPrograms), std::end(kPrograms));
  names.push_back("nvidia-container-toolkit");
  names.push_back("nvidia-container-runtime.cdi");
  names.push_back("nvidia-container-runtime.legacy");
  for (const auto& dir : dirs) {
    for (auto name : names) {
      std::string path = fmt::format("{}/{}", dir, name);
      auto l = host.lstat(path);
      if (l && S_ISLNK(l->st_mode) && !host.stat(path))
        dangling.push_back(path + ": dangling link");
    }
  }
  if (!dangling.empty()) {
    out.push_back({"binaries.dangling-link", Severity::kError,
                   fmt::format("{} dangling program link{}", dangling.size(),
                               dangling.size() == 1 ? "" : "s"),
                   dangling, "reinstall the toolkit packages"});
  }

  std::string title =
      versions.size() == 1 && foreign == 0
          ? fmt::format("{} toolkit programs installed, nvct {}", found.size(), *versions.begin())
          : fmt::format("{} toolkit programs installed", found.size());
  add_ok_unless_worse(out, "binaries", std::move(title), std::move(listing));
  return out;
}

}  // namespace nvct::diagnose
