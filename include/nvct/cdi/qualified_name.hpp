// CDI name rules (spec/cdi.md §2). They live in the request module, which needs them to recognise
// CDI requests below the cdi layer; the cdi module uses the same functions under its namespace.
#pragma once

#include "nvct/request/cdi_name.hpp"

namespace nvct::cdi {

using request::is_qualified_name;
using request::parse_qualified_name;
using request::QualifiedName;
using request::spec_file_stem;
using request::split_qualified_name;
using request::validate_class;
using request::validate_device_name;
using request::validate_kind;
using request::validate_vendor;

}  // namespace nvct::cdi
