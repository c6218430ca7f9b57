#include "nvct/cdi/coherent_specs.hpp"

#include <algorithm>

#include "nvct/cdi/version.hpp"

namespace nvct::cdi {
namespace {

Spec part_of(const Spec& spec, const std::string& suffix, const std::vector<const Device*>& devs,
             bool with_all) {
  Spec out;
  out.kind = spec.kind + "." + suffix;
  out.annotations = spec.annotations;
  out.container_edits = spec.container_edits;
  Device all;
  all.name = "all";
  for (const Device* d : devs) {
    out.devices.push_back(*d);
    for (const auto& n : d->container_edits.device_nodes)
      if (std::find(all.container_edits.device_nodes.begin(),
                    all.container_edits.device_nodes.end(),
                    n) == all.container_edits.device_nodes.end())
        all.container_edits.device_nodes.push_back(n);
    for (auto gid : d->container_edits.additional_gids)
      if (std::find(all.container_edits.additional_gids.begin(),
                    all.container_edits.additional_gids.end(),
                    gid) == all.container_edits.additional_gids.end())
        all.container_edits.additional_gids.push_back(gid);
  }
  std::sort(all.container_edits.additional_gids.begin(), all.container_edits.additional_gids.end());
  if (with_all && !all.container_edits.empty()) out.devices.push_back(std::move(all));
  out.cdi_version = minimum_required_version(out).str();
  return out;
}

}  // namespace

std::vector<SuffixedSpec> split_by_coherence(const Spec& spec,
                                             const std::set<std::string>& coherent) {
  std::vector<const Device*> yes, no;
  bool had_all = false;
  for (const auto& d : spec.devices) {
    if (d.name == "all") {
      had_all = true;
      continue;
    }
    (coherent.count(d.name) != 0 ? yes : no).push_back(&d);
  }
  std::vector<SuffixedSpec> out;
  if (!yes.empty()) out.push_back({"coherent", part_of(spec, "coherent", yes, had_all)});
  if (!no.empty()) out.push_back({"noncoherent", part_of(spec, "noncoherent", no, had_all)});
  return out;
}

std::string suffixed_output_path(const std::string& output, std::string_view suffix) {
  auto slash = output.rfind('/');
  auto dot = output.rfind('.');
  bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1);
  if (!has_ext) return output + "." + std::string(suffix);
  return output.substr(0, dot) + "." + std::string(suffix) + output.substr(dot);
}

}  // namespace nvct::cdi
