#include "nvct/driver/nvml_memo.hpp"

#include <map>
#include <memory>
#include <utility>

namespace nvct::driver {

NvmlQuery memoized_nvml_query(NvmlQuery inner) {
  auto answers = std::make_shared<std::map<std::pair<std::string, std::string>, NvmlFacts>>();
  return [inner = std::move(inner), answers](const DriverRoot& root,
                                             const std::string& library) -> Result<NvmlFacts> {
    auto key = std::make_pair(root.path(), library);
    if (auto it = answers->find(key); it != answers->end()) return it->second;
    auto facts = inner(root, library);
    if (facts) answers->emplace(std::move(key), *facts);
    return facts;
  };
}

}  // namespace nvct::driver
