// Rendering a Document as config.toml text (spec/config.md §2): simple values first, then tables,
// each group sorted by key; table headers preceded by an empty line; some defaults commented out.
#include <fmt/format.h>

#include <cmath>
#include <map>
#include <memory>
#include <sstream>
#include <variant>

#include "nvct/base/install_dirs.hpp"
#include "nvct/base/toml_text.hpp"
#include "nvct/config/document.hpp"
#include "nvct/config/host_facts.hpp"
#include "toml_tree.hpp"

namespace nvct::config {
namespace {

// Keys written as "#key = <value>" when not set explicitly to something else (spec §2). The
// value shown is an example, not the effective default.
struct CommentedDefault {
  const char* key;
  std::variant<bool, const char*> value;
};
// The cli's example path follows the install prefix (spec/packaging.md §4.3).
const std::string kCliExamplePath = std::string(install_bindir()) + "/nvidia-container-cli";
const CommentedDefault kCommentedDefaults[] = {
    {"swarm-resource", "DOCKER_RESOURCE_GPU"},
    {"accept-nvidia-visible-devices-envvar-when-unprivileged", true},
    {"accept-nvidia-visible-devices-as-volume-mounts", false},
    {"nvidia-container-cli.root", "/run/nvidia/driver"},
    {"nvidia-container-cli.path", kCliExamplePath.c_str()},
    {"nvidia-container-cli.debug", "/var/log/nvidia-container-toolkit.log"},
    {"nvidia-container-cli.ldcache", "/etc/ld.so.cache"},
    {"nvidia-container-cli.no-cgroups", false},
    {"nvidia-container-cli.user", "root:video"},
    {"nvidia-container-runtime.debug", "/var/log/nvidia-container-runtime.log"},
};

struct Line {
  std::string text;
  bool commented = false;
};

struct Node {
  struct Child {
    bool array = false;  // an array of tables: [[name]]
    std::vector<std::unique_ptr<Node>> nodes;
  };
  std::map<std::string, Line> values;
  std::map<std::string, Child> tables;
};

std::string format_key(std::string_view key) { return toml_text::key(key); }

std::string format_value(const toml::node& node);

std::string format_float(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string format_value(const toml::node& node) {
  if (const auto* s = node.as_string()) return toml_text::quote(s->get());
  if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
  if (const auto* i = node.as_integer()) return fmt::format("{}", i->get());
  if (const auto* f = node.as_floating_point()) return format_float(f->get());
  if (const auto* a = node.as_array()) {
    std::string out = "[";
    bool first = true;
    for (const toml::node& item : *a) {
      out += (first ? "" : ", ") + format_value(item);
      first = false;
    }
    return out + "]";
  }
  if (const auto* t = node.as_table()) {  // an inline table inside an array
    std::string out = "{";
    bool first = true;
    for (const auto& [k, v] : *t) {
      out += (first ? " " : ", ") + format_key(k.str()) + " = " + format_value(v);
      first = false;
    }
    return out + (first ? "}" : " }");
  }
  std::ostringstream dates;  // dates and times: toml++ prints them in TOML syntax
  node.visit([&](const auto& v) {
    if constexpr (toml::is_date<decltype(v)> || toml::is_time<decltype(v)> ||
                  toml::is_date_time<decltype(v)>) {
      dates << v.get();
    }
  });
  return dates.str();
}

bool is_table_array(const toml::node& node) {
  const toml::array* array = node.as_array();
  return array != nullptr && !array->empty() && array->is_array_of_tables();
}

std::unique_ptr<Node> build(const toml::table& table) {
  auto node = std::make_unique<Node>();
  for (const auto& [key, value] : table) {
    std::string name(key.str());
    if (const toml::table* sub = value.as_table()) {
      node->tables[name].nodes.push_back(build(*sub));
    } else if (is_table_array(value)) {
      Node::Child& child = node->tables[name];
      child.array = true;
      for (const toml::node& item : *value.as_array())
        child.nodes.push_back(build(*item.as_table()));
    } else {
      node->values[name] = Line{format_value(value), false};
    }
  }
  return node;
}

bool equals(const toml::node* node, const std::variant<bool, const char*>& value) {
  if (node == nullptr) return false;
  if (const bool* b = std::get_if<bool>(&value)) {
    return node->is_boolean() && node->as_boolean()->get() == *b;
  }
  return node->is_string() && node->as_string()->get() == std::get<const char*>(value);
}

bool should_comment(const CommentedDefault& entry, const toml::node* set, bool explicitly_set,
                    bool suse) {
  std::string_view key = entry.key;
  if (key == "nvidia-container-cli.user" && suse && equals(set, entry.value)) return false;
  // The runtime's "no log file" value is shown as the example log path.
  if (key == "nvidia-container-runtime.debug" && equals(set, "/dev/null")) return true;
  // A value the user chose is kept even when it matches the example, so that rendering never
  // turns a setting into a comment.
  if (explicitly_set) return false;
  return set == nullptr || equals(set, entry.value) || equals(set, "");
}

void comment_defaults(const Document::Impl& doc, Node& root, bool suse) {
  for (const CommentedDefault& entry : kCommentedDefaults) {
    const toml::node* set = find_node(doc.table, entry.key);
    bool explicitly_set = doc.explicit_keys.count(std::string_view(entry.key)) > 0;
    if (!should_comment(entry, set, explicitly_set, suse)) continue;
    std::vector<std::string> parts = split_key(entry.key);
    Node* parent = &root;
    for (std::size_t i = 0; i + 1 < parts.size() && parent != nullptr; ++i) {
      if (parent->values.count(parts[i]) > 0) parent = nullptr;  // a value where a table belongs
      if (parent == nullptr) break;
      Node::Child& child = parent->tables[parts[i]];
      if (child.array) {
        parent = nullptr;
        break;
      }
      if (child.nodes.empty()) child.nodes.push_back(std::make_unique<Node>());
      parent = child.nodes.front().get();
    }
    if (parent == nullptr) continue;
    std::string text = std::visit(
        [](auto v) -> std::string {
          if constexpr (std::is_same_v<decltype(v), bool>) {
            return v ? "true" : "false";
          } else {
            return toml_text::quote(v);
          }
        },
        entry.value);
    parent->values[parts.back()] = Line{std::move(text), true};
  }
}

void write(const Node& node, const std::string& keyspace, std::string& out) {
  for (const auto& [key, line] : node.values) {
    out += fmt::format("{}{} = {}\n", line.commented ? "#" : "", format_key(key), line.text);
  }
  for (const auto& [key, child] : node.tables) {
    std::string combined = keyspace.empty() ? format_key(key) : keyspace + "." + format_key(key);
    for (const auto& sub : child.nodes) {
      out += child.array ? fmt::format("\n[[{}]]\n", combined) : fmt::format("\n[{}]\n", combined);
      write(*sub, combined, out);
    }
  }
}

}  // namespace

std::string Document::render(const HostFacts& host) const {
  std::unique_ptr<Node> root = build(impl_->table);
  comment_defaults(*impl_, *root, is_suse(host));
  std::string out;
  write(*root, "", out);
  return out;
}

std::string render_default(const HostFacts& host) {
  return Document::from_config(default_config(host)).render(host);
}

}  // namespace nvct::config
