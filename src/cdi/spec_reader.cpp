// Strict decoding of a CDI spec from YAML or JSON text. yaml-cpp throws on malformed input, so
// every call into it stays inside parse_spec()'s try block.
#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <charconv>
#include <functional>
#include <limits>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "nvct/base/file.hpp"
#include "nvct/base/input_checks.hpp"
#include "nvct/cdi/spec_io.hpp"
#include "nvct/cdi/validate.hpp"

namespace nvct::cdi {
namespace {

// Field handlers of one mapping; any key without a handler is an unknown field.
using FieldHandler = std::function<Status(const YAML::Node&)>;
using FieldTable = std::vector<std::pair<std::string_view, FieldHandler>>;

Status decode_map(const YAML::Node& node, std::string_view what, const FieldTable& table) {
  if (node.IsNull()) return ok();
  if (!node.IsMap()) return fail(fmt::format("{}: expected a mapping", what));
  std::set<std::string> seen;
  for (const auto& kv : node) {
    std::string key = kv.first.Scalar();
    if (!seen.insert(key).second) {
      return fail(fmt::format("{}: duplicate field \"{}\"", what, key));
    }
    const FieldHandler* handler = nullptr;
    for (const auto& [name, h] : table) {
      if (name == key) handler = &h;
    }
    if (handler == nullptr) return fail(fmt::format("{}: unknown field \"{}\"", what, key));
    NVCT_TRY(with_context((*handler)(kv.second), fmt::format("{}.{}", what, key)));
  }
  return ok();
}

Status read_string(const YAML::Node& n, std::string& out) {
  if (n.IsNull()) return ok();
  // A plain scalar such as `name: 0` is accepted as its text, as the reference's YAML decoder
  // converts scalars for string fields.
  if (!n.IsScalar()) return fail("expected a string");
  out = n.Scalar();
  return ok();
}

Result<std::int64_t> parse_int(const YAML::Node& n) {
  if (!n.IsScalar() || n.Tag() != "?") return fail("expected an integer");
  std::string_view t = n.Scalar();
  bool negative = false;
  if (!t.empty() && (t.front() == '-' || t.front() == '+')) {
    negative = t.front() == '-';
    t.remove_prefix(1);
  }
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    base = 16;
    t.remove_prefix(2);
  } else if (t.size() > 2 && t[0] == '0' && t[1] == 'o') {
    base = 8;
    t.remove_prefix(2);
  } else if (t.size() > 1 && t[0] == '0') {
    base = 8;  // YAML 1.1 octal, e.g. fileMode: 0666
    t.remove_prefix(1);
  }
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size() ||
      v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return fail(fmt::format("invalid integer \"{}\"", n.Scalar()));
  }
  auto s = static_cast<std::int64_t>(v);
  return negative ? -s : s;
}

Status read_int64(const YAML::Node& n, std::int64_t& out) {
  if (n.IsNull()) return ok();
  NVCT_ASSIGN_OR_RETURN(out, parse_int(n));
  return ok();
}

Result<std::uint32_t> parse_uint32(const YAML::Node& n) {
  NVCT_ASSIGN_OR_RETURN(auto v, parse_int(n));
  if (v < 0 || v > std::numeric_limits<std::uint32_t>::max()) {
    return fail(fmt::format("value {} out of range for uint32", v));
  }
  return static_cast<std::uint32_t>(v);
}

Status read_opt_uint32(const YAML::Node& n, std::optional<std::uint32_t>& out) {
  if (n.IsNull()) return ok();
  NVCT_ASSIGN_OR_RETURN(out, parse_uint32(n));
  return ok();
}

Status read_bool(const YAML::Node& n, bool& out) {
  if (n.IsNull()) return ok();
  const std::string& t = n.Scalar();
  if (!n.IsScalar() || n.Tag() != "?") return fail("expected a boolean");
  if (t == "true" || t == "True" || t == "TRUE") {
    out = true;
  } else if (t == "false" || t == "False" || t == "FALSE") {
    out = false;
  } else {
    return fail(fmt::format("invalid boolean \"{}\"", t));
  }
  return ok();
}

template <class T, class F>
Status read_list(const YAML::Node& n, std::vector<T>& out, F&& read_item) {
  if (n.IsNull()) return ok();
  if (!n.IsSequence()) return fail("expected a list");
  for (std::size_t i = 0; i < n.size(); ++i) {
    T item{};
    NVCT_TRY(with_context(read_item(n[i], item), fmt::format("[{}]", i)));
    out.push_back(std::move(item));
  }
  return ok();
}

Status read_strings(const YAML::Node& n, std::vector<std::string>& out) {
  return read_list(n, out, [](const YAML::Node& item, std::string& s) -> Status {
    if (!item.IsScalar()) return fail("expected a string");
    s = item.Scalar();
    return ok();
  });
}

