#include "nvct/request/cdi_name.hpp"

#include <fmt/format.h>

namespace nvct::request {
namespace {

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_letter(c) || is_digit(c); }

Status validate_part(std::string_view what, std::string_view value, bool first_may_be_digit,
                     std::string_view extra) {
  if (value.empty()) return fail(fmt::format("invalid CDI {}: empty", what));
  char first = value.front();
  if (!(is_letter(first) || (first_may_be_digit && is_digit(first)))) {
    return fail(fmt::format("invalid CDI {} \"{}\": must start with a {}", what, value,
                            first_may_be_digit ? "letter or digit" : "letter"));
  }
  for (char c : value) {
    if (!is_alnum(c) && extra.find(c) == std::string_view::npos) {
      return fail(fmt::format("invalid CDI {} \"{}\": invalid character \"{}\"", what, value, c));
    }
  }
  if (!is_alnum(value.back())) {
    return fail(fmt::format("invalid CDI {} \"{}\": must end with a letter or digit", what, value));
  }
  return ok();
}

Status validate_vendor(std::string_view v) { return validate_part("vendor", v, false, "_-."); }
Status validate_class(std::string_view c) { return validate_part("class", c, false, "_-"); }
Status validate_name(std::string_view n) { return validate_part("device name", n, true, "_-.:"); }

}  // namespace

Result<QualifiedName> parse_qualified_name(std::string_view text) {
  auto slash = text.find('/');
  auto eq = text.find('=');
  if (slash == std::string_view::npos || eq == std::string_view::npos || eq < slash) {
    return fail(fmt::format("\"{}\" is not a qualified CDI device name (vendor/class=name)", text));
  }
  QualifiedName q{std::string(text.substr(0, slash)),
                  std::string(text.substr(slash + 1, eq - slash - 1)),
                  std::string(text.substr(eq + 1))};
  NVCT_TRY(validate_vendor(q.vendor));
  NVCT_TRY(validate_class(q.klass));
  NVCT_TRY(validate_name(q.name));
  return q;
}

bool is_qualified_name(std::string_view text) { return parse_qualified_name(text).has_value(); }

Status validate_kind(std::string_view kind) {
  auto slash = kind.find('/');
  if (slash == std::string_view::npos) {
    return fail(fmt::format("\"{}\" is not a CDI kind (vendor/class)", kind));
  }
  NVCT_TRY(validate_vendor(kind.substr(0, slash)));
  return validate_class(kind.substr(slash + 1));
}

}  // namespace nvct::request
