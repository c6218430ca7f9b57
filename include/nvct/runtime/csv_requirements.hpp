// The csv mode's own NVIDIA_REQUIRE_* check (spec/runtime.md §7.6, request.md §6): the runtime,
// not the hook, evaluates the requirements of a Tegra container, with the CUDA driver version
// from libcuda's cuDriverGetVersion and `arch` from the compute capability of device 0. The
// language is request/requirement_expr.hpp's with unknown properties ignored.
//
// Facts that cannot be determined are not silently satisfied (the spec does not say what to do):
// a requirement that names `cuda` while the version is unknown, or `arch` while device 0's compute
// capability is unknown, fails closed with a message naming it and why the fact is missing.
// `driver` and `brand` have no source on Tegra (no NVML) and are not checked.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/config/config.hpp"
#include "nvct/driver/cuda_driver_query.hpp"
#include "nvct/request/request.hpp"

namespace nvct::runtime {

// Asks libcuda under the driver root (host path, "/" for the host); see cuda_facts_query.hpp.
using CudaFactsQuery =
    std::function<Result<driver::CudaDriverFacts>(const std::string& driver_root)>;

// The lower-cased property names of an expression's factors ("cuda>=11.6,arch=5.3 brand=x" ->
// cuda, arch, brand), in order of appearance, duplicates kept.
std::vector<std::string> requirement_properties(std::string_view expression);

// Nothing to do when requirements are disabled (NVIDIA_DISABLE_REQUIRE or config disable-require)
// or there are none; libcuda is queried only then. Errors are the evaluator's
// ("requirement error: unsatisfied condition: cuda>=99.0, please update your driver ...") or
// "requirement \"<expr>\" cannot be checked: <fact> is unknown: <why>".
Status check_csv_requirements(const request::Request& request, const config::Config& cfg,
                              const CudaFactsQuery& query);

}  // namespace nvct::runtime
