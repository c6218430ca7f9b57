#include "nvct/driver/nvml_process.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>

#include "nvct/base/file.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/base/unique_fd.hpp"
#include "nvct/driver/nvml_library.hpp"
#include "nvct/driver/procfs.hpp"

namespace nvct::driver {
namespace {

using nlohmann::json;

// Runs in the forked child and ends in _exit: no exception or destructor of the parent's
// objects may run there.
[[noreturn]] void child_main(const NvmlProcessOptions& o, int out_fd) {
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  std::string text = encode_nvml_result(query_nvml_here(o));
  _exit(write_all(out_fd, text) ? 0 : 1);
}

NvmlProcessRunner& process_runner() {
  static NvmlProcessRunner runner;
  return runner;
}

json encode_facts(const NvmlFacts& f) {
  json gpus = json::array();
  for (const auto& g : f.gpus) {
    json migs = json::array();
    for (const auto& m : g.migs)
      migs.push_back({{"index", m.index}, {"uuid", m.uuid}, {"gi", m.gi}, {"ci", m.ci}});
    gpus.push_back({{"minor", g.minor},
                    {"uuid", g.uuid},
                    {"name", g.name},
                    {"bus_id", g.bus_id},
                    {"brand", g.brand},
                    {"cc_major", g.cc_major},
                    {"cc_minor", g.cc_minor},
                    {"mig_capable", g.mig_capable},
                    {"mig_enabled", g.mig_enabled},
                    {"migs", std::move(migs)}});
  }
  return {{"driver_version", f.driver_version},
          {"cuda_version", f.cuda_version},
          {"gpus", std::move(gpus)}};
}

// Typed field readers that never throw.
template <class T>
bool get(const json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it == j.end()) return false;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) return false;
    out = it->template get_ref<const std::string&>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean()) return false;
    out = it->template get<bool>();
  } else {
    if (!it->is_number_integer()) return false;
    out = static_cast<T>(it->template get<long long>());
  }
  return true;
}

}  // namespace

Result<std::string> isolate_for_driver_library(const NvmlProcessOptions& o) {
  std::string library = o.library;
  if (o.root != "/") {
    // chroot needs CAP_SYS_CHROOT; without it the library is opened by its host path.
    if (::chroot(o.root.c_str()) == 0) {
      if (::chdir("/") != 0) return fail_errno("chdir / in the driver root");
    } else {
      library = o.root + o.library;
    }
  }
  if (o.user) {
    if (o.user->gid != ::getegid()) {
      if (::setgroups(0, nullptr) != 0) return fail_errno("setgroups");
      if (::setresgid(o.user->gid, o.user->gid, o.user->gid) != 0) return fail_errno("setgid");
    }
    if (::setresuid(o.user->uid, o.user->uid, o.user->uid) != 0) return fail_errno("setuid");
  }
  // Clear every capability set, as the reference does, so that even --user=0 leaves NVML
  // without privileges.
  struct __user_cap_header_struct hdr {
    _LINUX_CAPABILITY_VERSION_3, 0
  };
  struct __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capset, &hdr, data) != 0) return fail_errno("drop capabilities");
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail_errno("set no_new_privs");
  return library;
}

Result<NvmlFacts> query_nvml_here(const NvmlProcessOptions& o) {
  NVCT_ASSIGN_OR_RETURN(std::string library, isolate_for_driver_library(o));
  NVCT_ASSIGN_OR_RETURN(auto api, open_nvml_library(library));
  return query_nvml(*api);
}

