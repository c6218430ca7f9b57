#include "nvct/ctk/containerd_config.hpp"

#include <fmt/format.h>

#include "nvct/base/strings.hpp"
#include "nvct/ctk/toml_text.hpp"

namespace nvct::ctk {

namespace {

constexpr std::string_view kRuncV2 = "io.containerd.runc.v2";

toml::table stock_runtime() {
  toml::table t;
  t.insert_or_assign("privileged_without_host_devices", false);
  t.insert_or_assign("runtime_engine", "");
  t.insert_or_assign("runtime_root", "");
  t.insert_or_assign("runtime_type", std::string(kRuncV2));
  return t;
}

}  // namespace

std::string containerd_cri_plugin(int version) {
  if (version <= 1) return "cri";
  if (version == 2) return "io.containerd.grpc.v1.cri";
  return "io.containerd.cri.v1.runtime";
}

ContainerdConfig::ContainerdConfig(toml::table tree, int version)
    : tree_(std::move(tree)), version_(version), cri_(containerd_cri_plugin(version)) {}

Result<ContainerdConfig> ContainerdConfig::parse(std::string_view text, std::string_view origin) {
  NVCT_ASSIGN_OR_RETURN(auto tree, parse_toml(text, origin));
  return from_tree(std::move(tree), origin);
}

Result<ContainerdConfig> ContainerdConfig::from_tree(toml::table tree, std::string_view origin) {
  int version = 1;
  if (tree.empty()) {
    version = kContainerdDefaultVersion;
  } else if (const toml::node* v = tree.get("version")) {
    if (!v->is_integer())
      return fail(EINVAL, fmt::format("{}: \"version\" must be an integer", origin));
    auto n = v->as_integer()->get();
    if (n < 1 || n > 3)
      return fail(EINVAL, fmt::format("{}: unsupported config version {} (1, 2 and 3 are known)",
                                      origin, n));
    version = static_cast<int>(n);
  }
  ContainerdConfig config(std::move(tree), version);
  // Type-check every table an edit walks, before any edit.
  for (auto path : {std::initializer_list<std::string_view>{"plugins"},
                    {"plugins", config.cri_},
                    {"plugins", config.cri_, "containerd"},
                    {"plugins", config.cri_, "containerd", "runtimes"}}) {
    if (auto r = config.table_at(path, false); !r) return tl::unexpected(r.error().context(origin));
  }
  if (const auto* c = config.find_table({"plugins", config.cri_, "containerd"})) {
    if (const toml::node* d = c->get("default_runtime_name"); d && !d->is_string())
      return fail(EINVAL, fmt::format("{}: \"default_runtime_name\" must be a string", origin));
  }
  return config;
}

Result<toml::table*> ContainerdConfig::table_at(std::initializer_list<std::string_view> path,
                                                bool create) {
  toml::table* cur = &tree_;
  std::vector<std::string_view> walked;
  for (auto key : path) {
    walked.push_back(key);
    toml::node* next = cur->get(key);
    if (next == nullptr) {
      if (!create) return nullptr;
      cur->insert_or_assign(key, toml::table{});
      next = cur->get(key);
    }
    if (!next->is_table())
      return fail(EINVAL, fmt::format("\"{}\" must be a table", fmt::join(walked, ".")));
    cur = next->as_table();
  }
  return cur;
}

const toml::table* ContainerdConfig::find_table(
    std::initializer_list<std::string_view> path) const {
  const toml::table* cur = &tree_;
  for (auto key : path) {
    const toml::node* next = cur->get(key);
    if (next == nullptr || !next->is_table()) return nullptr;
    cur = next->as_table();
  }
  return cur;
}

Status ContainerdConfig::add_runtime(const std::string& name, const std::string& path,
                                     bool set_as_default) {
  if (name.empty()) return fail(EINVAL, "add runtime: the runtime name is empty");
  NVCT_ASSIGN_OR_RETURN(toml::table * containerd, table_at({"plugins", cri_, "containerd"}, true));
  NVCT_ASSIGN_OR_RETURN(toml::table * runtimes,
                        table_at({"plugins", cri_, "containerd", "runtimes"}, true));

  std::string default_name = containerd->get_as<std::string>("default_runtime_name")
                                 ? containerd->get_as<std::string>("default_runtime_name")->get()
                                 : std::string();
  // Whether containerd's built-in runc handler is in effect before the edit (see below).
  const bool builtin_runc = default_name.empty() || default_name == "runc";
  toml::table entry = stock_runtime();
  std::vector<std::string> candidates;
  if (!default_name.empty() && !strings::starts_with(default_name, "nvidia"))
    candidates.push_back(default_name);
  candidates.insert(candidates.end(), {"runc", "crun"});
  for (const auto& candidate : candidates) {
    if (const auto* source = runtimes->get_as<toml::table>(candidate)) {
      entry = *source;  // deep copy: keeps SystemdCgroup and every other option
      break;
    }
  }
  // containerd refuses a runtime without a type ("container.Runtime.Name must be set").
  const auto* type = entry.get_as<std::string>("runtime_type");
  if (type == nullptr || type->get().empty()) entry.insert_or_assign("runtime_type", kRuncV2);

  toml::node* options = entry.get("options");
  if (options != nullptr && !options->is_table())
    return fail(
        EINVAL,
        fmt::format("add runtime {}: \"options\" of the copied runtime is not a table", name));
  if (options == nullptr) {
    entry.insert_or_assign("options", toml::table{});
    options = entry.get("options");
  }
  options->as_table()->insert_or_assign("BinaryName", path);
  if (version_ == 1) options->as_table()->insert_or_assign("Runtime", path);
  runtimes->insert_or_assign(name, std::move(entry));

  if (set_as_default) {
    containerd->insert_or_assign("default_runtime_name", name);
  } else if (default_name == name) {
    containerd->erase("default_runtime_name");
  }
  // nvct, not the reference: containerd 1.x decodes the CRI section into a fresh `runtimes` map,
  // so a file whose runtimes table lacks `runc` drops containerd's built-in default runtime, and
  // with `default_runtime_name` unset (or "runc") the CRI plugin then fails to load ("no
  // corresponding runtime configured in containerd.runtimes"): every pod of the node dies. Debian's
  // stock config.toml and a missing file both end that way, so the built-in runc entry is written
  // beside ours. With --set-as-default the plugin would load, but the `runc` handler (a
  // RuntimeClass's, or crictl's --runtime runc) would be gone: written then too.
  const auto* effective = containerd->get_as<std::string>("default_runtime_name");
  const bool runc_default_now = effective == nullptr || effective->get() == "runc";
  if (version_ == 2 && (builtin_runc || runc_default_now) && !runtimes->contains("runc"))
    runtimes->insert_or_assign("runc", stock_runtime());
  return ok();
}

Status ContainerdConfig::enable_cdi() {
  auto target = version_ == 1 ? table_at({"plugins", cri_, "containerd"}, true)
                              : table_at({"plugins", cri_}, true);
  if (!target) return tl::unexpected(target.error());
  (*target)->insert_or_assign("enable_cdi", true);
  return ok();
}

Status ContainerdConfig::remove_runtime(const std::string& name) {
  NVCT_ASSIGN_OR_RETURN(toml::table * containerd, table_at({"plugins", cri_, "containerd"}, false));
  if (containerd == nullptr) return ok();
  if (auto* runtimes = containerd->get_as<toml::table>("runtimes")) {
    runtimes->erase(name);
    // The built-in runc entry that add_runtime wrote beside ours goes with it once it is the
    // last one (containerd's default is that very entry).
    const auto* runc = runtimes->get_as<toml::table>("runc");
    if (version_ == 2 && runtimes->size() == 1 && runc != nullptr && *runc == stock_runtime())
      runtimes->erase("runc");
    if (runtimes->empty()) containerd->erase("runtimes");
  }
  if (const auto* d = containerd->get_as<std::string>("default_runtime_name");
      d && d->get() == name)
    containerd->insert_or_assign("default_runtime_name", "runc");
  // Prune the tables that the edit emptied, innermost first.
  auto* cri = tree_.get_as<toml::table>("plugins")->get_as<toml::table>(cri_);
  if (containerd->empty()) cri->erase("containerd");
  auto* plugins = tree_.get_as<toml::table>("plugins");
  if (cri->empty()) plugins->erase(cri_);
  if (plugins->empty()) tree_.erase("plugins");
  if (tree_.size() == 1 && tree_.contains("version")) tree_.erase("version");
  return ok();
}

bool ContainerdConfig::has_runtime(const std::string& name) const {
  const auto* runtimes = find_table({"plugins", cri_, "containerd", "runtimes"});
  return runtimes != nullptr && runtimes->contains(name);
}

std::string ContainerdConfig::runtime_binary(const std::string& name) const {
  const auto* runtimes = find_table({"plugins", cri_, "containerd", "runtimes"});
  if (runtimes == nullptr) return "";
  const auto* runtime = runtimes->get_as<toml::table>(name);
  if (runtime == nullptr) return "";
  const auto* options = runtime->get_as<toml::table>("options");
  if (options == nullptr) return "";
  const auto* binary = options->get_as<std::string>("BinaryName");
  if (binary == nullptr || binary->get().empty())
    binary = options->get_as<std::string>("Runtime");  // io.containerd.runtime.v1.linux
  return binary ? binary->get() : "";
}

ContainerdConfig ContainerdConfig::drop_in_base() const {
  toml::table tree;
  tree.insert_or_assign("version", static_cast<int64_t>(version_));
  if (const auto* cri = find_table({"plugins", cri_})) {
    toml::table plugins;
    plugins.insert_or_assign(cri_, *cri);
    tree.insert_or_assign("plugins", std::move(plugins));
  }
  return ContainerdConfig(std::move(tree), version_);
}

Status ContainerdConfig::add_import(toml::table& top_level, const std::string& pattern,
                                    int version) {
  if (top_level.empty()) top_level.insert_or_assign("version", static_cast<int64_t>(version));
  toml::node* imports = top_level.get("imports");
  if (imports == nullptr) {
    top_level.insert_or_assign("imports", toml::array{});
    imports = top_level.get("imports");
  }
  auto* list = imports->as_array();
  if (list == nullptr) return fail(EINVAL, "\"imports\" must be an array of strings");
  for (const auto& item : *list) {
    if (!item.is_string()) return fail(EINVAL, "\"imports\" must be an array of strings");
    if (item.as_string()->get() == pattern) return ok();
  }
  list->push_back(pattern);
  return ok();
}

std::string ContainerdConfig::serialize() {
  if (!tree_.empty()) tree_.insert_or_assign("version", static_cast<int64_t>(version_));
  return write_toml(tree_);
}

}  // namespace nvct::ctk
