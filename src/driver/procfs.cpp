#include "nvct/driver/procfs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "nvct/base/strings.hpp"

namespace nvct::driver {
namespace {

// Hex with at most max_digits digits (like sscanf "%02x" for max_digits 2); 0 = unbounded.
std::optional<unsigned> take_hex(std::string_view& s, std::size_t max_digits) {
  std::size_t n = 0;
  while (n < s.size() && (max_digits == 0 || n < max_digits) &&
         std::isxdigit(static_cast<unsigned char>(s[n])))
    ++n;
  if (n == 0 || n > 8) return std::nullopt;
  unsigned v = 0;
  std::from_chars(s.data(), s.data() + n, v, 16);
  s.remove_prefix(n);
  return v;
}

bool take(std::string_view& s, std::string_view lit) {
  if (!strings::starts_with(s, lit)) return false;
  s.remove_prefix(lit.size());
  return true;
}

// "Key:  value" lines of the proc information files.
std::optional<std::string> field(std::string_view text, std::string_view key) {
  // Views over the text: the shim reads one `information` file per GPU per container.
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (strings::trim(line.substr(0, colon)) == key)
      return std::string(strings::trim(line.substr(colon + 1)));
  }
  return std::nullopt;
}

}  // namespace

std::optional<unsigned> parse_unsigned(std::string_view text) {
  if (text.empty() || text.size() > 10) return std::nullopt;
  unsigned long long v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  if (v > 0xffffffffull) return std::nullopt;
  return static_cast<unsigned>(v);
}

std::map<std::string, unsigned> parse_proc_devices(std::string_view text) {
  std::map<std::string, unsigned> majors;
  bool in_char = false;
  for (auto& line : strings::split(text, '\n')) {
    if (!in_char) {
      in_char = line == "Character devices:";
      continue;
    }
    if (line.empty()) break;
    std::string_view l = strings::trim(line);
    auto sp = l.find(' ');
    if (sp == std::string_view::npos) continue;
    auto major = parse_unsigned(l.substr(0, sp));
    std::string_view name = strings::trim(l.substr(sp + 1));
    if (major && !name.empty()) majors.emplace(std::string(name), *major);
  }
  return majors;
}

Result<std::string> parse_proc_driver_version(std::string_view text) {
  std::string_view first = text.substr(0, text.find('\n'));
  auto pos = first.find("Kernel Module");
  if (pos == std::string_view::npos)
    return fail(fmt::format("unexpected driver version line: {}", first));
  // The open modules print "Open Kernel Module for x86_64  560.35.03": take the first word made
  // of digits and dots.
  for (const auto& w : strings::split_trimmed(first.substr(pos + 13), ' ')) {
    if (w.find('.') != std::string::npos &&
        w.find_first_not_of("0123456789.") == std::string::npos &&
        std::isdigit(static_cast<unsigned char>(w[0])))
      return w;
  }
  return fail(fmt::format("no version in driver version line: {}", first));
}

Result<ProcGpuInformation> parse_proc_gpu_information(std::string_view text) {
  ProcGpuInformation info;
  auto model = field(text, "Model");
  auto uuid = field(text, "GPU UUID");
  auto bus = field(text, "Bus Location");
  auto minor = field(text, "Device Minor");
  if (!model || !uuid || !bus || !minor)
    return fail("GPU information lacks one of Model, GPU UUID, Bus Location, Device Minor");
  auto bus_id = normalize_pci_bus_id(*bus);
  if (!bus_id) return fail(fmt::format("invalid Bus Location: {}", *bus));
  auto m = parse_unsigned(*minor);
  if (!m) return fail(fmt::format("invalid Device Minor: {}", *minor));
  info.model = *model;
  info.uuid = *uuid;
  info.bus_id = *bus_id;
  info.minor = *m;
  return info;
}

Result<unsigned> parse_device_file_minor(std::string_view text) {
  auto v = field(text, "DeviceFileMinor");
  if (!v) return fail("no DeviceFileMinor line");
  auto m = parse_unsigned(*v);
  if (!m) return fail(fmt::format("invalid DeviceFileMinor: {}", *v));
  return *m;
}

