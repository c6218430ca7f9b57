// spec/ctk.md §2: lock file, foreign-edit detection, symlinks written through, mode and owner
// kept, nothing deleted, optional backup.
#include "nvct/ctk/host_file.hpp"

#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::ctk {
namespace {

using nvct::testing::TempDir;

TEST(HostFile, MissingFileReadsAsAbsent) {
  TempDir dir;
  auto c = read_host_file(dir / "daemon.json");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_FALSE(c->text.has_value());
  EXPECT_FALSE(c->stamp.exists);
}

TEST(HostFile, DirectoryIsAnError) {
  TempDir dir;
  std::filesystem::create_directory(dir / "daemon.json");
  EXPECT_FALSE(read_host_file(dir / "daemon.json"));
}

TEST(HostFile, ReplaceKeepsModeAndCreatesParentDirectories) {
  TempDir dir;
  auto path = dir.write("daemon.json", "{}");
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  auto c = read_host_file(path);
  ASSERT_TRUE(c);
  ASSERT_TRUE(replace_host_file(path, "{\"a\":1}", c->stamp));
  EXPECT_EQ(dir.read("daemon.json"), "{\"a\":1}");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);

  auto nested = dir / "a/b/99-nvidia.toml";
  ASSERT_TRUE(replace_host_file(nested, "x = 1\n", HostFileStamp{}));
  EXPECT_EQ(dir.read("a/b/99-nvidia.toml"), "x = 1\n");
}

TEST(HostFile, EmptyResultIsWrittenNotDeleted) {
  TempDir dir;
  auto path = dir.write("config.toml", "version = 2\n");
  auto c = read_host_file(path);
  ASSERT_TRUE(c);
  ASSERT_TRUE(replace_host_file(path, "", c->stamp));
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(dir.read("config.toml"), "");
}

TEST(HostFile, ForeignEditBetweenReadAndReplaceIsRefused) {
  TempDir dir;
  auto path = dir.write("daemon.json", "{}");
  auto c = read_host_file(path);
  ASSERT_TRUE(c);
  dir.write("daemon.json", "{\"someone\":\"else\"}");
  auto st = replace_host_file(path, "{\"mine\":1}", c->stamp);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), EAGAIN);
  EXPECT_EQ(dir.read("daemon.json"), "{\"someone\":\"else\"}");
}

TEST(HostFile, FileCreatedByOtherProgramMeanwhileIsRefused) {
  TempDir dir;
  auto c = read_host_file(dir / "daemon.json");
  ASSERT_TRUE(c);
  dir.write("daemon.json", "{}");
  EXPECT_FALSE(replace_host_file(dir / "daemon.json", "{\"mine\":1}", c->stamp));
}

TEST(HostFile, BackupOnlyWhenAsked) {
  TempDir dir;
  auto path = dir.write("daemon.json", "old");
  auto c = read_host_file(path);
  ASSERT_TRUE(replace_host_file(path, "new", c->stamp));
  EXPECT_FALSE(std::filesystem::exists(path + ".bak"));
  c = read_host_file(path);
  ASSERT_TRUE(replace_host_file(path, "newer", c->stamp, {.backup = true}));
  EXPECT_EQ(dir.read("daemon.json.bak"), "new");
  EXPECT_EQ(dir.read("daemon.json"), "newer");
}

TEST(HostFile, SymlinkResolvesToItsTarget) {
  TempDir dir;
  dir.write("real/daemon.json", "{}");
  std::filesystem::create_directory(dir / "etc");
  std::filesystem::create_symlink("../real/daemon.json", dir / "etc/daemon.json");
  auto r = resolve_host_file(dir / "etc/daemon.json");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(std::filesystem::canonical(*r), std::filesystem::canonical(dir / "real/daemon.json"));
}

TEST(HostFile, DanglingSymlinkResolvesToTheFileItWouldCreate) {
  TempDir dir;
  std::filesystem::create_symlink(dir / "target.json", dir / "daemon.json");
  auto r = resolve_host_file(dir / "daemon.json");
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, dir / "target.json");
}

