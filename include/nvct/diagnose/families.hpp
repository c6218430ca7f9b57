// One function per check family of spec/doctor.md §3, each in src/diagnose/<family>.cpp. Each
// returns its findings in the table order of the spec, ending with `<family>.ok` when nothing
// worse was found.
#pragma once

#include <vector>

#include "nvct/diagnose/finding.hpp"
#include "nvct/diagnose/host.hpp"

namespace nvct::diagnose {

std::vector<Finding> check_driver(Host& host);
std::vector<Finding> check_devices(Host& host);
std::vector<Finding> check_config(Host& host);
std::vector<Finding> check_engines(Host& host);
std::vector<Finding> check_binaries(Host& host);
std::vector<Finding> check_cdi(Host& host);
std::vector<Finding> check_cgroups(Host& host);
std::vector<Finding> check_ipc(Host& host);
std::vector<Finding> check_mig(Host& host);
std::vector<Finding> check_imex(Host& host);

}  // namespace nvct::diagnose
