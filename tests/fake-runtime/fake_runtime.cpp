// nvct-fake-runtime: a stand-in for runc in tests of the shim.
//
// When $FAKE_RUNTIME_DIR is set it records, in that directory:
//   calls.jsonl      one JSON line per call: argv, cwd, pid, ppid, env, open fds, bundle
//   last.json        the same object for the latest call
//   config.json      a byte copy of the config.json the call saw (bundle from -b/--bundle, or
//                    the cwd), absent when there was none
// Then it behaves as chosen by the environment:
//   FAKE_RUNTIME_STDOUT  text written to stdout (e.g. a `state` JSON), byte for byte
//   FAKE_RUNTIME_STDERR  text written to stderr
//   FAKE_RUNTIME_SLEEP   seconds to sleep before exiting (signal tests)
//   FAKE_RUNTIME_SIGNAL  signal number to kill itself with
//   FAKE_RUNTIME_EXIT    exit code (default 0)
// Without any of these it is a no-op runtime (the benchmark's baseline).
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool read_whole(const std::string& path, std::string& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return n == 0;
}

bool write_file(const std::string& path, std::string_view data, int flags) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
  if (fd < 0) return false;
  bool ok = write_all(fd, data);
  ::close(fd);
  return ok;
}

// Same bundle rules as runc: -b/--bundle (any dash count, "=" form), else the cwd.
std::string bundle_of(int argc, char** argv) {
  std::string bundle;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a.empty() || a[0] != '-') continue;
    auto name = a;
    while (!name.empty() && name[0] == '-') name.remove_prefix(1);
    auto eq = name.find('=');
    auto key = name.substr(0, eq);
    if (key != "b" && key != "bundle") continue;
    if (eq != std::string_view::npos) {
      bundle = std::string(name.substr(eq + 1));
    } else if (i + 1 < argc) {
      bundle = argv[++i];
    }
  }
  return bundle;
}

std::vector<int> open_fds() {
  std::vector<int> fds;
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) return fds;
  int own = ::dirfd(dir);
  while (auto* entry = ::readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    int fd = std::atoi(entry->d_name);
    if (fd != own) fds.push_back(fd);
  }
  ::closedir(dir);
  return fds;
}

void record(const char* dir, int argc, char** argv) {
  nlohmann::json call;
  call["argv"] = nlohmann::json::array();
  for (int i = 0; i < argc; ++i) call["argv"].push_back(argv[i]);
  char cwd[4096] = {};
  call["cwd"] = ::getcwd(cwd, sizeof cwd) ? cwd : "";
  call["pid"] = ::getpid();
  call["ppid"] = ::getppid();
  call["env"] = nlohmann::json::array();
  for (char** e = environ; *e; ++e) call["env"].push_back(*e);
  call["fds"] = open_fds();
  auto bundle = bundle_of(argc, argv);
  call["bundle"] = bundle;
  std::string spec_path = bundle.empty() ? "config.json" : bundle + "/config.json";
  std::string spec;
  std::string base(dir);
  if (read_whole(spec_path, spec)) {
    write_file(base + "/config.json", spec, O_TRUNC);
    call["config_seen"] = true;
  } else {
    ::unlink((base + "/config.json").c_str());
    call["config_seen"] = false;
  }
  auto line = call.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  write_file(base + "/last.json", line + "\n", O_TRUNC);
  write_file(base + "/calls.jsonl", line + "\n", O_APPEND);
}

}  // namespace

int main(int argc, char** argv) {
  if (const char* dir = env("FAKE_RUNTIME_DIR")) record(dir, argc, argv);
  if (const char* out = env("FAKE_RUNTIME_STDOUT")) write_all(1, out);
  if (const char* err = env("FAKE_RUNTIME_STDERR")) write_all(2, err);
  if (const char* secs = env("FAKE_RUNTIME_SLEEP")) {
    unsigned left = static_cast<unsigned>(std::atoi(secs));
    while (left > 0) left = ::sleep(left);
  }
  if (const char* sig = env("FAKE_RUNTIME_SIGNAL")) {
    int n = std::atoi(sig);
    ::signal(n, SIG_DFL);
    ::raise(n);
  }
  const char* code = env("FAKE_RUNTIME_EXIT");
  return code ? std::atoi(code) : 0;
}
