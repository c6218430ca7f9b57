// Document: a config file's own keys, edited by --set and merged onto the defaults on demand.
#include "nvct/config/document.hpp"

#include <fmt/format.h>

#include "nvct/base/input_checks.hpp"
#include "nvct/config/load.hpp"
#include "toml_tree.hpp"

namespace nvct::config {
namespace {

// Records every leaf of a parsed file as explicitly set.
void collect_keys(const toml::table& table, const std::string& prefix,
                  std::set<std::string, std::less<>>& out) {
  for (const auto& [key, node] : table) {
    std::string name =
        prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    if (const toml::table* sub = node.as_table()) {
      collect_keys(*sub, name, out);
    } else {
      out.insert(name);
    }
  }
}

// Every value and every empty table under `table`, dotted.
void collect_all_keys(const toml::table& table, const std::string& prefix,
                      std::vector<std::string>& out) {
  for (const auto& [key, node] : table) {
    std::string name =
        prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    const toml::table* sub = node.as_table();
    if (sub != nullptr && !sub->empty()) {
      collect_all_keys(*sub, name, out);
    } else {
      out.push_back(std::move(name));
    }
  }
}

// The parent table of a dotted key, creating missing tables. Fails when a component is a value.
Result<toml::table*> parent_table(toml::table& root, std::string_view key, std::string& leaf) {
  std::vector<std::string> parts = split_key(key);
  toml::table* current = &root;
  std::string prefix;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    prefix += (i == 0 ? "" : ".") + parts[i];
    auto [it, inserted] = current->emplace<toml::table>(parts[i]);
    current = it->second.as_table();
    if (current == nullptr) {
      return fail(EINVAL, fmt::format("set {}: {} is not a table", key, prefix));
    }
  }
  leaf = parts.back();
  return current;
}

}  // namespace

Document::Document(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Document::Document(Document&&) noexcept = default;
Document& Document::operator=(Document&&) noexcept = default;
Document::~Document() = default;

Result<Document> Document::parse(std::string_view toml) {
  auto impl = std::make_unique<Impl>();
  // NUL bytes, invalid UTF-8 and deep nesting are refused before toml++ sees them (issue 18).
  NVCT_TRY(check_untrusted_text(toml, TextSyntax::kToml, "parse TOML"));
  try {
    impl->table = toml::parse(toml);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    return fail(EINVAL, fmt::format("parse TOML: line {}, column {}: {}", where.line, where.column,
                                    e.description()));
  }
  collect_keys(impl->table, "", impl->explicit_keys);
  return Document(std::move(impl));
}

Document Document::from_config(const Config& config) {
  auto impl = std::make_unique<Impl>();
  impl->table = encode(config);
  return Document(std::move(impl));
}

Status Document::set_bool(std::string_view key, bool value) {
  std::string leaf;
  NVCT_ASSIGN_OR_RETURN(toml::table * parent, parent_table(impl_->table, key, leaf));
  parent->insert_or_assign(leaf, value);
  impl_->explicit_keys.emplace(key);
  return ok();
}

Status Document::set_string(std::string_view key, std::string_view value) {
  std::string leaf;
  NVCT_ASSIGN_OR_RETURN(toml::table * parent, parent_table(impl_->table, key, leaf));
  parent->insert_or_assign(leaf, std::string(value));
  impl_->explicit_keys.emplace(key);
  return ok();
}

Status Document::set_string_list(std::string_view key, const std::vector<std::string>& value) {
  std::string leaf;
  NVCT_ASSIGN_OR_RETURN(toml::table * parent, parent_table(impl_->table, key, leaf));
  toml::array array;
  for (const std::string& item : value) array.push_back(item);
  parent->insert_or_assign(leaf, std::move(array));
  impl_->explicit_keys.emplace(key);
  return ok();
}

void Document::erase(std::string_view key) {
  std::vector<std::string> parts = split_key(key);
  toml::table* current = &impl_->table;
  for (std::size_t i = 0; i + 1 < parts.size() && current != nullptr; ++i) {
    toml::node* node = current->get(parts[i]);
    current = node == nullptr ? nullptr : node->as_table();
  }
  if (current != nullptr) current->erase(parts.back());
  if (auto it = impl_->explicit_keys.find(key); it != impl_->explicit_keys.end()) {
    impl_->explicit_keys.erase(it);
  }
}

std::vector<std::string> Document::keys() const {
  std::vector<std::string> out;
  collect_all_keys(impl_->table, "", out);
  return out;
}

Result<Config> Document::to_config(const HostFacts& host, std::string_view source) const {
  Config config = default_config(host);
  NVCT_TRY(decode(impl_->table, config));
  NVCT_TRY(finalize(config, host, source));
  return config;
}

}  // namespace nvct::config
