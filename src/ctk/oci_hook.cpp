#include "nvct/ctk/oci_hook.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "nvct/base/strings.hpp"

namespace nvct::ctk {

Result<std::string> oci_hook_json(const std::string& hook_path) {
  if (hook_path.empty() || hook_path.front() != '/')
    return fail(EINVAL, fmt::format("the NVIDIA Container Runtime hook path \"{}\" is not an "
                                    "absolute path",
                                    hook_path));
  std::string name(strings::basename(hook_path));
  if (name.empty())
    return fail(EINVAL, fmt::format("the hook path \"{}\" does not name a file", hook_path));
  std::string dir = hook_path.substr(0, hook_path.size() - name.size());
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();

  std::string env_path = kOciHookPath;
  bool listed = false;
  for (const auto& entry : strings::split(std::string_view(env_path).substr(5), ':'))
    if (entry == dir) listed = true;
  if (!listed) env_path += ":" + dir;

  using nlohmann::ordered_json;
  ordered_json hook = ordered_json::object();
  hook["path"] = hook_path;
  hook["args"] = ordered_json::array({name, "prestart"});
  hook["env"] = ordered_json::array({env_path});
  ordered_json when = ordered_json::object();
  when["always"] = true;
  when["commands"] = ordered_json::array({".*"});
  ordered_json doc = ordered_json::object();
  doc["version"] = "1.0.0";
  doc["hook"] = std::move(hook);
  doc["when"] = std::move(when);
  doc["stages"] = ordered_json::array({"prestart"});
  return doc.dump(2) + "\n";
}

}  // namespace nvct::ctk
