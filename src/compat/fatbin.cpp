// The reader's entry points: open (O_PATH + fstat first, so FIFOs and devices are never opened
// for reading), size limit, dispatch on the content, and the cuobjdump list form.
#include "nvct/compat/fatbin.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include <fmt/format.h>

#include "fatbin_scan.hpp"
#include "nvct/base/unique_fd.hpp"

namespace nvct::compat {

namespace detail {

std::string hex(std::uint64_t v) { return fmt::format("{:#x}", v); }

bool ScanState::malformed(std::uint64_t offset, std::string message,
                          std::optional<std::uint32_t> container,
                          std::optional<std::uint32_t> entry) {
  if (!out->error)
    out->error = ScanError{file, offset, container, entry, member, std::move(message)};
  return false;
}

void ScanState::warn(std::string message) {
  constexpr std::size_t kMaxWarnings = 64;  // a hostile file cannot grow the report unbounded
  if (out->warnings.size() < kMaxWarnings) {
    out->warnings.push_back(member.empty() ? std::move(message)
                                           : "member " + member + ": " + message);
  }
}

bool scan_window(ScanState& st, const Window& w) {
  unsigned char m[8] = {};
  const bool have8 = w.read(0, m, 8);
  const bool have4 = have8 || w.read(0, m, 4);
  if (have4 && std::memcmp(m,
                           "\x7f"
                           "ELF",
                           4) == 0)
    return scan_elf(st, w);
  if (have4 && le32(m) == 0xBA55ED50) {
    if (st.depth == 0) st.out->kind = FileKind::fatbin;
    return scan_fatbin_region(st, w, "", RegionMode::strict);
  }
  if (have8 && std::memcmp(m, "!<arch>\n", 8) == 0) return scan_archive(st, w);
  if (auto head = parse_ptx_head(w.read_some(0, 4096))) {
    if (st.depth == 0) st.out->kind = FileKind::ptx;
    CodeEntry ce;
    ce.kind = EntryKind::ptx;
    ce.arch = head->arch;
    ce.arch_specific = head->arch_specific;
    ce.version_major = head->isa_major;
    ce.version_minor = head->isa_minor;
    ce.container = static_cast<std::uint32_t>(st.out->containers.size());
    ce.file_offset = w.base;
    ce.payload_offset = w.base;
    ce.payload_size = w.size;
    ce.member = st.member;
    st.out->entries.push_back(std::move(ce));
    return true;
  }
  return true;  // no GPU code
}

}  // namespace detail

std::string_view to_string(FileKind kind) {
  switch (kind) {
    case FileKind::host_elf:
      return "host-elf";
    case FileKind::cubin:
      return "cubin";
    case FileKind::fatbin:
      return "fatbin";
    case FileKind::ptx:
      return "ptx";
    case FileKind::archive:
      return "archive";
    case FileKind::other:
      break;
  }
  return "other";
}

std::string_view to_string(EntryKind kind) {
  switch (kind) {
    case EntryKind::sass:
      return "sass";
    case EntryKind::ptx:
      return "ptx";
    case EntryKind::unknown:
      break;
  }
  return "unknown";
}

std::string_view to_string(Compression c) {
  switch (c) {
    case Compression::none:
      return "none";
    case Compression::lz:
      return "lz";
    case Compression::zstd:
      return "zstd";
    case Compression::other:
      break;
  }
  return "other";
}

std::string CodeEntry::arch_name() const {
  const char* prefix = kind == EntryKind::ptx ? "compute_" : "sm_";
  return fmt::format("{}{}{}", prefix, arch, arch_specific.value_or(false) ? "a" : "");
}

std::string ScanError::describe() const {
  return member.empty() ? message : fmt::format("member {}: {}", member, message);
}

std::string ScanError::text() const { return fmt::format("{}: malformed: {}", file, describe()); }

FileCode scan_bytes(std::span<const std::byte> data, const std::string& name,
                    const ScanLimits& limits) {
  FileCode out;
  out.path = name;
  out.size = data.size();
  if (data.size() > limits.max_file_size) {
    out.skipped = fmt::format("too large ({} bytes, limit {})", data.size(), limits.max_file_size);
    return out;
  }
  detail::SpanSource src(data);
  detail::ScanState st{name, &limits, &out, {}, 0, 0};
  detail::scan_window(st, detail::Window{&src, 0, data.size()});
  return out;
}

Result<FileCode> scan_fd(int fd, const std::string& name, const ScanLimits& limits) {
  struct stat sb {};
  if (::fstat(fd, &sb) != 0) return fail_errno(fmt::format("stat {}", name));
  FileCode out;
  out.path = name;
  if (!S_ISREG(sb.st_mode)) {
    out.skipped = "not a regular file";
    return out;
  }
  out.size = static_cast<std::uint64_t>(sb.st_size);
  if (out.size > limits.max_file_size) {
    out.skipped = fmt::format("too large ({} bytes, limit {})", out.size, limits.max_file_size);
    return out;
  }
  detail::FdSource src(fd, out.size);
  detail::ScanState st{name, &limits, &out, {}, 0, 0};
  detail::scan_window(st, detail::Window{&src, 0, out.size});
  if (src.io_error() != 0) return fail_errno(fmt::format("read {}", name), src.io_error());
  return out;
}

Result<FileCode> scan_file(int dirfd, const std::string& path, const ScanLimits& limits) {
  unique_fd probe(::openat(dirfd, path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!probe) return fail_errno(fmt::format("open {}", path));
  struct stat sb {};
  if (::fstat(probe.get(), &sb) != 0) return fail_errno(fmt::format("stat {}", path));
  FileCode out;
  out.path = path;
  if (S_ISLNK(sb.st_mode)) {
    out.skipped = "symbolic link";
    return out;
  }
  if (!S_ISREG(sb.st_mode)) {
    out.skipped = S_ISFIFO(sb.st_mode)   ? "not a regular file (FIFO)"
                  : S_ISSOCK(sb.st_mode) ? "not a regular file (socket)"
                  : S_ISDIR(sb.st_mode)  ? "not a regular file (directory)"
                                         : "not a regular file (device)";
    return out;
  }
  if (static_cast<std::uint64_t>(sb.st_size) > limits.max_file_size) {
    out.size = static_cast<std::uint64_t>(sb.st_size);
    out.skipped = fmt::format("too large ({} bytes, limit {})", out.size, limits.max_file_size);
    return out;
  }
  // O_NONBLOCK: if the file was swapped for a FIFO since the fstat, the open does not hang; the
  // identity check below then rejects it.
  unique_fd fd(
      ::openat(dirfd, path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!fd) return fail_errno(fmt::format("open {}", path));
  struct stat sb2 {};
  if (::fstat(fd.get(), &sb2) != 0) return fail_errno(fmt::format("stat {}", path));
  if (sb2.st_dev != sb.st_dev || sb2.st_ino != sb.st_ino) {
    return fail(EAGAIN,
                fmt::format("scan {}: the file was replaced while it was opened; retry", path));
  }
  return scan_fd(fd.get(), path, limits);
}

std::string cuobjdump_list(const FileCode& code, EntryKind kind, std::string_view file_name) {
  std::string_view base = file_name;
  if (auto slash = base.rfind('/'); slash != std::string_view::npos) base.remove_prefix(slash + 1);
  if (auto dot = base.rfind('.'); dot != std::string_view::npos && dot > 0)
    base = base.substr(0, dot);
  const char* label = kind == EntryKind::ptx ? "PTX" : "ELF";
  const char* ext = kind == EntryKind::ptx ? "ptx" : "cubin";
  std::string out;
  unsigned n = 0;
  auto print = [&](const CodeEntry& e) {
    ++n;
    const char* a = e.arch_specific.value_or(false) ? "a" : "";
    if (code.kind == FileKind::cubin) {
      out += fmt::format("{} file {:>4}: {}.sm_{}{}.{}\n", label, n, base, e.arch, a, ext);
    } else {
      out += fmt::format("{} file {:>4}: {}.{}.sm_{}{}.{}\n", label, n, base, n, e.arch, a, ext);
    }
  };
  std::size_t i = 0;
  for (; i < code.entries.size() && code.entries[i].member.empty(); ++i) {
    if (code.entries[i].kind == kind) print(code.entries[i]);
  }
  for (const std::string& m : code.members) {
    out += fmt::format("\nmember {}:{}:\n", file_name, m);
    for (; i < code.entries.size() && code.entries[i].member == m; ++i) {
      if (code.entries[i].kind == kind) print(code.entries[i]);
    }
  }
  return out;
}

}  // namespace nvct::compat