Result<std::vector<MigMinorLine>> scan_mig_minors(std::string_view text) {
  // Thousands of lines on a real host, scanned by every hook: views, no per-line strings.
  std::vector<MigMinorLine> out;
  out.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = strings::trim(text.substr(start, end - start));
    start = end + 1;
    if (line.empty()) continue;
    auto bad = [&] { return fail(fmt::format("invalid mig-minors line: {}", line)); };
    auto sp = line.rfind(' ');
    if (sp == std::string_view::npos) return bad();
    auto minor = parse_unsigned(line.substr(sp + 1));
    std::string_view name = line.substr(0, sp);
    if (!minor) return bad();
    MigMinorLine m;
    m.minor = *minor;
    if (name == "config" || name == "monitor") {
      m.kind = name == "config" ? MigMinor::Kind::kConfig : MigMinor::Kind::kMonitor;
      out.push_back(m);
      continue;
    }
    std::string_view parts[5];
    std::size_t nparts = 0;
    for (std::size_t from = 0;;) {
      std::size_t slash = name.find('/', from);
      if (nparts == 5) return bad();
      parts[nparts++] = name.substr(from, slash == std::string_view::npos ? slash : slash - from);
      if (slash == std::string_view::npos) break;
      from = slash + 1;
    }
    auto num = [](std::string_view part, std::string_view prefix) -> std::optional<unsigned> {
      if (!strings::starts_with(part, prefix)) return std::nullopt;
      return parse_unsigned(part.substr(prefix.size()));
    };
    if (nparts < 3 || nparts > 4 || parts[nparts - 1] != "access") return bad();
    auto gpu = num(parts[0], "gpu");
    auto gi = num(parts[1], "gi");
    if (!gpu || !gi) return bad();
    m.gpu = *gpu;
    m.gi = *gi;
    m.kind = MigMinor::Kind::kGpuInstance;
    if (nparts == 4) {
      auto ci = num(parts[2], "ci");
      if (!ci) return bad();
      m.ci = *ci;
      m.kind = MigMinor::Kind::kComputeInstance;
    }
    out.push_back(m);
  }
  return out;
}

std::string mig_minor_proc_path(const MigMinorLine& line) {
  // From the numbers, as the driver names the files ("gpu007/gi01" is gpu7/gi1).
  switch (line.kind) {
    case MigMinor::Kind::kConfig:
      return fmt::format("{}/mig/config", kProcCapabilities);
    case MigMinor::Kind::kMonitor:
      return fmt::format("{}/mig/monitor", kProcCapabilities);
    case MigMinor::Kind::kGpuInstance:
      return fmt::format("{}/gpu{}/mig/gi{}/access", kProcCapabilities, line.gpu, line.gi);
    case MigMinor::Kind::kComputeInstance:
      break;
  }
  return fmt::format("{}/gpu{}/mig/gi{}/ci{}/access", kProcCapabilities, line.gpu, line.gi,
                     line.ci);
}

Result<std::vector<MigMinor>> parse_mig_minors(std::string_view text) {
  NVCT_ASSIGN_OR_RETURN(std::vector<MigMinorLine> lines, scan_mig_minors(text));
  std::vector<MigMinor> out;
  out.reserve(lines.size());
  for (const auto& l : lines) {
    MigMinor m;
    m.kind = l.kind;
    m.gpu = l.gpu;
    m.gi = l.gi;
    m.ci = l.ci;
    m.minor = l.minor;
    m.proc_path = mig_minor_proc_path(l);
    out.push_back(std::move(m));
  }
  return out;
}

std::optional<std::string> normalize_pci_bus_id(std::string_view s) {
  auto domain = take_hex(s, 0);
  if (!domain || !take(s, ":")) return std::nullopt;
  auto bus = take_hex(s, 2);
  if (!bus || !take(s, ":")) return std::nullopt;
  auto dev = take_hex(s, 2);
  if (!dev || !take(s, ".0") || !s.empty()) return std::nullopt;
  return fmt::format("{:08x}:{:02x}:{:02x}.0", *domain, *bus, *dev);
}

}  // namespace nvct::driver
