#include "nvct/oci/strict_json.hpp"

#include <new>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace nvct::oci {

namespace {

using nlohmann::ordered_json;

// One open object or array while parsing.
struct Frame {
  ordered_json* container = nullptr;
  std::size_t next_index = 0;  // arrays: index of the next element (for error pointers)
  std::string key;             // objects: the key whose value comes next
  std::unordered_set<std::string> keys;
};

std::string escape_pointer_token(const std::string& token) {
  std::string out;
  for (char c : token) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

// nlohmann's messages start with "[json.exception.parse_error.101] "; the id is noise to users.
std::string strip_exception_id(std::string what) {
  if (!what.empty() && what.front() == '[') {
    auto end = what.find("] ");
    if (end != std::string::npos) what.erase(0, end + 2);
  }
  return what;
}

// Builds the document from SAX events instead of nlohmann's DOM parser because:
// - ordered_json's object insert is a linear scan for the key, so one object with many keys
//   (annotations) would cost O(n^2): 40k keys took over a second, a 16 MiB spec minutes.
//   Here members are appended in O(1) and duplicates are found with a hash set;
// - every violation stops the parse at once, with the JSON pointer of the offending value,
//   before a deep or hostile document is built.
class Builder : public nlohmann::json_sax<ordered_json> {
 public:
  explicit Builder(std::size_t max_depth) : max_depth_(max_depth) {}

  ordered_json take() { return std::move(root_); }
  const std::string& error() const { return error_; }

  bool null() override { return add(ordered_json(nullptr)) != nullptr; }
  bool boolean(bool v) override { return add(ordered_json(v)) != nullptr; }
  bool number_integer(number_integer_t v) override { return add(ordered_json(v)) != nullptr; }
  bool number_unsigned(number_unsigned_t v) override { return add(ordered_json(v)) != nullptr; }
  bool number_float(number_float_t /*v*/, const string_t& /*raw*/) override {
    position_child();
    return violation(fmt::format(
        "number at {} is not an integer in the int64/uint64 range (an OCI document has no "
        "floating-point values)",
        pointer()));
  }
  bool string(string_t& v) override { return add(ordered_json(std::move(v))) != nullptr; }
  bool binary(binary_t& /*v*/) override { return violation("binary values are not JSON"); }

  bool start_object(std::size_t /*elements*/) override { return open(ordered_json::object()); }
  bool start_array(std::size_t /*elements*/) override { return open(ordered_json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& k) override {
    Frame& f = frames_.back();
    f.key = k;
    if (!f.keys.insert(k).second) return violation(fmt::format("duplicate key at {}", pointer()));
    return true;
  }

  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) override {
    if (error_.empty()) error_ = strip_exception_id(ex.what());
    return false;
  }

 private:
  // Advances the index of the current array so that pointer() names the value being added.
  void position_child() {
    if (!frames_.empty() && !frames_.back().container->is_object()) ++frames_.back().next_index;
  }

  // Adds a value to the innermost open container (or as the root) and returns where it lives.
  // Pointers stay valid: only the innermost container grows while it is open.
  ordered_json* add(ordered_json value) {
    position_child();
    if (frames_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Frame& f = frames_.back();
    if (f.container->is_object()) {
      auto* members = f.container->get_ptr<ordered_json::object_t*>();
      members->emplace_back(f.key, std::move(value));
      return &members->back().second;
    }
    auto* elements = f.container->get_ptr<ordered_json::array_t*>();
    elements->push_back(std::move(value));
    return &elements->back();
  }

  bool open(ordered_json empty) {
    if (frames_.size() + 1 > max_depth_) {
      position_child();
      return violation(fmt::format("nesting deeper than {} levels at {}", max_depth_, pointer()));
    }
    ordered_json* container = add(std::move(empty));
    frames_.push_back(Frame{container, 0, {}, {}});
    return true;
  }

  bool close() {
    frames_.pop_back();
    return true;
  }

  bool violation(std::string message) {
    error_ = std::move(message);
    return false;
  }

  // JSON pointer (RFC 6901) of the value being parsed.
  std::string pointer() const {
    std::string out;
    for (const Frame& f : frames_) {
      out += '/';
      out +=
          f.container->is_object() ? escape_pointer_token(f.key) : std::to_string(f.next_index - 1);
    }
    return out.empty() ? "/" : out;
  }

  std::size_t max_depth_;
  ordered_json root_;
  std::vector<Frame> frames_;
  std::string error_;
};

}  // namespace

Result<ordered_json> parse_strict_json(std::string_view text, StrictJsonLimits limits) {
  // Go's encoding/json rejects a byte-order mark while nlohmann skips it: reject it so that
  // runc and nvct never read different documents from the same bytes.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") return fail(EINVAL, "byte-order mark not allowed");
  try {
    Builder builder(limits.max_depth);
    // strict=true: trailing input is an error; ignore_comments=false: comments are errors.
    bool ok = ordered_json::sax_parse(text.begin(), text.end(), &builder,
                                      nlohmann::detail::input_format_t::json, true, false);
    if (!ok) return fail(EINVAL, builder.error().empty() ? "invalid JSON" : builder.error());
    return builder.take();
  } catch (const std::bad_alloc&) {
    return fail(ENOMEM, "out of memory while parsing JSON");
  } catch (const ordered_json::exception& e) {
    return fail(EINVAL, strip_exception_id(e.what()));
  }
}

}  // namespace nvct::oci
