// spec/ctk.md §7.2: the hooks.d JSON file.
#include "nvct/ctk/oci_hook.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "nvct/base/file.hpp"

namespace nvct::ctk {
namespace {

TEST(OciHook, DefaultHookMatchesTheSpecExampleByteForByte) {
  auto text = oci_hook_json("/usr/bin/nvidia-container-runtime-hook");
  ASSERT_TRUE(text) << text.error().message();
  auto golden = read_file(NVCT_SOURCE_DIR "/tests/data/ctk/oci_nvidia_hook.json");
  ASSERT_TRUE(golden) << golden.error().message();
  EXPECT_EQ(*text, *golden);
}

TEST(OciHook, ArgZeroIsTheBasenameAndItsDirectoryIsAppendedToPath) {
  auto text = oci_hook_json("/opt/nvidia/bin/my-hook");
  ASSERT_TRUE(text) << text.error().message();
  auto doc = nlohmann::json::parse(*text);
  EXPECT_EQ(doc["hook"]["path"], "/opt/nvidia/bin/my-hook");
  EXPECT_EQ(doc["hook"]["args"], nlohmann::json::parse(R"(["my-hook","prestart"])"));
  EXPECT_EQ(doc["hook"]["env"][0],
            "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/nvidia/bin");
}

TEST(OciHook, DirectoryAlreadyOnPathIsNotRepeated) {
  auto text = oci_hook_json("/usr/local/bin/nvidia-container-runtime-hook");
  ASSERT_TRUE(text);
  EXPECT_EQ(nlohmann::json::parse(*text)["hook"]["env"][0], kOciHookPath);
}

TEST(OciHook, RelativeOrEmptyPathIsAnError) {
  EXPECT_FALSE(oci_hook_json("nvidia-container-runtime-hook"));
  EXPECT_FALSE(oci_hook_json(""));
  EXPECT_FALSE(oci_hook_json("/usr/bin/"));
}

}  // namespace
}  // namespace nvct::ctk
