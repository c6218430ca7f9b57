#include "doctor_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include "../../diagnose/mock_host.hpp"

namespace nvct::cmd::nvidia_ctk {
namespace {

using nvct::diagnose::testing::MockHost;

struct Outcome {
  int code;
  std::string out, err;
};

Outcome run(MockHost& host, DoctorFlags flags) {
  flags.root = host.path();
  flags.options.nvml = host.options().nvml;
  std::ostringstream out, err;
  int code = run_doctor_command(flags, out, err, false);
  return {code, out.str(), err.str()};
}

TEST(DoctorCommand, HealthyHostExitsZero) {
  if (!MockHost::can_mknod()) {
    GTEST_SKIP() << "device nodes need root";
  }
  MockHost host;
  Outcome r = run(host, {});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("driver.ok"), std::string::npos);
  EXPECT_EQ(r.out.find("\033["), std::string::npos) << "no colour off a tty";
  EXPECT_EQ(r.err, "");
}

TEST(DoctorCommand, ErrorExitsOneAndFailOnWarn) {
  if (!MockHost::can_mknod()) {
    GTEST_SKIP() << "device nodes need root";
  }
  MockHost host;
  host.remove("/dev/char/195:255");
  EXPECT_EQ(run(host, {}).code, 0);
  DoctorFlags warn;
  warn.fail_on = "warn";
  EXPECT_EQ(run(host, warn).code, 1);
  host.remove("/dev/nvidia0");
  EXPECT_EQ(run(host, {}).code, 1);
}

TEST(DoctorCommand, CannotRunExitsTwoWithOneLineOnStderr) {
  MockHost host;
  DoctorFlags flags;
  flags.root = host.host_path("/etc/docker/daemon.json");
  std::ostringstream out, err;
  EXPECT_EQ(run_doctor_command(flags, out, err, false), 2);
  EXPECT_EQ(out.str(), "");
  const std::string message = err.str();
  EXPECT_NE(message.find("not a directory"), std::string::npos);
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1);
}

TEST(DoctorCommand, BadFlagValuesExitTwo) {
  MockHost host;
  DoctorFlags format;
  format.format = "yaml";
  EXPECT_EQ(run(host, format).code, 2);
  DoctorFlags fail_on;
  fail_on.fail_on = "info";
  EXPECT_EQ(run(host, fail_on).code, 2);
  DoctorFlags color;
  color.color = "sometimes";
  EXPECT_EQ(run(host, color).code, 2);
  DoctorFlags only;
  only.options.only = {"nothing"};
  Outcome r = run(host, only);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
}

TEST(DoctorCommand, JsonFormat) {
  MockHost host;
  DoctorFlags flags;
  flags.format = "json";
  flags.options.only = {"config"};
  Outcome r = run(host, flags);
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["exitCode"], r.code);
  EXPECT_EQ(doc["host"]["root"], host.path());
}

TEST(DoctorCommand, ColourAlways) {
  MockHost host;
  DoctorFlags flags;
  flags.color = "always";
  flags.options.only = {"config"};
  EXPECT_NE(run(host, flags).out.find("\033[32mok\033[0m"), std::string::npos);
}

TEST(DoctorCommand, FlagErrorsOfDoctorAreRecognised) {
  const char* doctor[] = {"nvidia-ctk", "--debug", "doctor", "--bogus"};
  const char* other[] = {"nvidia-ctk", "cdi", "doctor"};
  EXPECT_TRUE(is_doctor_invocation(4, const_cast<char**>(doctor)));
  EXPECT_FALSE(is_doctor_invocation(3, const_cast<char**>(other)));
}

}  // namespace
}  // namespace nvct::cmd::nvidia_ctk
