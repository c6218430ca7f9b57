// A config.toml as a document: the keys a file (or the defaults) holds, unknown keys included, so
// that `nvidia-ctk config --set ... --in-place` changes only what it is asked to. Rendering follows
// spec/config.md §2 (sorted keys, commented defaults).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/config/config.hpp"
#include "nvct/config/host_facts.hpp"

namespace nvct::config {

class Document {
 public:
  // Parses TOML text; every key of the text counts as explicitly set.
  static Result<Document> parse(std::string_view toml);
  // The keys of a Config (the defaults file); none counts as explicitly set.
  static Document from_config(const Config& config);

  Document(Document&&) noexcept;
  Document& operator=(Document&&) noexcept;
  ~Document();

  // Setting a key makes it explicit. `key` is dotted; intermediate tables are created.
  Status set_bool(std::string_view key, bool value);
  Status set_string(std::string_view key, std::string_view value);
  Status set_string_list(std::string_view key, const std::vector<std::string>& value);
  void erase(std::string_view key);

  // Every dotted key the document holds, sorted: each value, and each table that holds nothing.
  std::vector<std::string> keys() const;

  // The document merged onto the defaults, validated (load.hpp's rules). `source` (the file)
  // prefixes the warnings of finalize().
  Result<Config> to_config(const HostFacts& host, std::string_view source = {}) const;

  // TOML text. A key of §2's commented-defaults list is written "#key = <commented default>"
  // unless it was set explicitly with a value other than the commented default or "".
  std::string render(const HostFacts& host) const;

  struct Impl;

 private:
  explicit Document(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The text of `nvidia-ctk config default` for this host.
std::string render_default(const HostFacts& host);

}  // namespace nvct::config
