#include "nvct/driver/procfs.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>

namespace nvct::driver {
namespace {

TEST(ProcDevices, ReadsCharacterMajorsUpToTheFirstEmptyLine) {
  auto m = parse_proc_devices(
      "Character devices:\n  1 mem\n195 nvidia-frontend\n195 nvidia\n235 nvidia-caps\n"
      "238 nvidia-uvm\n234 nvidia-caps-imex-channels\n\nBlock devices:\n  8 sd\n259 blkext\n");
  EXPECT_EQ(m.at("nvidia"), 195u);
  EXPECT_EQ(m.at("nvidia-caps"), 235u);
  EXPECT_EQ(m.at("nvidia-uvm"), 238u);
  EXPECT_EQ(m.at("nvidia-caps-imex-channels"), 234u);
  EXPECT_EQ(m.count("sd"), 0u);  // block devices are not character majors
  EXPECT_EQ(m.count("nvidia-uvm-tools"), 0u);
}

TEST(ProcDevices, NamesMatchWholeNotAsPrefix) {
  auto m = parse_proc_devices("Character devices:\n238 nvidia-uvmX\n\n");
  EXPECT_EQ(m.count("nvidia-uvm"), 0u);
}

TEST(ProcDevices, NothingBeforeTheCharacterSection) {
  EXPECT_TRUE(parse_proc_devices("195 nvidia\n").empty());
}

TEST(ProcDriverVersion, TakesTheWordAfterKernelModule) {
  EXPECT_EQ(
      *parse_proc_driver_version(
          "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC "
          "2024\nGCC version:  gcc version 12.2.0\n"),
      "550.54.14");
  EXPECT_EQ(
      *parse_proc_driver_version(
          "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  560.35.03  Release Build\n"),
      "560.35.03");
}

TEST(ProcDriverVersion, RejectsUnknownText) { EXPECT_FALSE(parse_proc_driver_version("hello\n")); }

TEST(ProcGpuInformation, ParsesModelUuidBusAndMinor) {
  auto info = parse_proc_gpu_information(
      "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 42\nGPU UUID: \t GPU-1234\n"
      "Video BIOS: \t 96.00.00.00.00\nBus Type: \t PCIe\nBus Location: \t 0000:17:00.0\n"
      "Device Minor: \t 3\nGPU Excluded:\t No\n");
  ASSERT_TRUE(info) << info.error().message();
  EXPECT_EQ(info->model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(info->uuid, "GPU-1234");
  EXPECT_EQ(info->bus_id, "00000000:17:00.0");
  EXPECT_EQ(info->minor, 3u);
}

TEST(ProcGpuInformation, LastLineWithoutNewlineAndCrlfAndBlankLines) {
  auto info = parse_proc_gpu_information(
      "\n\nModel: A\r\nGPU UUID: GPU-9\n\nno colon here\nBus Location: 0000:01:00.0\n"
      "Device Minor: 7");
  ASSERT_TRUE(info) << info.error().message();
  EXPECT_EQ(info->model, "A");
  EXPECT_EQ(info->uuid, "GPU-9");
  EXPECT_EQ(info->minor, 7u);
  // A key must match the whole text before the colon, not a prefix of it.
  EXPECT_FALSE(parse_proc_gpu_information(
      "Model X: a\nGPU UUID: b\nBus Location: 0000:01:00.0\nDevice Minor: 0\n"));
}

TEST(ProcGpuInformation, MissingFieldIsAnError) {
  EXPECT_FALSE(parse_proc_gpu_information("Model: x\nGPU UUID: y\n"));
  EXPECT_FALSE(
      parse_proc_gpu_information("Model: x\nGPU UUID: y\nBus Location: nope\nDevice Minor: 0\n"));
}

TEST(DeviceFileMinor, ReadsTheMinorOfAnAccessFile) {
  EXPECT_EQ(*parse_device_file_minor("DeviceFileMinor: 12\nDeviceFileMode: 292\n"), 12u);
  EXPECT_FALSE(parse_device_file_minor("DeviceFileMode: 292\n"));
  EXPECT_FALSE(parse_device_file_minor("DeviceFileMinor: -1\n"));
}

TEST(MigMinors, ParsesTheFourLineForms) {
  auto m = parse_mig_minors(
      "config 1\nmonitor 2\ngpu0/gi0/access 3\ngpu0/gi0/ci0/access 4\ngpu7/gi14/ci7/access 511\n");
  ASSERT_TRUE(m) << m.error().message();
  ASSERT_EQ(m->size(), 5u);
  EXPECT_EQ((*m)[0].kind, MigMinor::Kind::kConfig);
  EXPECT_EQ((*m)[0].minor, 1u);
  EXPECT_EQ((*m)[0].proc_path, "/proc/driver/nvidia/capabilities/mig/config");
  EXPECT_EQ((*m)[1].kind, MigMinor::Kind::kMonitor);
  EXPECT_EQ((*m)[1].proc_path, "/proc/driver/nvidia/capabilities/mig/monitor");
  EXPECT_EQ((*m)[2].kind, MigMinor::Kind::kGpuInstance);
  EXPECT_EQ((*m)[2].proc_path, "/proc/driver/nvidia/capabilities/gpu0/mig/gi0/access");
  EXPECT_EQ((*m)[3].kind, MigMinor::Kind::kComputeInstance);
  EXPECT_EQ((*m)[3].proc_path, "/proc/driver/nvidia/capabilities/gpu0/mig/gi0/ci0/access");
  EXPECT_EQ((*m)[4].gpu, 7u);
  EXPECT_EQ((*m)[4].gi, 14u);
  EXPECT_EQ((*m)[4].ci, 7u);
  EXPECT_EQ((*m)[4].minor, 511u);
}

TEST(MigMinors, AnyOtherLineIsAnError) {
  for (const char* bad : {"gpu0/gi0 3", "gpu0/gi0/access", "gpu0/gi0/access x", "gpuX/gi0/access 1",
                          "gpu0/gi0/ci0/cj0/access 1", "../../etc/passwd 1", "config -1"}) {
    auto m = parse_mig_minors(bad);
    ASSERT_FALSE(m) << bad;
    EXPECT_NE(m.error().message().find("invalid mig-minors line"), std::string::npos);
  }
}

TEST(MigMinors, ScanGivesTheParsedLinesAndTheSamePaths) {
  std::string text;
  unsigned minor = 3;
  text += "config 1\nmonitor 2\n";
  for (int gpu = 0; gpu < 32; ++gpu)
    for (int gi = 0; gi < 15; ++gi) {
      text += fmt::format("gpu{}/gi{}/access {}\n", gpu, gi, minor++);
      for (int ci = 0; ci < 8; ++ci)
        text += fmt::format("  gpu{}/gi{}/ci{}/access {}\n", gpu, gi, ci, minor++);
    }
  text += "gpu007/gi01/access 9999";  // leading zeros, no final newline
  auto parsed = parse_mig_minors(text);
  auto scanned = scan_mig_minors(text);
  ASSERT_TRUE(parsed) << parsed.error().message();
  ASSERT_TRUE(scanned) << scanned.error().message();
  ASSERT_EQ(parsed->size(), 4323u);
  ASSERT_EQ(scanned->size(), parsed->size());
  for (std::size_t i = 0; i < parsed->size(); ++i) {
    const MigMinor& p = (*parsed)[i];
    const MigMinorLine& l = (*scanned)[i];
    ASSERT_EQ(l.kind, p.kind) << i;
    ASSERT_EQ(l.gpu, p.gpu) << i;
    ASSERT_EQ(l.gi, p.gi) << i;
    ASSERT_EQ(l.ci, p.ci) << i;
    ASSERT_EQ(l.minor, p.minor) << i;
    ASSERT_EQ(mig_minor_proc_path(l), p.proc_path) << i;
  }
  EXPECT_EQ((*parsed)[2].proc_path, "/proc/driver/nvidia/capabilities/gpu0/mig/gi0/access");
  EXPECT_EQ((*parsed)[3].proc_path, "/proc/driver/nvidia/capabilities/gpu0/mig/gi0/ci0/access");
  // The path is the driver's name for the numbers, as the file they stand for is named.
  EXPECT_EQ(parsed->back().proc_path, "/proc/driver/nvidia/capabilities/gpu7/mig/gi1/access");
  EXPECT_EQ(parsed->back().gi, 1u);
}

TEST(MigMinors, ScanRefusesWhatParseRefuses) {
  for (const char* bad : {"gpu0/gi0 3", "gpu0/gi0/access", "gpu0/gi0/access x", "gpuX/gi0/access 1",
                          "gpu0/gi0/ci0/cj0/access 1", "../../etc/passwd 1", "config -1",
                          "config 1\ngpu0/gi1/bogus 2\n"}) {
    auto m = scan_mig_minors(bad);
    ASSERT_FALSE(m) << bad;
    EXPECT_NE(m.error().message().find("invalid mig-minors line"), std::string::npos);
    EXPECT_FALSE(parse_mig_minors(bad)) << bad;
  }
}

TEST(PciBusId, AcceptedFormsNormaliseToTheNvmlForm) {
  EXPECT_EQ(*normalize_pci_bus_id("0000:2a:00.0"), "00000000:2a:00.0");
  EXPECT_EQ(*normalize_pci_bus_id("0:2a:0.0"), "00000000:2a:00.0");
  EXPECT_EQ(*normalize_pci_bus_id("00000000:2A:00.0"), "00000000:2a:00.0");
  EXPECT_EQ(*normalize_pci_bus_id("1:2:3.0"), "00000001:02:03.0");
}

TEST(PciBusId, RejectedForms) {
  for (const char* bad : {"2a:00.0", "0000:2a:00.1", "0000:2a:00", "0000:2ab:00.0", "x:2a:00.0",
                          "0000:2a:00.0x", "", "123456789:00:00.0"})
    EXPECT_FALSE(normalize_pci_bus_id(bad)) << bad;
}

TEST(ParseUnsigned, DigitsOnly) {
  EXPECT_EQ(*parse_unsigned("0"), 0u);
  EXPECT_EQ(*parse_unsigned("4294967295"), 4294967295u);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "4294967296", "0x1", "99999999999"})
    EXPECT_FALSE(parse_unsigned(bad)) << bad;
}

// A MIG-capable GPU with MIG off has an empty gpu<N>/mig folder; each GPU and compute instance
// is a folder below it. Other names are not MIG folders.
TEST(MigFolders, ListsTheMigFolderOfEachGpuAndItsInstances) {
  const std::map<std::string, std::vector<std::string>> tree = {
      {"/c", {"gpu0", "gpu1", "gpu2", "mig", "gpux", "fabric-imex-mgmt"}},
      {"/c/gpu0/mig", {}},
      {"/c/gpu1/mig", {"gi1", "gi2", "other"}},
      {"/c/gpu1/mig/gi1", {"access", "ci0", "ci1"}},
      {"/c/gpu1/mig/gi2", {"access"}},
      {"/c/gpux/mig", {"gi1"}},
  };
  auto list = [&](const std::string& p) -> std::optional<std::vector<std::string>> {
    auto it = tree.find(p);
    if (it == tree.end()) return std::nullopt;
    return it->second;
  };
  auto folders = list_mig_folders("/c", list);
  ASSERT_TRUE(folders);
  std::vector<std::string> got;
  for (const auto& f : *folders) got.push_back(fmt::format("{} {} {}", f.gpu, f.level, f.path));
  EXPECT_EQ(got, (std::vector<std::string>{"0 0 gpu0/mig", "1 0 gpu1/mig", "1 1 gpu1/mig/gi1",
                                           "1 2 gpu1/mig/gi1/ci0", "1 2 gpu1/mig/gi1/ci1",
                                           "1 1 gpu1/mig/gi2"}));
  EXPECT_FALSE(list_mig_folders("/c", list, 3)) << "past the limit";
  auto none = list_mig_folders("/absent", list);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

}  // namespace
}  // namespace nvct::driver
