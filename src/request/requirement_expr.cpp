#include "nvct/request/requirement_expr.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "nvct/base/strings.hpp"

namespace nvct::request {
namespace {

constexpr std::string_view kOperatorChars = "<>=!";
constexpr std::string_view kInvalid = "requirement error: invalid expression";

enum class Op { kEq, kNe, kLt, kLe, kGt, kGe };

// The first operator whose leading run.size() characters equal the run, in this order; so "!"
// alone is "!=", and "==", "=>" or "=<" match nothing (libnvidia-container's prefix match).
std::optional<Op> match_operator(std::string_view run) {
  static constexpr std::array<std::pair<std::string_view, Op>, 6> kOps = {{
      {"=", Op::kEq},
      {"!=", Op::kNe},
      {"<", Op::kLt},
      {"<=", Op::kLe},
      {">", Op::kGt},
      {">=", Op::kGe},
  }};
  if (run.empty()) return std::nullopt;
  for (const auto& [text, op] : kOps) {
    if (text.size() >= run.size() && text.substr(0, run.size()) == run) return op;
  }
  return std::nullopt;
}

bool apply(Op op, int cmp) {
  switch (op) {
    case Op::kEq:
      return cmp == 0;
    case Op::kNe:
      return cmp != 0;
    case Op::kLt:
      return cmp < 0;
    case Op::kLe:
      return cmp <= 0;
    case Op::kGt:
      return cmp > 0;
    case Op::kGe:
      return cmp >= 0;
  }
  return false;
}

bool only_digits_and_dots(std::string_view s) {
  for (char c : s) {
    if (!(c == '.' || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

// Leading zeros stripped, longer is larger, then lexical: no overflow on long components.
int compare_numbers(std::string_view a, std::string_view b) {
  while (!a.empty() && a.front() == '0') a.remove_prefix(1);
  while (!b.empty() && b.front() == '0') b.remove_prefix(1);
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

std::string_view take_digits(std::string_view& s) {
  std::size_t n = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
  std::string_view out = s.substr(0, n);
  s.remove_prefix(n);
  return out;
}

bool only_dots_and_zeros(std::string_view s) {
  return s.find_first_not_of(".0") == std::string_view::npos;
}

struct Context {
  const RequirementFacts& facts;
  const DeviceFacts* device;  // nullptr when no device is selected
  UnknownKey unknown;
};

// One KEY OP VALUE factor: true/false, or an invalid-expression error.
Result<bool> eval_factor(std::string_view factor, const Context& ctx) {
  auto op_start = factor.find_first_of(kOperatorChars);
  if (op_start == std::string_view::npos) return fail(std::string(kInvalid));
  auto op_end = factor.find_first_not_of(kOperatorChars, op_start);
  if (op_end == std::string_view::npos) op_end = factor.size();
  std::string key = strings::to_lower(factor.substr(0, op_start));
  auto op = match_operator(factor.substr(op_start, op_end - op_start));
  std::string_view value = factor.substr(op_end);
  if (!op || value.empty()) return fail(std::string(kInvalid));

  if (key == "brand") {
    if (*op != Op::kEq && *op != Op::kNe) return fail(std::string(kInvalid));
    if (!ctx.device || !ctx.device->brand) return true;
    bool equal = strings::to_lower(*ctx.device->brand) == strings::to_lower(value);
    return *op == Op::kEq ? equal : !equal;
  }
  const std::optional<std::string>* actual = nullptr;
  static const std::optional<std::string> kNoValue;
  if (key == "cuda") {
    actual = &ctx.facts.cuda_version;
  } else if (key == "driver") {
    actual = &ctx.facts.driver_version;
  } else if (key == "arch") {
    actual = ctx.device ? &ctx.device->arch : &kNoValue;
  } else {
    if (ctx.unknown == UnknownKey::kIgnore) return true;
    return fail(std::string(kInvalid));
  }
  if (!only_digits_and_dots(value)) return fail(std::string(kInvalid));
  if (!actual->has_value()) return true;
  auto cmp = compare_versions(**actual, value);
  if (!cmp) return fail(std::string(kInvalid));
  return apply(*op, *cmp);
}

// The space-separated terms that have at least one factor: a term made only of commas is empty
// and ignored, like an extra space.
std::vector<std::string> terms_of(std::string_view expression) {
  std::vector<std::string> out;
  for (auto& term : strings::split(expression, ' ')) {
    if (term.find_first_not_of(',') != std::string::npos) out.push_back(std::move(term));
  }
  return out;
}

// OR over the terms of AND'ed comma factors, stopping at the first term that passes; factors are
// parsed only when reached.
Result<bool> eval_terms(const std::vector<std::string>& terms, const Context& ctx) {
  for (const auto& term : terms) {
    bool all = true;
    for (const auto& factor : strings::split(term, ',')) {
      if (factor.empty()) continue;
      NVCT_ASSIGN_OR_RETURN(bool pass, eval_factor(factor, ctx));
      if (!pass) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

std::string unsatisfied_message(const std::string& first_term) {
  std::string message = fmt::format("requirement error: unsatisfied condition: {}", first_term);
  if (strings::starts_with(first_term, "cuda>=")) {
    message += ", please update your driver to a newer version, or use an earlier cuda container";
  }
  return message;
}

std::string fact_of(const std::string& key, const Context& ctx) {
  if (key == "cuda" && ctx.facts.cuda_version)
    return fmt::format("the driver supports CUDA {}", *ctx.facts.cuda_version);
  if (key == "driver" && ctx.facts.driver_version)
    return fmt::format("the driver is {}", *ctx.facts.driver_version);
  std::string gpu = "the GPU";
  if (ctx.device && ctx.device->model) gpu = "the " + *ctx.device->model;
  if (key == "arch" && ctx.device && ctx.device->arch)
    return fmt::format("{} has compute capability {}", gpu, *ctx.device->arch);
  if (key == "brand" && ctx.device && ctx.device->brand)
    return fmt::format("{} is brand {}", gpu, *ctx.device->brand);
  return "unknown";
}

// The first factor of `term` that fails, with the fact it was compared with.
std::optional<std::string> failing_factor(const std::string& term, const Context& ctx,
                                          std::optional<std::string>* failed_cuda) {
  for (const auto& factor : strings::split(term, ',')) {
    if (factor.empty()) continue;
    auto pass = eval_factor(factor, ctx);
    if (!pass || *pass) continue;
    auto op = factor.find_first_of(kOperatorChars);
    std::string key = strings::to_lower(factor.substr(0, op));
    if (failed_cuda && key == "cuda" && factor.compare(op, 1, ">") == 0) {
      auto value = factor.substr(factor.find_first_not_of(kOperatorChars, op));
      *failed_cuda = value;
    }
    return fmt::format("{} ({})", factor, fact_of(key, ctx));
  }
  return std::nullopt;
}

}  // namespace

UnsatisfiedDetail unsatisfied_detail(std::string_view expression, const RequirementFacts& facts,
                                     UnknownKey unknown) {
  UnsatisfiedDetail out;
  const std::vector<std::string> terms = terms_of(expression);
  if (terms.empty()) return out;
  auto describe = [&](const DeviceFacts* device) -> bool {
    Context ctx{facts, device, unknown};
    auto evaluated = eval_terms(terms, ctx);
    if (!evaluated || *evaluated) return false;
    std::vector<std::string> parts;
    for (std::size_t i = 0; i < terms.size(); ++i) {
      if (auto f = failing_factor(terms[i], ctx, i == 0 ? &out.failed_cuda : nullptr))
        parts.push_back(*f);
    }
    out.text = strings::join(parts, "; ");
    return true;
  };
  if (facts.devices.empty()) {
    describe(nullptr);
    return out;
  }
  for (const auto& device : facts.devices)
    if (describe(&device)) break;
  return out;
}

std::optional<std::string> first_failing(const std::vector<std::string>& expressions,
                                         const RequirementFacts& facts, UnknownKey unknown) {
  for (const auto& expression : expressions)
    if (!check_requirement(expression, facts, unknown)) return expression;
  return std::nullopt;
}

Result<int> compare_versions(std::string_view a, std::string_view b) {
  if (!only_digits_and_dots(a) || !only_digits_and_dots(b)) {
    return fail(fmt::format("cannot compare versions '{}' and '{}'", a, b));
  }
  while (!a.empty() && !b.empty()) {
    int c = compare_numbers(take_digits(a), take_digits(b));
    if (c != 0) return c;
    if (!a.empty() && a.front() == '.') a.remove_prefix(1);
    if (!b.empty() && b.front() == '.') b.remove_prefix(1);
  }
  bool a_rest = !only_dots_and_zeros(a);
  bool b_rest = !only_dots_and_zeros(b);
  if (a_rest == b_rest) return 0;
  return a_rest ? 1 : -1;
}

Status check_requirement(std::string_view expression, const RequirementFacts& facts,
                         UnknownKey unknown) {
  const std::vector<std::string> terms = terms_of(expression);
  // An expression without any term requires nothing.
  if (terms.empty()) return ok();
  auto check = [&](const DeviceFacts* device) -> Status {
    auto evaluated = eval_terms(terms, Context{facts, device, unknown});
    if (!evaluated) {
      // The reference's words first (users search for them), then the expression and its syntax.
      return fail(
          fmt::format("{}: '{}' (each factor is cuda, driver or arch with = != < <= > >= "
                      "and a version, or brand= / brand!= and a name; spaces separate "
                      "alternatives, commas join conditions)",
                      kInvalid, expression));
    }
    bool pass = *evaluated;
    if (!pass) return fail(unsatisfied_message(terms.front()));
    return ok();
  };
  if (facts.devices.empty()) return check(nullptr);
  for (const auto& device : facts.devices) NVCT_TRY(check(&device));
  return ok();
}

Status check_requirements(const std::vector<std::string>& expressions,
                          const RequirementFacts& facts, UnknownKey unknown) {
  for (const auto& expression : expressions)
    NVCT_TRY(check_requirement(expression, facts, unknown));
  return ok();
}

}  // namespace nvct::request
