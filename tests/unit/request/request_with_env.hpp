// A Request that carries only the given environment, for the tests of what it derives from it.
#pragma once

#include <utility>

#include "nvct/request/request.hpp"

namespace nvct::request::testing {

inline Request with_env(Environment env) {
  Request req;
  req.env = std::move(env);
  return req;
}

}  // namespace nvct::request::testing
