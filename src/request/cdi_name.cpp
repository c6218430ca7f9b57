// CDI name parsing. The character rules are the CDI parser's; the lengths the spec text mentions
// (DNS subdomain <= 253, name <= 63) are not checked, as the reference library does not.
#include "nvct/request/cdi_name.hpp"
#include "nvct/base/strings.hpp"

#include <fmt/format.h>

namespace nvct::request {
namespace {

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_alnum(char c) { return is_letter(c) || strings::is_ascii_digit(c); }

// Shared vendor/class rule; `what` names the part in the message.
Status validate_vendor_like(std::string_view text, std::string_view what) {
  if (text.empty()) return fail(fmt::format("invalid {} \"\": empty", what));
  if (!is_letter(text.front())) {
    return fail(fmt::format("invalid {} \"{}\", should start with a letter", what, text));
  }
  if (!is_alnum(text.back())) {
    return fail(fmt::format("invalid {} \"{}\", should end with a letter or digit", what, text));
  }
  for (std::size_t i = 1; i + 1 < text.size(); ++i) {
    char c = text[i];
    if (!is_alnum(c) && c != '_' && c != '-' && c != '.') {
      return fail(fmt::format("invalid character '{}' in {} \"{}\"", c, what, text));
    }
  }
  return ok();
}

}  // namespace

QualifiedName split_qualified_name(std::string_view text) {
  QualifiedName out;
  if (!text.empty() && text.front() == '/') {
    out.name = std::string(text);
    return out;
  }
  auto eq = text.find('=');
  if (eq == std::string_view::npos) {
    out.name = std::string(text);
    return out;
  }
  std::string_view kind = text.substr(0, eq);
  out.name = std::string(text.substr(eq + 1));
  auto slash = kind.find('/');
  if (slash == std::string_view::npos) {
    out.klass = std::string(kind);
  } else {
    out.vendor = std::string(kind.substr(0, slash));
    out.klass = std::string(kind.substr(slash + 1));
  }
  return out;
}

Status validate_vendor(std::string_view vendor) { return validate_vendor_like(vendor, "vendor"); }
Status validate_class(std::string_view klass) { return validate_vendor_like(klass, "class"); }

Status validate_device_name(std::string_view name) {
  if (name.empty()) return fail("invalid (empty) device name");
  if (!is_alnum(name.front())) {
    return fail(fmt::format("invalid name \"{}\", should start with a letter or digit", name));
  }
  if (!is_alnum(name.back())) {
    return fail(fmt::format("invalid name \"{}\", should end with a letter or digit", name));
  }
  for (std::size_t i = 1; i + 1 < name.size(); ++i) {
    char c = name[i];
    if (!is_alnum(c) && c != '_' && c != '-' && c != '.' && c != ':') {
      return fail(fmt::format("invalid character '{}' in device name \"{}\"", c, name));
    }
  }
  return ok();
}

Status validate_kind(std::string_view kind) {
  auto slash = kind.find('/');
  if (slash == std::string_view::npos) {
    return fail(fmt::format("invalid kind \"{}\", expected vendor/class", kind));
  }
  NVCT_TRY(with_context(validate_vendor(kind.substr(0, slash)), fmt::format("kind {}", kind)));
  NVCT_TRY(with_context(validate_class(kind.substr(slash + 1)), fmt::format("kind {}", kind)));
  return ok();
}

Result<QualifiedName> parse_qualified_name(std::string_view text) {
  QualifiedName q = split_qualified_name(text);
  auto check = [&]() -> Status {
    if (q.vendor.empty()) return fail("unqualified device, missing vendor");
    if (q.klass.empty()) return fail("unqualified device, missing class");
    if (q.name.empty()) return fail("unqualified device, missing device name");
    NVCT_TRY(validate_vendor(q.vendor));
    NVCT_TRY(validate_class(q.klass));
    NVCT_TRY(validate_device_name(q.name));
    return ok();
  };
  auto status = check();
  if (!status) {
    return tl::unexpected(
        std::move(status).error().context(fmt::format("invalid CDI device name \"{}\"", text)));
  }
  return q;
}

bool is_qualified_name(std::string_view text) { return parse_qualified_name(text).has_value(); }

std::string spec_file_stem(std::string_view vendor, std::string_view klass) {
  return fmt::format("{}-{}", vendor, klass);
}

}  // namespace nvct::request
