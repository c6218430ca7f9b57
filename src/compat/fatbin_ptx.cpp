// PTX text: only the `.version` and `.target` directives near the top are read (§3.1).
#include <cctype>

#include "fatbin_scan.hpp"

namespace nvct::compat::detail {

namespace {

std::string_view ptx_trim_left(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  return s;
}

bool ptx_parse_uint(std::string_view& s, std::uint32_t* out) {
  std::uint32_t v = 0;
  std::size_t i = 0;
  for (; i < s.size() && i < 6 && std::isdigit(static_cast<unsigned char>(s[i])); ++i)
    v = v * 10 + (s[i] - '0');
  if (i == 0) return false;
  s.remove_prefix(i);
  *out = v;
  return true;
}

}  // namespace

std::optional<PtxHead> parse_ptx_head(std::string_view text) {
  PtxHead head;
  while (!text.empty() && !(head.has_version && head.has_target)) {
    std::size_t nl = text.find('\n');
    std::string_view line = ptx_trim_left(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (!head.has_version && line.starts_with(".version")) {
      std::string_view v = ptx_trim_left(line.substr(8));
      std::uint32_t major = 0, minor = 0;
      if (ptx_parse_uint(v, &major) && !v.empty() && v.front() == '.') {
        v.remove_prefix(1);
        if (ptx_parse_uint(v, &minor) && major < 100 && minor < 100) {
          head.isa_major = static_cast<std::uint16_t>(major);
          head.isa_minor = static_cast<std::uint16_t>(minor);
          head.has_version = true;
        }
      }
    } else if (!head.has_target && line.starts_with(".target")) {
      std::string_view t = ptx_trim_left(line.substr(7));
      // `.target sm_90a, debug`, `.target compute_80` (old spelling); the first entry is the arch.
      if (t.starts_with("sm_"))
        t.remove_prefix(3);
      else if (t.starts_with("compute_"))
        t.remove_prefix(8);
      else
        continue;
      std::uint32_t arch = 0;
      if (!ptx_parse_uint(t, &arch)) continue;
      head.arch = arch;
      head.arch_specific = !t.empty() && t.front() == 'a';
      head.has_target = true;
    }
  }
  if (!head.has_version || !head.has_target) return std::nullopt;
  return head;
}

}  // namespace nvct::compat::detail
