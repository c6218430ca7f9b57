// Error and Result: how every nvct library reports failure (design.md, "Error handling").
#pragma once

#include <cerrno>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <tl/expected.hpp>

namespace nvct {

// An errno-style code and a message that grows context on the way up, outermost first:
// "mount /usr/lib/libcuda.so.1: open target in rootfs: too many levels of symbolic links".
class Error {
 public:
  Error() = default;
  Error(int code, std::string message) : code_(code), message_(std::move(message)) {}

  int code() const { return code_; }
  const std::string& message() const { return message_; }

  // Prepends "<what>: " to the message.
  Error& context(std::string_view what) & {
    message_ = fmt::format("{}: {}", what, message_);
    return *this;
  }
  Error&& context(std::string_view what) && { return std::move(context(what)); }

 private:
  int code_ = EINVAL;
  std::string message_;
};

template <class T>
using Result = tl::expected<T, Error>;
using Status = Result<void>;

inline tl::unexpected<Error> fail(int code, std::string message) {
  return tl::unexpected<Error>(Error(code, std::move(message)));
}
inline tl::unexpected<Error> fail(std::string message) { return fail(EINVAL, std::move(message)); }

// "<what>: <strerror(err)>" with code err.
tl::unexpected<Error> fail_errno(std::string_view what, int err = errno);

inline Status ok() { return {}; }

// Adds context to the error of a Result, if any.
template <class T>
Result<T> with_context(Result<T> r, std::string_view what) {
  if (!r) r.error().context(what);
  return r;
}

}  // namespace nvct

// Returns the error of a Status/Result expression from the enclosing function.
#define NVCT_TRY(expr)                                                   \
  do {                                                                   \
    auto&& nvct_try_r_ = (expr);                                         \
    if (!nvct_try_r_) return tl::unexpected(std::move(nvct_try_r_).error()); \
  } while (0)

#define NVCT_CONCAT_INNER_(a, b) a##b
#define NVCT_CONCAT_(a, b) NVCT_CONCAT_INNER_(a, b)
// NVCT_ASSIGN_OR_RETURN(auto x, f()); declares x from the value or returns the error.
#define NVCT_ASSIGN_OR_RETURN(decl, expr) \
  NVCT_ASSIGN_OR_RETURN_IMPL_(NVCT_CONCAT_(nvct_r_, __LINE__), decl, expr)
#define NVCT_ASSIGN_OR_RETURN_IMPL_(tmp, decl, expr)            \
  auto tmp = (expr);                                            \
  if (!tmp) return tl::unexpected(std::move(tmp).error());      \
  decl = std::move(*tmp)
