// Conversions between the toml++ tree of a config file and Config, driven by the key table.
#include "toml_tree.hpp"

#include <fmt/format.h>

#include "nvct/base/strings.hpp"
#include "nvct/config/schema.hpp"

namespace nvct::config {
namespace {

template <class... Fs>
struct Overloaded : Fs... {
  using Fs::operator()...;
};
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

Error type_error(std::string_view key, ValueKind kind) {
  return Error(EINVAL, fmt::format("{}: expected {}", key, kind_name(kind)));
}

Result<std::vector<std::string>> string_list(const toml::node& node, std::string_view key) {
  const toml::array* array = node.as_array();
  if (array == nullptr) return tl::unexpected(type_error(key, ValueKind::kStringList));
  std::vector<std::string> out;
  for (const toml::node& item : *array) {
    const auto* s = item.as_string();
    if (s == nullptr) return tl::unexpected(type_error(key, ValueKind::kStringList));
    out.push_back(s->get());
  }
  return out;
}

Status assign(const toml::node& node, const KeySpec& spec, Config& config) {
  FieldRef field = spec.field(config);
  switch (spec.kind) {
    case ValueKind::kBool: {
      const auto* b = node.as_boolean();
      if (b == nullptr) return tl::unexpected(type_error(spec.name, spec.kind));
      *std::get<bool*>(field) = b->get();
      return ok();
    }
    case ValueKind::kString: {
      const auto* s = node.as_string();
      if (s == nullptr) return tl::unexpected(type_error(spec.name, spec.kind));
      std::visit(Overloaded{[&](std::string* p) { *p = s->get(); },
                            // "" is how a file leaves an optional string unset.
                            [&](std::optional<std::string>* p) {
                              if (s->get().empty()) {
                                p->reset();
                              } else {
                                *p = s->get();
                              }
                            },
                            [](auto*) {}},
                 field);
      return ok();
    }
    case ValueKind::kStringList: {
      NVCT_ASSIGN_OR_RETURN(std::vector<std::string> list, string_list(node, spec.name));
      std::visit(
          Overloaded{[&](std::vector<std::string>* p) { *p = std::move(list); },
                     [&](std::optional<std::vector<std::string>>* p) { *p = std::move(list); },
                     [](auto*) {}},
          field);
      return ok();
    }
  }
  return ok();
}

}  // namespace

std::vector<std::string> split_key(std::string_view dotted) { return strings::split(dotted, '.'); }

const toml::node* find_node(const toml::table& table, std::string_view dotted) {
  const toml::table* current = &table;
  std::vector<std::string> parts = split_key(dotted);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const toml::node* node = current->get(parts[i]);
    if (node == nullptr || i + 1 == parts.size()) return node;
    current = node->as_table();
    if (current == nullptr) return nullptr;
  }
  return nullptr;
}

Status decode(const toml::table& table, Config& config) {
  for (const KeySpec& spec : key_specs()) {
    std::vector<std::string> parts = split_key(spec.name);
    const toml::table* current = &table;
    std::string prefix;
    for (std::size_t i = 0; i + 1 < parts.size() && current != nullptr; ++i) {
      prefix += (i == 0 ? "" : ".") + parts[i];
      const toml::node* node = current->get(parts[i]);
      if (node != nullptr && !node->is_table()) {
        return fail(EINVAL, fmt::format("{}: expected a table", prefix));
      }
      current = node == nullptr ? nullptr : node->as_table();
    }
    if (current == nullptr) continue;
    const toml::node* leaf = current->get(parts.back());
    if (leaf == nullptr) continue;
    NVCT_TRY(assign(*leaf, spec, config));
  }
  return ok();
}

toml::table encode(const Config& source) {
  Config config = source;  // KeySpec::field hands out non-const pointers
  toml::table root;
  for (const KeySpec& spec : key_specs()) {
    std::vector<std::string> parts = split_key(spec.name);
    toml::table* parent = &root;
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      auto [it, inserted] = parent->emplace<toml::table>(parts[i]);
      parent = it->second.as_table();
    }
    const std::string& leaf = parts.back();
    std::visit(Overloaded{[&](bool* p) {
                            if (!(spec.omit_empty && !*p)) parent->insert_or_assign(leaf, *p);
                          },
                          [&](std::string* p) {
                            if (!(spec.omit_empty && p->empty())) {
                              parent->insert_or_assign(leaf, *p);
                            }
                          },
                          [&](std::optional<std::string>* p) {
                            if (p->has_value()) parent->insert_or_assign(leaf, **p);
                          },
                          [&](std::vector<std::string>* p) {
                            if (spec.omit_empty && p->empty()) return;
                            toml::array array;
                            for (const std::string& s : *p) array.push_back(s);
                            parent->insert_or_assign(leaf, std::move(array));
                          },
                          [&](std::optional<std::vector<std::string>>* p) {
                            if (!p->has_value()) return;
                            toml::array array;
                            for (const std::string& s : **p) array.push_back(s);
                            parent->insert_or_assign(leaf, std::move(array));
                          }},
               spec.field(config));
  }
  // Tables that only held omitted keys (features, modes.jit-cdi) are not part of the file.
  for (const char* name : {"features"}) {
    const toml::node* node = root.get(name);
    if (node != nullptr && node->as_table()->empty()) root.erase(name);
  }
  if (auto* modes = root.at_path("nvidia-container-runtime.modes").as_table()) {
    const toml::node* jit = modes->get("jit-cdi");
    if (jit != nullptr && jit->as_table()->empty()) modes->erase("jit-cdi");
  }
  return root;
}

}  // namespace nvct::config
