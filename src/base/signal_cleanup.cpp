#include "nvct/base/signal_cleanup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace nvct {
namespace {

constexpr int kSlots = 16;
constexpr std::size_t kNameMax = 4096;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

struct Slot {
  std::atomic<bool> used{false};
  int dirfd = AT_FDCWD;
  char name[kNameMax] = {};
};

Slot g_slots[kSlots];
std::mutex g_mutex;  // registration only; the handler reads `used` with acquire semantics

void on_signal(int sig) {
  const int saved = errno;
  for (auto& s : g_slots)
    if (s.used.load(std::memory_order_acquire)) ::unlinkat(s.dirfd, s.name, 0);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  errno = saved;
  ::raise(sig);
}

// At every registration (a few syscalls): a signal whose disposition is the default again (a
// forked child reset it, say) gets the handler back.
void install() {
  for (int sig : kSignals) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL ||
        (old.sa_flags & SA_SIGINFO) != 0)
      continue;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    ::sigfillset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace

CleanupOnSignal::CleanupOnSignal(int dirfd, const std::string& name) {
  if (name.empty() || name.size() >= kNameMax) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  install();
  for (int i = 0; i < kSlots; ++i) {
    Slot& s = g_slots[i];
    if (s.used.load(std::memory_order_relaxed)) continue;
    s.dirfd = dirfd;
    std::memcpy(s.name, name.c_str(), name.size() + 1);
    s.used.store(true, std::memory_order_release);
    slot_ = i;
    return;
  }
}

void CleanupOnSignal::release() {
  if (slot_ < 0) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_slots[slot_].used.store(false, std::memory_order_release);
  slot_ = -1;
}

CleanupOnSignal::~CleanupOnSignal() { release(); }

CleanupOnSignal::CleanupOnSignal(CleanupOnSignal&& other) noexcept : slot_(other.slot_) {
  other.slot_ = -1;
}

CleanupOnSignal& CleanupOnSignal::operator=(CleanupOnSignal&& other) noexcept {
  if (this != &other) {
    release();
    slot_ = other.slot_;
    other.slot_ = -1;
  }
  return *this;
}

}  // namespace nvct