std::string encode_nvml_result(const Result<NvmlFacts>& r) {
  json j = r ? json{{"facts", encode_facts(*r)}} : json{{"error", r.error().message()}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<NvmlFacts> decode_nvml_result(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return fail(EPROTO, "malformed reply from the NVML process");
  return decode_nvml_reply(j);
}

Result<NvmlFacts> decode_nvml_reply(const json& j) {
  auto bad = [] { return fail(EPROTO, "malformed reply from the NVML process"); };
  if (!j.is_object()) return bad();
  std::string err;
  if (get(j, "error", err)) return fail(EIO, err);
  auto fit = j.find("facts");
  if (fit == j.end() || !fit->is_object()) return bad();
  NvmlFacts f;
  if (!get(*fit, "driver_version", f.driver_version) || !get(*fit, "cuda_version", f.cuda_version))
    return bad();
  auto gpus = fit->find("gpus");
  if (gpus == fit->end() || !gpus->is_array()) return bad();
  for (const auto& gj : *gpus) {
    NvmlGpu g;
    if (!gj.is_object() || !get(gj, "minor", g.minor) || !get(gj, "uuid", g.uuid) ||
        !get(gj, "name", g.name) || !get(gj, "bus_id", g.bus_id) || !get(gj, "brand", g.brand) ||
        !get(gj, "cc_major", g.cc_major) || !get(gj, "cc_minor", g.cc_minor) ||
        !get(gj, "mig_capable", g.mig_capable) || !get(gj, "mig_enabled", g.mig_enabled))
      return bad();
    auto migs = gj.find("migs");
    if (migs == gj.end() || !migs->is_array()) return bad();
    for (const auto& mj : *migs) {
      NvmlMigDevice m;
      if (!mj.is_object() || !get(mj, "index", m.index) || !get(mj, "uuid", m.uuid) ||
          !get(mj, "gi", m.gi) || !get(mj, "ci", m.ci))
        return bad();
      g.migs.push_back(std::move(m));
    }
    f.gpus.push_back(std::move(g));
  }
  return f;
}

Result<NvmlFacts> query_nvml_in_child(const NvmlProcessOptions& o) {
  if (process_runner()) return process_runner()(o);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return fail_errno("create pipe for the NVML process");
  unique_fd rd(fds[0]), wr(fds[1]);
  pid_t pid = ::fork();
  if (pid < 0) return fail_errno("fork the NVML process");
  if (pid == 0) {
    rd.release();  // never close fds in the child through destructors
    child_main(o, wr.release());
  }
  wr.reset();
  std::string text;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(o.timeout_ms);
  Status st = ok();
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      st = fail(ETIMEDOUT, "nvml error: the NVML process timed out");
      break;
    }
    struct pollfd p {
      rd.get(), POLLIN, 0
    };
    int n = ::poll(&p, 1, static_cast<int>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      st = fail_errno("poll the NVML process");
      break;
    }
    if (n == 0) continue;
    char buf[8192];
    ssize_t r = ::read(rd.get(), buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      st = fail_errno("read from the NVML process");
      break;
    }
    if (r == 0) break;
    text.append(buf, static_cast<std::size_t>(r));
    if (text.size() > (4u << 20)) {
      st = fail(EFBIG, "reply of the NVML process is too large");
      break;
    }
  }
  if (!st) ::kill(pid, SIGKILL);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (!st) return tl::unexpected(st.error());
  if (WIFSIGNALED(wstatus))
    return fail(EIO, fmt::format("nvml error: the NVML process was killed by signal {}",
                                 WTERMSIG(wstatus)));
  return decode_nvml_result(text);
}

void set_nvml_process_runner(NvmlProcessRunner runner) { process_runner() = std::move(runner); }

Result<NvmlUser> default_nvml_user() {
  NvmlUser u;
  for (auto [file, out] :
       {std::pair<const char*, unsigned*>{"/proc/sys/kernel/overflowuid", &u.uid},
        {"/proc/sys/kernel/overflowgid", &u.gid}}) {
    auto text = read_file(file, 64);
    if (!text)
      return fail(text.error().code(),
                  fmt::format("open failed: {}: {}", file,
                              strings::to_lower(std::strerror(text.error().code()))));
    auto v = parse_unsigned(strings::trim(*text));
    if (!v) return fail(fmt::format("invalid value in {}", file));
    *out = *v;
  }
  return u;
}

}  // namespace nvct::driver
