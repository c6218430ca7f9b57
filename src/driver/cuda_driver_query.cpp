#include "nvct/driver/cuda_driver_query.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace nvct::driver {

using nlohmann::json;

std::string cuda_version_string(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

std::string encode_cuda_result(const Result<CudaDriverFacts>& r) {
  json j;
  if (r) {
    json facts = {{"driver_version", r->driver_version}};
    if (r->device0_arch)
      facts["device0_arch"] = *r->device0_arch;
    else
      facts["arch_error"] = r->arch_error;
    j = {{"cuda", std::move(facts)}};
  } else {
    j = {{"error", r.error().message()}};
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<CudaDriverFacts> decode_cuda_result(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  auto bad = [] { return fail(EPROTO, "malformed reply from the CUDA query"); };
  if (j.is_discarded() || !j.is_object()) return bad();
  if (auto e = j.find("error"); e != j.end()) {
    if (!e->is_string()) return bad();
    return fail(EIO, e->get<std::string>());
  }
  auto c = j.find("cuda");
  if (c == j.end() || !c->is_object()) return bad();
  auto v = c->find("driver_version");
  if (v == c->end() || !v->is_number_integer()) return bad();
  CudaDriverFacts f;
  f.driver_version = v->get<int>();
  if (auto a = c->find("device0_arch"); a != c->end()) {
    if (!a->is_string()) return bad();
    f.device0_arch = a->get<std::string>();
  } else if (auto e = c->find("arch_error"); e != c->end() && e->is_string()) {
    f.arch_error = e->get<std::string>();
  }
  return f;
}

}  // namespace nvct::driver
