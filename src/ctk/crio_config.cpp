#include "nvct/ctk/crio_config.hpp"

#include <fmt/format.h>

#include <vector>

#include "nvct/base/strings.hpp"
#include "nvct/ctk/toml_text.hpp"

namespace nvct::ctk {

namespace {

// Walks (and with create, makes) crio.runtime[.runtimes]; a non-table on the way is an error.
Result<toml::table*> walk(toml::table& root, std::initializer_list<std::string_view> path,
                          bool create) {
  toml::table* cur = &root;
  std::string walked;
  for (auto key : path) {
    walked += (walked.empty() ? "" : ".") + std::string(key);
    toml::node* next = cur->get(key);
    if (next == nullptr) {
      if (!create) return nullptr;
      cur->insert_or_assign(key, toml::table{});
      next = cur->get(key);
    }
    if (!next->is_table()) return fail(EINVAL, fmt::format("\"{}\" must be a table", walked));
    cur = next->as_table();
  }
  return cur;
}

}  // namespace

Result<CrioConfig> CrioConfig::parse(std::string_view source_text, std::string_view origin,
                                     bool in_place) {
  NVCT_ASSIGN_OR_RETURN(auto source, parse_toml(source_text, origin));
  auto runtimes = walk(source, {"crio", "runtime", "runtimes"}, false);
  if (!runtimes) return tl::unexpected(runtimes.error().context(origin));
  NVCT_ASSIGN_OR_RETURN(toml::table * runtime, walk(source, {"crio", "runtime"}, false));
  if (runtime != nullptr) {
    if (const auto* d = runtime->get("default_runtime"); d && !d->is_string())
      return fail(EINVAL,
                  fmt::format("{}: \"crio.runtime.default_runtime\" must be a string", origin));
  }
  toml::table destination = in_place ? source : toml::table{};
  return CrioConfig(std::move(source), std::move(destination));
}

Status CrioConfig::add_runtime(const std::string& name, const std::string& path,
                               bool set_as_default) {
  if (name.empty()) return fail(EINVAL, "add runtime: the runtime name is empty");
  NVCT_ASSIGN_OR_RETURN(toml::table * source_runtime, walk(source_, {"crio", "runtime"}, false));
  toml::table entry;
  if (source_runtime != nullptr) {
    std::vector<std::string> candidates;
    if (const auto* d = source_runtime->get_as<std::string>("default_runtime");
        d && !d->get().empty() && !strings::starts_with(d->get(), "nvidia"))
      candidates.push_back(d->get());
    candidates.insert(candidates.end(), {"runc", "crun"});
    if (const auto* handlers = source_runtime->get_as<toml::table>("runtimes")) {
      for (const auto& candidate : candidates) {
        if (const auto* handler = handlers->get_as<toml::table>(candidate)) {
          entry = *handler;
          break;
        }
      }
    }
  }
  entry.insert_or_assign("runtime_path", path);
  entry.insert_or_assign("runtime_type", "oci");

  NVCT_ASSIGN_OR_RETURN(toml::table * runtimes,
                        walk(destination_, {"crio", "runtime", "runtimes"}, true));
  runtimes->insert_or_assign(name, std::move(entry));
  if (set_as_default) {
    NVCT_ASSIGN_OR_RETURN(toml::table * runtime, walk(destination_, {"crio", "runtime"}, true));
    runtime->insert_or_assign("default_runtime", name);
  }
  return ok();
}

Status CrioConfig::remove_runtime(const std::string& name) {
  NVCT_ASSIGN_OR_RETURN(toml::table * runtime, walk(destination_, {"crio", "runtime"}, false));
  if (runtime == nullptr) return ok();
  NVCT_ASSIGN_OR_RETURN(toml::table * runtimes,
                        walk(destination_, {"crio", "runtime", "runtimes"}, false));
  if (runtimes != nullptr) {
    runtimes->erase(name);
    if (runtimes->empty()) runtime->erase("runtimes");
  }
  if (const auto* d = runtime->get_as<std::string>("default_runtime"); d && d->get() == name) {
    const auto* left = runtime->get_as<toml::table>("runtimes");
    if (left != nullptr && left->contains("runc"))
      runtime->insert_or_assign("default_runtime", "runc");
    else
      runtime->erase("default_runtime");
  }
  auto* crio = destination_.get_as<toml::table>("crio");
  if (runtime->empty()) crio->erase("runtime");
  if (crio->empty()) destination_.erase("crio");
  return ok();
}

namespace {

const toml::table* source_handlers(const toml::table& source) {
  const auto* crio = source.get_as<toml::table>("crio");
  const auto* runtime = crio ? crio->get_as<toml::table>("runtime") : nullptr;
  return runtime ? runtime->get_as<toml::table>("runtimes") : nullptr;
}

}  // namespace

bool CrioConfig::has_runtime(const std::string& name) const {
  const auto* runtimes = source_handlers(source_);
  return runtimes != nullptr && runtimes->contains(name);
}

std::string CrioConfig::runtime_path(const std::string& name) const {
  const auto* runtimes = source_handlers(source_);
  const auto* handler = runtimes ? runtimes->get_as<toml::table>(name) : nullptr;
  const auto* p = handler ? handler->get_as<std::string>("runtime_path") : nullptr;
  return p ? p->get() : "";
}

std::string CrioConfig::serialize() const { return write_toml(destination_); }

}  // namespace nvct::ctk