Status read_annotations(const YAML::Node& n, Annotations& out) {
  if (n.IsNull()) return ok();
  if (!n.IsMap()) return fail("expected a mapping of strings");
  for (const auto& kv : n) {
    std::string value;
    if (!kv.second.IsScalar() && !kv.second.IsNull()) return fail("expected a string value");
    NVCT_TRY(read_string(kv.second, value));
    if (!out.emplace(kv.first.Scalar(), std::move(value)).second) {
      return fail(fmt::format("duplicate annotation \"{}\"", kv.first.Scalar()));
    }
  }
  return ok();
}

Status read_device_node(const YAML::Node& n, DeviceNode& d) {
  return decode_map(
      n, "deviceNode",
      {{"path", [&](const YAML::Node& v) { return read_string(v, d.path); }},
       {"hostPath", [&](const YAML::Node& v) { return read_string(v, d.host_path); }},
       {"type", [&](const YAML::Node& v) { return read_string(v, d.type); }},
       {"major", [&](const YAML::Node& v) { return read_int64(v, d.major); }},
       {"minor", [&](const YAML::Node& v) { return read_int64(v, d.minor); }},
       {"fileMode", [&](const YAML::Node& v) { return read_opt_uint32(v, d.file_mode); }},
       {"permissions", [&](const YAML::Node& v) { return read_string(v, d.permissions); }},
       {"uid", [&](const YAML::Node& v) { return read_opt_uint32(v, d.uid); }},
       {"gid", [&](const YAML::Node& v) { return read_opt_uint32(v, d.gid); }}});
}

Status read_mount(const YAML::Node& n, Mount& m) {
  return decode_map(
      n, "mount",
      {{"hostPath", [&](const YAML::Node& v) { return read_string(v, m.host_path); }},
       {"containerPath", [&](const YAML::Node& v) { return read_string(v, m.container_path); }},
       {"type", [&](const YAML::Node& v) { return read_string(v, m.type); }},
       {"options", [&](const YAML::Node& v) { return read_strings(v, m.options); }}});
}

Status read_hook(const YAML::Node& n, Hook& h) {
  return decode_map(
      n, "hook",
      {{"hookName", [&](const YAML::Node& v) { return read_string(v, h.hook_name); }},
       {"path", [&](const YAML::Node& v) { return read_string(v, h.path); }},
       {"args", [&](const YAML::Node& v) { return read_strings(v, h.args); }},
       {"env", [&](const YAML::Node& v) { return read_strings(v, h.env); }},
       {"timeout", [&](const YAML::Node& v) -> Status {
          if (v.IsNull()) return ok();
          NVCT_ASSIGN_OR_RETURN(h.timeout, parse_int(v));
          return ok();
        }}});
}

Status read_intel_rdt(const YAML::Node& n, std::optional<IntelRdt>& out) {
  if (n.IsNull()) return ok();
  IntelRdt r;
  NVCT_TRY(decode_map(
      n, "intelRdt",
      {{"closID", [&](const YAML::Node& v) { return read_string(v, r.clos_id); }},
       {"l3CacheSchema", [&](const YAML::Node& v) { return read_string(v, r.l3_cache_schema); }},
       {"memBwSchema", [&](const YAML::Node& v) { return read_string(v, r.mem_bw_schema); }},
       {"schemata", [&](const YAML::Node& v) { return read_strings(v, r.schemata); }},
       {"enableMonitoring",
        [&](const YAML::Node& v) { return read_bool(v, r.enable_monitoring); }}}));
  out = std::move(r);
  return ok();
}

Status read_net_device(const YAML::Node& n, NetDevice& d) {
  return decode_map(n, "netDevice",
                    {{"hostInterfaceName",
                      [&](const YAML::Node& v) { return read_string(v, d.host_interface_name); }},
                     {"name", [&](const YAML::Node& v) { return read_string(v, d.name); }}});
}

Status read_edits(const YAML::Node& n, ContainerEdits& e) {
  return decode_map(
      n, "containerEdits",
      {{"env", [&](const YAML::Node& v) { return read_strings(v, e.env); }},
       {"deviceNodes",
        [&](const YAML::Node& v) { return read_list(v, e.device_nodes, read_device_node); }},
       {"netDevices",
        [&](const YAML::Node& v) { return read_list(v, e.net_devices, read_net_device); }},
       {"hooks", [&](const YAML::Node& v) { return read_list(v, e.hooks, read_hook); }},
       {"mounts", [&](const YAML::Node& v) { return read_list(v, e.mounts, read_mount); }},
       {"intelRdt", [&](const YAML::Node& v) { return read_intel_rdt(v, e.intel_rdt); }},
       {"additionalGids", [&](const YAML::Node& v) {
          auto read_gid = [](const YAML::Node& item, std::uint32_t& g) -> Status {
            NVCT_ASSIGN_OR_RETURN(g, parse_uint32(item));
            return ok();
          };
          return read_list(v, e.additional_gids, read_gid);
        }}});
}

