// The feature flag enable-coherent-annotations (spec/cdi.md §6.2): besides the main spec, the
// generator writes the GPUs again split by memory coherence, as kinds <vendor>/<class>.coherent
// and <vendor>/<class>.noncoherent, to files named <name>.coherent.<ext> / <name>.noncoherent.<ext>
// next to the output. The dotted class needs cdiVersion 0.6.0.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/cdi/spec.hpp"

namespace nvct::cdi {

struct SuffixedSpec {
  std::string suffix;  // "coherent" or "noncoherent"
  Spec spec;
};

// Splits the devices of `spec` (without its `all` device, which each part rebuilds from its own
// devices when `spec` had one) by whether their name is in `coherent`. Parts without devices are
// left out; spec-level edits are copied to each part.
std::vector<SuffixedSpec> split_by_coherence(const Spec& spec,
                                             const std::set<std::string>& coherent);

// "/etc/cdi/nvidia.yaml" + "coherent" -> "/etc/cdi/nvidia.coherent.yaml"; a name without an
// extension gets the suffix appended ("spec" -> "spec.coherent").
std::string suffixed_output_path(const std::string& output, std::string_view suffix);

}  // namespace nvct::cdi