TEST(HostFile, SymlinkLoopIsAnError) {
  TempDir dir;
  std::filesystem::create_symlink(dir / "b", dir / "a");
  std::filesystem::create_symlink(dir / "a", dir / "b");
  auto r = resolve_host_file(dir / "a");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ELOOP);
}

TEST(HostFile, LockIsExclusiveAndTimesOut) {
  TempDir dir;
  auto first = HostFileLock::acquire(dir / "daemon.json");
  ASSERT_TRUE(first) << first.error().message();
  EXPECT_TRUE(std::filesystem::exists(dir / ".daemon.json.lock"));
  auto second = HostFileLock::acquire(dir / "daemon.json", std::chrono::milliseconds(100));
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code(), EWOULDBLOCK);
}

TEST(HostFile, LockIsReleasedWithItsOwnerAndItsFileDeleted) {
  TempDir dir;
  {
    auto first = HostFileLock::acquire(dir / "daemon.json");
    ASSERT_TRUE(first);
  }
  EXPECT_FALSE(std::filesystem::exists(dir / ".daemon.json.lock"));
  EXPECT_TRUE(HostFileLock::acquire(dir / "daemon.json", std::chrono::milliseconds(100)));
  EXPECT_FALSE(std::filesystem::exists(dir / ".daemon.json.lock"));
}

// Stopped by a signal while holding the lock (Ctrl-C, systemd's SIGTERM): no .lock file stays.
TEST(HostFile, AHolderStoppedBySigtermLeavesNoLockFile) {
  TempDir dir;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGTERM, SIG_DFL);
    auto lock = HostFileLock::acquire(dir / "daemon.json");
    if (!lock || !std::filesystem::exists(dir / ".daemon.json.lock")) ::_exit(3);
    ::raise(SIGTERM);
    ::_exit(4);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_FALSE(std::filesystem::exists(dir / ".daemon.json.lock"));
}

