#include "empty_values.hpp"

#include <gtest/gtest.h>

namespace nvct::cmd::nvidia_ctk {
namespace {

std::vector<std::string> split(std::vector<const char*> args) {
  return split_empty_values(static_cast<int>(args.size()), args.data());
}

TEST(EmptyValues, AnEmptyEqualsValueBecomesAnEmptyArgument) {
  EXPECT_EQ(split({"nvidia-ctk", "runtime", "configure", "--drop-in-config=", "--dry-run"}),
            (std::vector<std::string>{"nvidia-ctk", "runtime", "configure", "--drop-in-config", "",
                                      "--dry-run"}));
}

TEST(EmptyValues, EverythingElseIsKept) {
  std::vector<std::string> same{"nvidia-ctk", "--config=/x", "-c=", "--=", "--a==", "--x", ""};
  EXPECT_EQ(split({"nvidia-ctk", "--config=/x", "-c=", "--=", "--a==", "--x", ""}), same);
  EXPECT_EQ(split({"nvidia-ctk", "hook", "--", "--keep="}),
            (std::vector<std::string>{"nvidia-ctk", "hook", "--", "--keep="}));
}

}  // namespace
}  // namespace nvct::cmd::nvidia_ctk
