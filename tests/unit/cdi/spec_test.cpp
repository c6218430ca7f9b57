// ContainerEdits::empty and append (cdi.md §1 "must be non-empty", §3 step 2).
#include "nvct/cdi/spec.hpp"

#include <gtest/gtest.h>

namespace nvct::cdi {
namespace {

TEST(ContainerEdits, EmptyUnlessAnyFieldIsSet) {
  ContainerEdits e;
  EXPECT_TRUE(e.empty());
  e.intel_rdt = IntelRdt{};
  EXPECT_FALSE(e.empty());
  ContainerEdits g;
  g.additional_gids = {0};
  EXPECT_FALSE(g.empty());
}

TEST(ContainerEdits, AppendConcatenatesListsAndLastIntelRdtWins) {
  ContainerEdits a;
  a.env = {"A=1"};
  a.intel_rdt = IntelRdt{"first", "", "", {}, false};
  ContainerEdits b;
  b.env = {"B=2"};
  b.mounts = {{"/h", "/c", "", {}}};
  b.intel_rdt = IntelRdt{"second", "", "", {}, false};
  a.append(b);
  EXPECT_EQ(a.env, (std::vector<std::string>{"A=1", "B=2"}));
  EXPECT_EQ(a.mounts.size(), 1u);
  EXPECT_EQ(a.intel_rdt->clos_id, "second");
  ContainerEdits c;
  a.append(c);
  EXPECT_EQ(a.intel_rdt->clos_id, "second");
}

}  // namespace
}  // namespace nvct::cdi
