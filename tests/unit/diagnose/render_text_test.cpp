#include <gtest/gtest.h>

#include "golden.hpp"
#include "nvct/diagnose/render.hpp"

namespace nvct::diagnose {
namespace {

using testing::expect_golden;
using testing::mask_root;

class RenderText : public testing::ReadOnlyTest {};

TEST_F(RenderText, HealthyGolden) {
  auto r = run();
  expect_golden("healthy.txt", mask_root(render_text(r, {false, false, false}), host.path()));
}

TEST_F(RenderText, BrokenGolden) {
  testing::break_host(host);
  auto r = run();
  expect_golden("broken.txt", mask_root(render_text(r, {false, false, false}), host.path()));
}

TEST(RenderTextLayout, ColumnsEvidenceFixAndSummary) {
  Report r;
  r.root = "/";
  r.driver_root = "/";
  r.config = "/etc/nvidia-container-runtime/config.toml";
  r.duration_ms = 18;
  r.findings = {{"driver.ok", Severity::kOk, "fine", {"hidden"}, ""},
                {"devices.dev-char-missing",
                 Severity::kError,
                 "links missing",
                 {"/dev/char/195:255: absent"},
                 "nvidia-ctk system create-dev-char-symlinks"},
                {"devices.a-very-long-identifier-name", Severity::kWarn, "long", {}, ""}};
  EXPECT_EQ(render_text(r, {false, false, true}),
            "nvidia-ctk doctor — host /, driver root /, config "
            "/etc/nvidia-container-runtime/config.toml\n"
            "\n"
            "driver\n"
            "  ok     driver.ok                    fine\n"
            "\n"
            "devices\n"
            "  error  devices.dev-char-missing     links missing\n"
            "         evidence: /dev/char/195:255: absent\n"
            "         fix:      nvidia-ctk system create-dev-char-symlinks\n"
            "  warn   devices.a-very-long-identifier-name long\n"
            "\n"
            "1 error, 1 warning, 0 info, 1 ok (18 ms)\n");
}

TEST(RenderTextLayout, VerboseShowsOkEvidenceAndColourWrapsTheSeverity) {
  Report r;
  r.findings = {{"driver.ok", Severity::kOk, "fine", {"seen"}, ""}};
  std::string text = render_text(r, {true, true, false});
  EXPECT_NE(text.find("  \033[32mok\033[0m     driver.ok"), std::string::npos) << text;
  EXPECT_NE(text.find("         evidence: seen\n"), std::string::npos);
}

}  // namespace
}  // namespace nvct::diagnose