// A waiter that wins the flock of a lock file its holder deleted must not count it: a newer
// process may already hold the new file at the path, and both would hold "the" lock.
TEST(HostFile, AWaiterOnADeletedLockFileStartsOver) {
  TempDir dir;
  std::string lock_path = dir / ".daemon.json.lock";
  unique_fd old(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  ASSERT_TRUE(old);
  ASSERT_EQ(::flock(old.get(), LOCK_EX), 0);
  std::atomic<bool> done{false};
  std::optional<Result<HostFileLock>> second;
  std::thread waiter([&] {
    second.emplace(HostFileLock::acquire(dir / "daemon.json", std::chrono::seconds(5)));
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // it waits on the old inode
  ASSERT_EQ(::unlink(lock_path.c_str()), 0);  // the old holder lets go: delete, ...
  std::optional<HostFileLock> newer;
  {
    auto acquired = HostFileLock::acquire(dir / "daemon.json", std::chrono::seconds(1));
    ASSERT_TRUE(acquired) << acquired.error().message();
    newer.emplace(std::move(*acquired));  // (a newer process locks the new file)
  }
  old.reset();  // ... then unlock
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(done);  // the deleted inode's lock is not the lock
  newer.reset();
  waiter.join();
  ASSERT_TRUE(second.has_value());
  EXPECT_TRUE(*second) << second->error().message();
}

// A non-root user on root's files: "must be run as root", not a bare lock-file error.
TEST(HostFile, NonRootGetsMustBeRunAsRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to drop to nobody";
  TempDir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  int pipefd[2];
  ASSERT_EQ(::pipe(pipefd), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(pipefd[0]);
    if (::setgroups(0, nullptr) != 0 || ::setresgid(65534, 65534, 65534) != 0 ||
        ::setresuid(65534, 65534, 65534) != 0)
      _exit(2);
    auto lock = HostFileLock::acquire(dir / "daemon.json", std::chrono::milliseconds(100));
    std::string message = lock ? "acquired" : lock.error().message();
    (void)!::write(pipefd[1], message.data(), message.size());
    _exit(0);
  }
  ::close(pipefd[1]);
  std::string message;
  char buf[512];
  for (ssize_t n; (n = ::read(pipefd[0], buf, sizeof buf)) > 0;) message.append(buf, n);
  ::close(pipefd[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(message, "open lock file " + dir.path() +
                         "/.daemon.json.lock: Permission denied: nvidia-ctk must be run as "
                         "root to edit " +
                         dir.path() + "/daemon.json");
}

TEST(EditHostFile, EditsExistingFileKeepingModeUnderASidecarLock) {
  TempDir dir;
  std::string path = dir.write("config.toml", "old\n");
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  Status s =
      edit_host_file(path, [](const std::optional<std::string>& current) -> Result<std::string> {
        EXPECT_EQ(current, std::optional<std::string>("old\n"));
        return std::string("new\n");
      });
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(dir.read("config.toml"), "new\n");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  // The sidecar lock is gone once the edit is done.
  EXPECT_NE(::access((dir / ".config.toml.lock").c_str(), F_OK), 0);
}

// security.md row 44: a hard-linked config (its other name may be a host file) is refused with
// nothing written, no backup either; owner, group, mode and xattrs of a normal one are kept.
TEST(EditHostFile, AHardLinkedFileIsRefusedAndNothingIsWritten) {
  TempDir dir;
  std::string host = dir.write("host-file", "host\n");
  std::string path = dir / "daemon.json";
  ASSERT_EQ(::link(host.c_str(), path.c_str()), 0);
  auto edit = [](const std::optional<std::string>&) -> Result<std::string> {
    return std::string("new\n");
  };
  Status s = edit_host_file(path, edit, ReplaceOptions{.backup = true});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), EMLINK);
  EXPECT_NE(s.error().message().find("daemon.json has 2 hard links"), std::string::npos)
      << s.error().message();
  EXPECT_EQ(dir.read("host-file"), "host\n");
  EXPECT_NE(::access((dir / "daemon.json.bak").c_str(), F_OK), 0);
}

TEST(EditHostFile, KeepsOwnerGroupModeAndTheLabelXattr) {
  TempDir dir;
  std::string path = dir.write("daemon.json", "{}\n");
  ASSERT_EQ(::chown(path.c_str(), 0, 4242), 0) << "needs root";
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  ASSERT_EQ(::setxattr(path.c_str(), "user.nvct-label", "etc_t", 5, 0), 0);
  Status s = edit_host_file(path, [](const std::optional<std::string>&) -> Result<std::string> {
    return std::string("{\"a\":1}\n");
  });
  ASSERT_TRUE(s) << s.error().message();
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_gid, 4242u);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  char buf[16] = {};
  EXPECT_EQ(::getxattr(path.c_str(), "user.nvct-label", buf, sizeof buf), 5);
  EXPECT_EQ(std::string(buf), "etc_t");
}

TEST(EditHostFile, CreatesMissingFile) {
  TempDir dir;
  Status s = edit_host_file(dir / "new.toml",
                            [](const std::optional<std::string>& current) -> Result<std::string> {
                              EXPECT_FALSE(current.has_value());
                              return std::string("x = 1\n");
                            });
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(dir.read("new.toml"), "x = 1\n");
}

TEST(EditHostFile, EditErrorLeavesFileUntouched) {
  TempDir dir;
  std::string path = dir.write("config.toml", "old\n");
  Status s = edit_host_file(path, [](const std::optional<std::string>&) -> Result<std::string> {
    return fail(EINVAL, "bad edit");
  });
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message(), "bad edit");
  EXPECT_EQ(dir.read("config.toml"), "old\n");
}

TEST(EditHostFile, ForeignChangeDuringEditIsRefused) {
  TempDir dir;
  std::string path = dir.write("config.toml", "old\n");
  Status s = edit_host_file(path, [&](const std::optional<std::string>&) -> Result<std::string> {
    dir.write("config.toml", "someone else's much longer edit\n");
    return std::string("ours\n");
  });
  ASSERT_FALSE(s);
  EXPECT_EQ(dir.read("config.toml"), "someone else's much longer edit\n");
}

TEST(EditHostFile, SymlinkedFileIsEditedThroughTheLinkWhichIsKept) {
  TempDir dir;
  std::string target = dir.write("real.toml", "old\n");
  std::string link = dir / "config.toml";
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  Status s =
      edit_host_file(link, [](const std::optional<std::string>& current) -> Result<std::string> {
        EXPECT_EQ(current, std::optional<std::string>("old\n"));
        return std::string("new\n");
      });
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(dir.read("real.toml"), "new\n");
  struct stat st {};
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST(RemoveHostFile, DeletesTheFileItRead) {
  TempDir dir;
  auto path = dir.write("conf.d/99-nvidia.toml", "x = 1\n");
  auto c = read_host_file(path);
  ASSERT_TRUE(c);
  ASSERT_TRUE(remove_host_file(path, c->stamp));
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_TRUE(std::filesystem::is_directory(dir / "conf.d"));
}

TEST(RemoveHostFile, ForeignEditBetweenReadAndRemoveIsRefused) {
  TempDir dir;
  auto path = dir.write("99-nvidia.toml", "x = 1\n");
  auto c = read_host_file(path);
  ASSERT_TRUE(c);
  dir.write("99-nvidia.toml", "someone = \"else\"\n");
  auto st = remove_host_file(path, c->stamp);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), EAGAIN);
  EXPECT_EQ(dir.read("99-nvidia.toml"), "someone = \"else\"\n");
}