Status read_device(const YAML::Node& n, Device& d) {
  return decode_map(
      n, "device",
      {{"name", [&](const YAML::Node& v) { return read_string(v, d.name); }},
       {"annotations", [&](const YAML::Node& v) { return read_annotations(v, d.annotations); }},
       {"containerEdits", [&](const YAML::Node& v) { return read_edits(v, d.container_edits); }}});
}

Result<Spec> decode_spec(const YAML::Node& root) {
  if (!root.IsMap()) return fail("expected a mapping at the top level");
  Spec spec;
  bool has_version = false;
  bool has_kind = false;
  NVCT_TRY(decode_map(
      root, "spec",
      {{"cdiVersion",
        [&](const YAML::Node& v) {
          has_version = true;
          return read_string(v, spec.cdi_version);
        }},
       {"kind",
        [&](const YAML::Node& v) {
          has_kind = true;
          return read_string(v, spec.kind);
        }},
       {"annotations", [&](const YAML::Node& v) { return read_annotations(v, spec.annotations); }},
       {"devices", [&](const YAML::Node& v) { return read_list(v, spec.devices, read_device); }},
       {"containerEdits",
        [&](const YAML::Node& v) { return read_edits(v, spec.container_edits); }}}));
  if (!has_version || spec.cdi_version.empty()) return fail("missing cdiVersion");
  if (!has_kind || spec.kind.empty()) return fail("missing kind");
  return spec;
}

// YAML anchors (&a) and aliases (*a) let a few hundred bytes stand for billions of nodes (the
// "billion laughs"): yaml-cpp shares an aliased node, but decoding walks every path to it. CDI
// specs have no use for them (the reference's generator never writes one), so the text is first
// run through yaml-cpp's event parser, which stops at the first anchor, before any node is built
// or expanded: bounded time and memory.
struct AliasFound {
  YAML::Mark mark;
  std::string anchor;
};

class AnchorDetector : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t a) override { check(m, a); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { throw AliasFound{m, ""}; }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t a,
                const std::string&) override {
    check(m, a);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a,
                       YAML::EmitterStyle::value) override {
    check(m, a);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a,
                  YAML::EmitterStyle::value) override {
    check(m, a);
  }
  void OnMapEnd() override {}
  void OnAnchor(const YAML::Mark& m, const std::string& name) override {
    throw AliasFound{m, name};
  }

 private:
  static void check(const YAML::Mark& m, YAML::anchor_t a) {
    if (a != YAML::NullAnchor) throw AliasFound{m, ""};
  }
};

// Called inside parse_spec()'s try block (the event parser throws on malformed input too).
Status refuse_anchors(std::string_view text) {
  // Without '&' or '*' anywhere there can be neither: the common case costs one scan.
  if (text.find_first_of("&*") == std::string_view::npos) return ok();
  std::istringstream in{std::string(text)};
  YAML::Parser parser(in);
  AnchorDetector detector;
  try {
    parser.HandleNextDocument(detector);
  } catch (const AliasFound& found) {
    std::string what = found.anchor.empty() ? "a YAML anchor or alias"
                                            : fmt::format("the YAML anchor &{}", found.anchor);
    return fail(EINVAL, fmt::format("{} at line {}, column {}: aliases are not allowed in CDI "
                                    "specs (anchors and aliases can expand a small file into "
                                    "billions of nodes): write each value out in full",
                                    what, found.mark.line + 1, found.mark.column + 1));
  }
  return ok();
}

}  // namespace

Result<Spec> parse_spec(std::string_view text, std::string_view name) {
  auto decode = [&]() -> Result<Spec> {
    // yaml-cpp recurses per nesting level: 100 000 nested flow sequences overflow the stack.
    NVCT_TRY(check_untrusted_text(text, TextSyntax::kYaml, "malformed YAML/JSON"));
    try {
      NVCT_TRY(refuse_anchors(text));
      YAML::Node root = YAML::Load(std::string(text));
      return decode_spec(root);
    } catch (const std::exception& e) {
      return fail(fmt::format("malformed YAML/JSON: {}", e.what()));
    }
  };
  return with_context(decode(), fmt::format("failed to parse CDI spec {}", name));
}

Result<Spec> load_spec_file(const std::string& path) {
  auto text = read_file(path, kMaxSpecFileSize);
  if (!text) {
    return tl::unexpected(std::move(text).error().context(fmt::format("read CDI spec {}", path)));
  }
  NVCT_ASSIGN_OR_RETURN(auto spec, parse_spec(*text, path));
  NVCT_TRY(with_context(validate_spec(spec), fmt::format("invalid CDI spec {}", path)));
  return spec;
}

}  // namespace nvct::cdi
