// The requirement language of NVIDIA_REQUIRE_* and --require. Input: a first line of facts
// "cuda driver arch brand model" (space separated, "-" for unknown) and the expression after it.
#include "fuzz_common.hpp"
#include "nvct/request/requirement_expr.hpp"
#include "nvct/request/requirements.hpp"

using namespace nvct;

NVCT_FUZZ_TARGET {
  auto [head, expression] = fuzz::split_head(fuzz::as_text(data, size));
  std::vector<std::string> facts_words;
  for (auto& line : fuzz::split_lines(head)) {
    std::string_view rest = line;
    while (!rest.empty()) {
      auto sp = rest.find(' ');
      facts_words.emplace_back(rest.substr(0, sp));
      if (sp == std::string_view::npos) break;
      rest.remove_prefix(sp + 1);
    }
  }
  auto fact = [&](std::size_t i) -> std::optional<std::string> {
    if (i >= facts_words.size() || facts_words[i] == "-") return std::nullopt;
    return facts_words[i];
  };
  request::RequirementFacts facts;
  facts.cuda_version = fact(0);
  facts.driver_version = fact(1);
  if (fact(2) || fact(3) || fact(4)) {
    request::DeviceFacts device;
    device.arch = fact(2);
    device.brand = fact(3);
    device.model = fact(4);
    facts.devices.push_back(device);
  }
  for (auto unknown : {request::UnknownKey::kInvalid, request::UnknownKey::kIgnore})
    (void)request::check_requirement(expression, facts, unknown);
  if (facts.cuda_version) {
    (void)request::compare_versions(*facts.cuda_version, expression);
    (void)request::cuda_major_minor(*facts.cuda_version);
  }
  (void)request::parse_go_bool(expression);
  return 0;
}
