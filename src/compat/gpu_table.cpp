#include "nvct/compat/gpu_table.hpp"

#include <array>
#include <utility>

#include "nvct/base/strings.hpp"

namespace nvct::compat {
namespace {

// Model name fragments (lower case) of parts that support forward compatibility (§5.3): the
// data-center GPUs of each family and the Jetson boards. Matched as whole words of the NVML name.
constexpr std::string_view kCompatModels[] = {
    "k40",   "k80",   "m40",   "m60",  "p100", "p4",   "p40",  "v100", "t4",   "a100", "a30",
    "a800",  "a10",   "a16",   "a2",   "a40",  "l4",   "l40",  "l40s", "h100", "h200", "h800",
    "h20",   "gh200", "b200",  "gb200", "b300", "jetson", "orin", "xavier", "thor", "tesla",
};

bool has_word(std::string_view text, std::string_view word) {
  std::string lower = strings::to_lower(text);
  std::size_t pos = 0;
  auto is_word_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
  };
  while ((pos = lower.find(word, pos)) != std::string::npos) {
    bool start = pos == 0 || !is_word_char(lower[pos - 1]);
    std::size_t end = pos + word.size();
    bool stop = end >= lower.size() || !is_word_char(lower[end]);
    if (start && stop) return true;
    pos = end;
  }
  return false;
}

constexpr std::pair<std::string_view, std::string_view> kFamilies[] = {
    {"3.5", "Kepler"},    {"3.7", "Kepler"},    {"5.0", "Maxwell"},   {"5.2", "Maxwell"},
    {"5.3", "Maxwell"},   {"6.0", "Pascal"},    {"6.1", "Pascal"},    {"6.2", "Pascal"},
    {"7.0", "Volta"},     {"7.2", "Volta"},     {"7.5", "Turing"},    {"8.0", "Ampere"},
    {"8.6", "Ampere"},    {"8.7", "Ampere"},    {"8.9", "Ada"},       {"9.0", "Hopper"},
    {"10.0", "Blackwell"}, {"10.3", "Blackwell"}, {"11.0", "Blackwell"}, {"12.0", "Blackwell"},
    {"12.1", "Blackwell"},
};

}  // namespace

std::string_view to_string(Support s) {
  switch (s) {
    case Support::yes:
      return "yes";
    case Support::no:
      return "no";
    case Support::unknown:
      break;
  }
  return "unknown";
}

Support forward_compat_support(std::string_view brand, std::string_view model) {
  std::string b = strings::to_lower(brand);
  if (b == "tesla") return Support::yes;
  // Consumer parts never qualify, whatever their name says (GeForce RTX 3090, TITAN RTX).
  if (strings::starts_with(b, "geforce") || strings::starts_with(b, "titan") ||
      has_word(model, "geforce") || has_word(model, "titan"))
    return Support::no;
  for (auto word : kCompatModels)
    if (has_word(model, word)) return Support::yes;
  return Support::unknown;
}

std::string_view family_of(std::string_view arch) {
  std::string cc(arch);
  if (strings::starts_with(cc, "sm_") || strings::starts_with(cc, "compute_")) {
    std::string digits = cc.substr(cc.find('_') + 1);
    while (!digits.empty() && !strings::is_ascii_digit(digits.back())) digits.pop_back();
    if (digits.size() < 2) return "";
    cc = digits.substr(0, digits.size() - 1) + "." + digits.back();
  }
  for (const auto& [key, name] : kFamilies)
    if (!key.empty() && key == cc) return name;
  return "";
}

}  // namespace nvct::compat