TEST(RemoveHostFile, BackupKeepsTheContentAndAMissingFileIsANoOp) {
  TempDir dir;
  auto path = dir.write("99-nvidia.toml", "x = 1\n");
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  auto c = read_host_file(path);
  ASSERT_TRUE(remove_host_file(path, c->stamp, {.backup = true}));
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(dir.read("99-nvidia.toml.bak"), "x = 1\n");
  struct stat st {};
  ASSERT_EQ(::stat((path + ".bak").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  auto missing = read_host_file(dir / "missing.toml");
  ASSERT_TRUE(missing);
  EXPECT_TRUE(remove_host_file(dir / "missing.toml", missing->stamp));
}

TEST(HostFileEdit, WriteLogsAndKeepsTheLockedFileUpToDate) {
  TempDir dir;
  auto sink = std::make_shared<nvct::testing::MemorySink>();
  log::set_sink(sink);
  std::string target = dir.write("real.json", "{}");
  std::string link = dir / "daemon.json";
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  auto edit = open_host_file_edit(link, true);
  ASSERT_TRUE(edit) << edit.error().message();
  EXPECT_TRUE(edit->lock.has_value());
  EXPECT_EQ(edit->content.text, std::optional<std::string>("{}"));
  ASSERT_TRUE(write_host_file_edit(*edit, "{\"a\":1}"));
  EXPECT_EQ(dir.read("real.json"), "{\"a\":1}");
  EXPECT_TRUE(sink->contains("Wrote updated config to " + target + " (through the symbolic link " +
                             link + ")"));
  log::set_sink(nullptr);
}

TEST(HostFileEdit, UnlockedOpenCreatesNothing) {
  TempDir dir;
  auto edit = open_host_file_edit(dir / "etc/missing.json", false);
  ASSERT_TRUE(edit) << edit.error().message();
  EXPECT_FALSE(edit->content.text.has_value());
  EXPECT_FALSE(std::filesystem::exists(dir / "etc"));
}

TEST(HostFileEdit, RemoveDeletesTheFileAndItsLockFile) {
  TempDir dir;
  auto sink = std::make_shared<nvct::testing::MemorySink>();
  log::set_sink(sink);
  std::string path = dir.write("conf.d/99-nvidia.toml", "x = 1\n");
  {
    auto edit = open_host_file_edit(path, true);
    ASSERT_TRUE(edit) << edit.error().message();
    EXPECT_TRUE(std::filesystem::exists(dir / "conf.d/.99-nvidia.toml.lock"));
    ASSERT_TRUE(remove_host_file_edit(*edit));
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir / "conf.d"));
  EXPECT_TRUE(sink->contains("Removed " + path));
  log::set_sink(nullptr);
}

}  // namespace
}  // namespace nvct::ctk
