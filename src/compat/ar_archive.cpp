// `ar` archives (static libraries of host objects with device code): the common format with GNU
// ("name/", "/123" into the "//" table) and BSD ("#1/len") member names. Each member is scanned
// as a file of its own, one nesting level deeper (§7).
#include <algorithm>
#include <cctype>
#include <cstring>

#include <fmt/format.h>

#include "fatbin_scan.hpp"

namespace nvct::compat::detail {

namespace {

constexpr std::uint64_t kArMagicSize = 8;
constexpr std::uint64_t kArHeader = 60;
constexpr std::size_t kArMaxName = 4096;

// A decimal field of an ar header (space padded); nullopt when it is not a number.
std::optional<std::uint64_t> ar_decimal(std::string_view f) {
  while (!f.empty() && f.back() == ' ') f.remove_suffix(1);
  if (f.empty() || f.size() > 19) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : f) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

std::string ar_trim(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

bool scan_archive(ScanState& st, const Window& w) {
  if (st.depth == 0) st.out->kind = FileKind::archive;
  std::optional<Window> long_names;
  std::uint64_t pos = kArMagicSize;
  std::uint64_t members = 0;
  const std::string outer_member = st.member;
  while (pos < w.size) {
    const std::uint64_t left = w.size - pos;
    if (left < kArHeader) {
      std::string rest = w.read_some(pos, left);
      if (std::all_of(rest.begin(), rest.end(), [](char c) { return c == '\n' || c == 0; })) break;
      return st.malformed(w.base + pos,
                          fmt::format("ar member header at file offset {} is truncated "
                                      "({} of 60 bytes)",
                                      hex(w.base + pos), left));
    }
    char h[kArHeader];
    if (!w.read(pos, h, kArHeader))
      return st.malformed(w.base + pos, "ar member header cannot be read");
    if (h[58] != '`' || h[59] != '\n') {
      return st.malformed(w.base + pos, fmt::format("ar member header at file offset {} lacks the "
                                                    "\"`\\n\" terminator",
                                                    hex(w.base + pos)));
    }
    const auto size = ar_decimal(std::string_view(h + 48, 10));
    if (!size) {
      return st.malformed(w.base + pos,
                          fmt::format("ar member header at file offset {} has a size "
                                      "field that is not a number: \"{}\"",
                                      hex(w.base + pos), ar_trim(std::string_view(h + 48, 10))));
    }
    std::uint64_t data = pos + kArHeader;
    if (!in_range(data, *size, w.size)) {
      return st.malformed(w.base + pos,
                          fmt::format("ar member at file offset {} declares {} bytes, past the end "
                                      "of the archive ({})",
                                      hex(w.base + pos), *size, hex(w.base + w.size)));
    }
    if (++members > st.limits->max_archive_members) {
      return st.malformed(w.base + pos, fmt::format("ar archive has more than {} members (limit)",
                                                    st.limits->max_archive_members));
    }
    std::uint64_t data_size = *size;
    std::string name = ar_trim(std::string_view(h, 16));
    std::uint64_t next = data + *size;
    next += next & 1;  // members are 2-byte aligned
    if (name == "/" || name == "/SYM64/" || name == "__.SYMDEF" || name == "__.SYMDEF SORTED") {
      pos = next;  // symbol table
      continue;
    }
    if (name == "//") {
      long_names = w.sub(data, *size);
      pos = next;
      continue;
    }
    if (name.size() > 1 && name[0] == '/' && std::isdigit(static_cast<unsigned char>(name[1]))) {
      auto off = ar_decimal(name.substr(1));
      if (!off || !long_names || *off >= long_names->size) {
        return st.malformed(w.base + pos, fmt::format("ar member at file offset {} refers to long "
                                                      "name {} outside the \"//\" table",
                                                      hex(w.base + pos), name));
      }
      std::string n = long_names->read_some(*off, kArMaxName);
      name = n.substr(0, std::min(n.find("/\n"), n.find('\n')));
    } else if (name.starts_with("#1/")) {
      auto len = ar_decimal(name.substr(3));
      if (!len || *len > data_size || *len > kArMaxName) {
        return st.malformed(w.base + pos, fmt::format("ar member at file offset {} has a BSD name "
                                                      "length {} larger than the member",
                                                      hex(w.base + pos), name.substr(3)));
      }
      name = w.read_some(data, static_cast<std::size_t>(*len));
      name.resize(std::strlen(name.c_str()));
      data += *len;
      data_size -= *len;
    } else if (!name.empty() && name.back() == '/') {
      name.pop_back();
    }
    if (st.depth + 1 > st.limits->max_depth) {
      return st.malformed(w.base + pos, fmt::format("ar member {} at file offset {} is nested "
                                                    "deeper than {} levels (limit)",
                                                    name, hex(w.base + pos), st.limits->max_depth));
    }
    st.member = outer_member.empty() ? name : outer_member + ":" + name;
    st.out->members.push_back(st.member);
    ++st.depth;
    const bool ok = scan_window(st, w.sub(data, data_size));
    --st.depth;
    st.member = outer_member;
    if (!ok) return false;
    pos = next;
  }
  return true;
}

}  // namespace nvct::compat::detail
