#include "nvct/cdi/csv_mount_spec.hpp"

#include <fmt/format.h>

#include "nvct/base/file.hpp"
#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"

namespace nvct::cdi {
namespace {

Result<CsvMountType> parse_type(std::string_view text) {
  std::string t = strings::to_lower(text);
  if (t == "dev") return CsvMountType::kDev;
  if (t == "lib") return CsvMountType::kLib;
  if (t == "sym") return CsvMountType::kSym;
  if (t == "dir") return CsvMountType::kDir;
  return fail(EINVAL,
              fmt::format("unknown mount type \"{}\" (expected dev, lib, sym or dir)", text));
}

}  // namespace

std::string_view csv_mount_type_name(CsvMountType type) {
  switch (type) {
    case CsvMountType::kDev:
      return "dev";
    case CsvMountType::kLib:
      return "lib";
    case CsvMountType::kSym:
      return "sym";
    case CsvMountType::kDir:
      return "dir";
  }
  return "lib";
}

Result<std::vector<CsvMountSpec>> parse_csv_mount_specs(std::string_view text,
                                                        std::string_view source) {
  std::vector<CsvMountSpec> out;
  std::size_t number = 0;
  for (const auto& raw : strings::split(text, '\n')) {
    ++number;
    std::string line(strings::trim(raw));
    if (line.empty() || line.front() == '#') continue;
    auto where = [&](std::string_view why) {
      return fail(EINVAL, fmt::format("{}:{}: {}: \"{}\"", source, number, why, line));
    };
    auto comma = line.find(',');
    if (comma == std::string::npos) return where("expected \"<type>, <path>\"");
    auto type = parse_type(strings::trim(std::string_view(line).substr(0, comma)));
    if (!type) return where(type.error().message());
    std::string path(strings::trim(std::string_view(line).substr(comma + 1)));
    if (path.empty() || path.front() != '/') return where("the path must be absolute");
    out.push_back(CsvMountSpec{*type, std::move(path)});
  }
  return out;
}

Result<std::vector<CsvMountSpec>> read_csv_mount_spec_file(const std::string& path) {
  auto text = read_file(path);
  if (!text)
    return fail(text.error().code(),
                fmt::format("failed to read CSV file {}: {}", path, text.error().message()));
  return parse_csv_mount_specs(*text, path);
}

Result<std::vector<CsvMountSpec>> read_csv_mount_spec_files(const std::vector<std::string>& paths) {
  std::vector<CsvMountSpec> out;
  for (const auto& path : paths) {
    auto specs = read_csv_mount_spec_file(path);
    if (!specs && specs.error().code() == ENOENT) {
      log::warn("Skipping CSV file {}: it does not exist", path);
      continue;
    }
    if (!specs) return tl::unexpected(specs.error());
    out.insert(out.end(), specs->begin(), specs->end());
  }
  return out;
}

}  // namespace nvct::cdi
