// The root transform. Which hook paths and arguments belong to which side follows where each
// hook stage executes: createContainer and startContainer hooks run in the container's mount
// namespace, the others on the host.
#include "nvct/cdi/transform_root.hpp"

#include <fmt/format.h>

#include "nvct/cdi/inject.hpp"

namespace nvct::cdi {
namespace {

bool runs_in_container(const Hook& h) {
  return h.hook_name == "createContainer" || h.hook_name == "startContainer";
}

std::string transform_arg(const RootTransform& t, const std::string& arg) {
  auto sep = arg.find("::");
  if (sep == std::string::npos) return t.transform_path(arg);
  return t.transform_path(arg.substr(0, sep)) + "::" + t.transform_path(arg.substr(sep + 2));
}

}  // namespace

Result<RelativeTo> parse_relative_to(std::string_view text) {
  if (text == "host") return RelativeTo::kHost;
  if (text == "container") return RelativeTo::kContainer;
  return fail(fmt::format("invalid --relative-to value \"{}\": expected host or container", text));
}

std::string RootTransform::transform_path(std::string_view path) const {
  if (from == to) return std::string(path);
  std::string root = from;
  if (root.empty() || root.back() != '/') root += '/';
  std::string with_sep = std::string(path) + "/";
  if (with_sep.compare(0, root.size(), root) != 0) return std::string(path);
  std::string rest = std::string(path).substr(std::min(path.size(), root.size() - 1));
  return clean_path(to + "/" + rest);
}

void RootTransform::apply(ContainerEdits& edits) const {
  bool host = relative_to == RelativeTo::kHost;
  for (auto& d : edits.device_nodes) {
    if (host) {
      if (d.host_path.empty()) d.host_path = d.path;
      d.host_path = transform_path(d.host_path);
    } else {
      d.path = transform_path(d.path);
    }
  }
  for (auto& h : edits.hooks) {
    bool start = h.hook_name == "startContainer";
    if (host != start) h.path = transform_path(h.path);
    if (host == runs_in_container(h)) continue;
    for (auto& a : h.args) a = transform_arg(*this, a);
  }
  for (auto& m : edits.mounts) {
    if (host) {
      m.host_path = transform_path(m.host_path);
    } else {
      m.container_path = transform_path(m.container_path);
    }
  }
}

void RootTransform::apply(Spec& spec) const {
  for (auto& d : spec.devices) apply(d.container_edits);
  apply(spec.container_edits);
}

}  // namespace nvct::cdi
