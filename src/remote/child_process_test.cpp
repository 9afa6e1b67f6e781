// Tests of ChildProcess with /bin/sh scripts and /bin/cat as children.
#include "remote/child_process.h"
#include "remote/last_words.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "core/timing_test.h"
#include "remote/cgroup.h"

namespace arbiter {
namespace {

using namespace std::chrono_literals;
using Ms = std::chrono::milliseconds;
using Us = std::chrono::microseconds;
namespace fs = std::filesystem;
using testing_time::in;

std::unique_ptr<ChildProcess> spawn(const ChildSpec& spec) {
  auto child = ChildProcess::spawn(spec);
  EXPECT_TRUE(child) << child.error().message;
  return child ? std::move(*child) : nullptr;
}

std::unique_ptr<ChildProcess> sh(const std::string& script, ChildSpec spec = {}) {
  spec.argv = {"/bin/sh", "-c", script};
  return spawn(spec);
}

// Waits up to `limit` for the child to exit by itself.
void await_exit(ChildProcess& child, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!child.exited() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(1ms);
}

// The state letter of /proc/PID/stat ('R', 'S', 'Z', ...), or 0 when there is no such process.
char proc_state(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return 0;
  const auto paren = text.rfind(')');
  return paren == std::string::npos || paren + 2 >= text.size() ? 0 : text[paren + 2];
}

bool gone(pid_t pid) {
  const char state = proc_state(pid);
  return state == 0 || state == 'Z' || state == 'X';
}

std::string status_field(pid_t pid, const std::string& key) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with(key + ":")) return line.substr(key.size() + 1);
  }
  return "";
}

// Our pid for the child of `parent` that calls itself `inner_pid` in its own PID namespace.
// The descendant of `ancestor` that is `inner_pid` in its innermost PID namespace, or -1.
pid_t find_descendant(pid_t ancestor, pid_t inner_pid) {
  const auto parent_of = [](pid_t pid) {
    std::istringstream ppid(status_field(pid, "PPid"));
    pid_t p = 0;
    return ppid >> p ? p : 0;
  };
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    pid_t up = parent_of(pid);
    for (int depth = 0; up > 1 && up != ancestor && depth < 8; ++depth) up = parent_of(up);
    if (up != ancestor) continue;
    std::istringstream nspid(status_field(pid, "NSpid"));
    pid_t last = 0;
    for (pid_t x; nspid >> x;) last = x;
    if (last == inner_pid) return pid;
  }
  return -1;
}

std::size_t count_entries(const char* dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++n;
  return n;
}

// Makes this process the reaper of orphaned descendants for the test's duration, so that a
// process whose parent died can be waited for here (and is not left to the container's init).
struct Subreaper {
  Subreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 1); }
  ~Subreaper() {
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  }
};

// Waits up to `limit` for `pid` (a child of ours) to end; its wait status, or -1.
int wait_for_exit(pid_t pid, Duration limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  do {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(1ms);
  } while (std::chrono::steady_clock::now() < until);
  return -1;
}

fs::path temp_file(const std::string& name) {
  return fs::temp_directory_path() /
         ("arbiter-remote-test-" + std::to_string(::getpid()) + "-" + name);
}

std::string file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(ChildProcess, EchoRoundTripThroughCat) {
  auto child = spawn(ChildSpec{.argv = {"cat"}});  // found in PATH
  ASSERT_TRUE(child);
  auto channel = child->take_channel();
  ASSERT_TRUE(channel);
  EXPECT_EQ(child->take_channel(), nullptr);
  EXPECT_EQ(channel->describe(), "pipe to pid " + std::to_string(child->pid()));
  for (int i = 0; i < 3; ++i) {
    const Json request = {{"call", "take_turn"}, {"n", i}};
    auto reply = channel->exchange(request, in(500ms));
    ASSERT_TRUE(reply) << reply.error().detail;
    EXPECT_EQ(*reply, request);
  }
  EXPECT_FALSE(child->exited());
}

TEST(ChildProcess, ChildThatExitsAtOnceIsHangUp) {
  auto child = sh("exit 3");
  ASSERT_TRUE(child);
  auto channel = child->take_channel();
  auto got = channel->receive(in(500ms));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().why, Why::hang_up);
  await_exit(*child, 1s);
  EXPECT_TRUE(child->exited());
  EXPECT_EQ(proc_state(child->pid()), 0);  // reaped
}

TEST(ChildProcess, KillIsPromptAndReaps) {
  auto child = spawn(ChildSpec{.argv = {"/bin/sleep", "1000"}});
  ASSERT_TRUE(child);
  EXPECT_FALSE(child->exited());
  const auto start = std::chrono::steady_clock::now();
  child->kill();
  const auto took = std::chrono::duration_cast<Us>(std::chrono::steady_clock::now() - start);
  std::printf("[   info   ] kill() of a sleeping child took %lld us (%s)\n",
              static_cast<long long>(took.count()),
              child->in_own_pid_namespace() ? "PID namespace" : "process group");
  EXPECT_LT(took, 100ms);
  EXPECT_EQ(proc_state(child->pid()), 0);
  EXPECT_TRUE(child->exited());
  child->kill();  // idempotent
}

TEST(ChildProcess, KillFromAnotherThreadEndsAReceive) {
  auto child = sh("exec sleep 1000");
  ASSERT_TRUE(child);
  auto channel = child->take_channel();
  std::thread killer([&child] {
    std::this_thread::sleep_for(20ms);
    child->kill();
  });
  const auto start = std::chrono::steady_clock::now();
  auto got = channel->receive(in(5s));
  const auto took = std::chrono::steady_clock::now() - start;
  killer.join();
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().why, Why::hang_up);
  EXPECT_LT(took, 200ms);
}

TEST(ChildProcess, ChildIgnoringSigtermIsKilled) {
  auto child = sh("trap '' TERM; echo '\"ready\"'; while :; do sleep 1; done");
  ASSERT_TRUE(child);
  auto channel = child->take_channel();
  EXPECT_EQ(channel->receive(in(500ms)).value_or(0), "ready");
  ::kill(child->pid(), SIGTERM);
  std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(child->exited());
  child->kill();
  EXPECT_EQ(proc_state(child->pid()), 0);
}

class ChildTree : public testing::TestWithParam<bool> {};

TEST_P(ChildTree, KillTakesTheGrandchildrenToo) {
  Subreaper reaper;
  auto child =
      sh("sleep 1000 & echo $!; exec sleep 1000", ChildSpec{.own_pid_namespace = GetParam()});
  ASSERT_TRUE(child);
  auto channel = child->take_channel();
  auto inner = channel->receive(in(500ms));
  ASSERT_TRUE(inner && inner->is_number_integer())
      << (inner ? inner->dump() : inner.error().detail);
  const pid_t grandchild = find_descendant(child->pid(), inner->get<pid_t>());
  ASSERT_GT(grandchild, 0);
  EXPECT_FALSE(gone(grandchild));
  child->kill();
  if (child->in_own_pid_namespace()) {
    // The namespace's processes are reaped by the kernel before its first process is.
    EXPECT_EQ(proc_state(grandchild), 0);
  } else {
    // The grandchild was orphaned to us (the subreaper) and killed with its group.
    const int status = wait_for_exit(grandchild, 1s);
    if (status == -1) ::kill(grandchild, SIGKILL);
    ASSERT_NE(status, -1) << "grandchild survived";
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  }
}

TEST_P(ChildTree, NamespaceAsReported) {
  auto child = sh("echo $$", ChildSpec{.own_pid_namespace = GetParam()});
  ASSERT_TRUE(child);
  if (!GetParam()) {
    EXPECT_FALSE(child->in_own_pid_namespace());
  }
  auto pid = child->take_channel()->receive(in(500ms));
  ASSERT_TRUE(pid);
  // In its own PID namespace the program is process 2 there, under a reaping process 1.
  EXPECT_EQ(*pid, child->in_own_pid_namespace() ? 2 : child->pid());
  if (GetParam() && ::geteuid() == 0) {
    std::printf("[   info   ] running as root; PID namespace %s\n",
                child->in_own_pid_namespace() ? "granted" : "refused");
  }
}

// Process 1 of a namespace is immune to the signals it sends itself; the program is not
// process 1, so a crash by self-signal ends it like anywhere else.
TEST_P(ChildTree, ASelfSignalEndsTheProgram) {
  for (const char* sig : {"TERM", "ABRT", "SEGV"}) {
    auto child = sh(std::string("read line; kill -") + sig + " $$; sleep 5",
                    ChildSpec{.own_pid_namespace = GetParam()});
    ASSERT_TRUE(child);
    auto channel = child->take_channel();
    ASSERT_TRUE(channel->send(Json(1), in(500ms)));
    auto reply = channel->receive(in(2s));
    ASSERT_FALSE(reply) << sig;
    EXPECT_EQ(reply.error().why, Why::hang_up) << sig << ": " << reply.error().detail;
  }
}

TEST_P(ChildTree, DiesWithTheProcessThatSpawnedIt) {
  Subreaper reaper;
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t middle = ::fork();
  ASSERT_GE(middle, 0);
  if (middle == 0) {
    // The intermediary: spawns a sleeper, says its pid, and waits to be killed.
    ::close(report[0]);
    auto child = ChildProcess::spawn(
        ChildSpec{.argv = {"/bin/sleep", "1000"}, .own_pid_namespace = GetParam()});
    const pid_t pid = child ? (*child)->pid() : -1;
    [[maybe_unused]] ssize_t n = ::write(report[1], &pid, sizeof pid);
    for (;;) ::pause();
  }
  ::close(report[1]);
  pid_t sleeper = -1;
  ASSERT_EQ(::read(report[0], &sleeper, sizeof sleeper), static_cast<ssize_t>(sizeof sleeper));
  ::close(report[0]);
  ASSERT_GT(sleeper, 0);
  ASSERT_FALSE(gone(sleeper));
  ::kill(middle, SIGKILL);
  ASSERT_EQ(::waitpid(middle, nullptr, 0), middle);
  // Orphaned, the sleeper is ours to reap now: it must have been killed, not have gone on.
  const int status = wait_for_exit(sleeper, 1s);
  if (status == -1) ::kill(sleeper, SIGKILL);
  ASSERT_NE(status, -1) << "the child outlived the process that spawned it";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

INSTANTIATE_TEST_SUITE_P(Modes, ChildTree, testing::Bool(), [](const auto& info) {
  return info.param ? "PidNamespace" : "ProcessGroup";
});

TEST(ChildProcess, StderrFloodIsCappedAndDoesNotBlockStdout) {
  const fs::path log = temp_file("flood.log");
  auto child = sh("yes flood >&2 & exec cat", ChildSpec{.stderr_log = log, .stderr_cap = 4096});
  ASSERT_TRUE(child);
  auto channel = child->take_channel();
  for (int i = 0; i < 3; ++i) {
    auto reply = channel->exchange(i, in(500ms));
    ASSERT_TRUE(reply) << reply.error().detail;
    EXPECT_EQ(*reply, i);
  }
  const auto until = std::chrono::steady_clock::now() + 2s;
  while (child->stderr_bytes() < 1 << 20 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(1ms);
  EXPECT_GE(child->stderr_bytes(), 1u << 20);
  // Still answering while the flood goes on.
  EXPECT_EQ(channel->exchange("still", in(500ms)).value_or(0), "still");
  child->kill();
  const std::string kept = file_text(log);
  EXPECT_EQ(kept.size(), 4096u);
  EXPECT_TRUE(kept.starts_with("flood\nflood\n"));
  const std::uint64_t counted = child->stderr_bytes();
  std::this_thread::sleep_for(10ms);
  EXPECT_EQ(child->stderr_bytes(), counted);  // the drain stopped
  fs::remove(log);
}

TEST(ChildProcess, StderrIsLogged) {
  const fs::path log = temp_file("stderr.log");
  auto child = sh("echo oops >&2; exit 1", ChildSpec{.stderr_log = log});
  ASSERT_TRUE(child);
  await_exit(*child, 1s);
  child->kill();
  EXPECT_EQ(file_text(log), "oops\n");
  EXPECT_EQ(child->stderr_bytes(), 5u);
  fs::remove(log);
}

TEST(ChildProcess, StderrWithoutALogIsCountedAndDropped) {
  auto child = sh("echo 12345678 >&2; echo '\"done\"'");
  ASSERT_TRUE(child);
  EXPECT_EQ(child->take_channel()->receive(in(500ms)).value_or(0), "done");
  child->kill();
  EXPECT_EQ(child->stderr_bytes(), 9u);
}

TEST(ChildProcess, LimitsApply) {
  // The memory cap is a cgroup of its own where this machine has one, else RLIMIT_AS.
  auto child = sh(
      "ulimit -n; ulimit -t; if grep -q ':memory:.*arbiter-' /proc/self/cgroup; then "
      "cat /sys/fs/cgroup/memory/$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)/"
      "memory.limit_in_bytes; else echo $(($(ulimit -v) * 1024)); fi",
      ChildSpec{.limits = {.memory_bytes = 512u << 20, .cpu_seconds = 5, .open_files = 16}});
  ASSERT_TRUE(child);
  auto channel = child->take_channel();
  EXPECT_EQ(channel->receive(in(500ms)).value_or(0), 16);
  EXPECT_EQ(channel->receive(in(500ms)).value_or(0), 5);
  EXPECT_EQ(channel->receive(in(500ms)).value_or(0), 512 << 20);
}

// The caps are named when hit (the referee turns them into verdicts: wire::throw_fault).
TEST(ChildProcess, AMemoryBombIsAMemoryLimit) {
  if (!ProgramCgroup::available()) {
    // RLIMIT_AS still caps it: the allocation fails inside the program.
    auto child = spawn(ChildSpec{
        .argv = {"/usr/bin/python3", "-c", "x = b'a' * (1 << 30)"},
        .limits = {.memory_bytes = 64u << 20}});
    ASSERT_TRUE(child);
    EXPECT_EQ(child->take_channel()->receive(in(5s)).error().why, Why::hang_up);
    EXPECT_NE(child->last_words(1s).find("MemoryError"), std::string::npos);
    return;
  }
  auto child = spawn(ChildSpec{.argv = {"/usr/bin/python3", "-c", "x = b'a' * (1 << 30)"},
                               .limits = {.memory_bytes = 64u << 20}});
  ASSERT_TRUE(child);
  EXPECT_TRUE(child->in_own_cgroup());
  EXPECT_EQ(child->take_channel()->receive(in(5s)).error().why, Why::hang_up);
  auto hit = child->limit_hit(1s);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->why, Why::memory_limit);
  EXPECT_EQ(hit->detail, "the kernel killed it for using more than 64 MiB of memory");
}

TEST(ChildProcess, AForkBombIsAProcessLimit) {
  auto child = sh("i=0; while [ $i -lt 40 ]; do sleep 30 & i=$((i+1)); done; echo '\"forked\"'; "
                  "sleep 30",
                  ChildSpec{.limits = {.processes = 8}});
  ASSERT_TRUE(child);
  auto channel = child->take_channel();
  if (!child->in_own_cgroup()) {
    // RLIMIT_NPROC: the forks fail, the shell goes on.
    EXPECT_EQ(channel->receive(in(5s)).value_or(0), "forked");
    EXPECT_NE(child->stderr_tail().find("fork"), std::string::npos);
    return;
  }
  // The drain sees the cgroup's refused forks and ends the program.
  const auto reply = channel->receive(in(5s));
  if (reply) {
    EXPECT_EQ(channel->receive(in(5s)).error().why, Why::hang_up);
  }
  auto hit = child->limit_hit(1s);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->why, Why::process_limit);
  EXPECT_EQ(hit->detail, "it tried to run more than 8 processes or threads");
}

TEST(ChildProcess, TooMuchStderrIsAnOutputLimit) {
  auto child = sh("head -c 300000 /dev/zero >&2; sleep 30",
                  ChildSpec{.limits = {.output_bytes = 64u << 10}});
  ASSERT_TRUE(child);
  EXPECT_EQ(child->take_channel()->receive(in(5s)).error().why, Why::hang_up);
  auto hit = child->limit_hit(1s);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->why, Why::output_limit);
  EXPECT_EQ(hit->detail, "more than 64 KiB of output on stderr");
}

TEST(ChildProcess, TooMuchStdoutIsAnOutputLimitOfTheChannel) {
  auto child = sh("head -c 300000 /dev/zero | tr '\\0' 'a'; sleep 30");
  ASSERT_TRUE(child);
  auto channel = child->take_channel(Framing::lines, ChannelLimits{.max_total = 64u << 10});
  const auto reply = channel->receive(in(5s));
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().why, Why::output_limit);
  EXPECT_EQ(reply.error().detail, "more than 65536 bytes of output on stdout");
}

TEST(ChildProcess, SpinningPastItsCpuTimeIsACpuLimit) {
  auto child = sh("while :; do :; done", ChildSpec{.limits = {.cpu_seconds = 1}});
  ASSERT_TRUE(child);
  EXPECT_EQ(child->take_channel()->receive(in(10s)).error().why, Why::hang_up);
  auto hit = child->limit_hit(2s);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->why, Why::cpu_limit);
  EXPECT_EQ(hit->detail, "it used up its 1 s of CPU time");
}

TEST(ChildProcess, AProgramThatEndsWithinItsCapsHitNone) {
  auto child = sh("echo '\"hi\"'", ChildSpec{.limits = {.memory_bytes = 256u << 20,
                                                         .cpu_seconds = 5,
                                                         .processes = 8,
                                                         .output_bytes = 1024}});
  ASSERT_TRUE(child);
  auto channel = child->take_channel();
  EXPECT_EQ(channel->receive(in(5s)).value_or(0), "hi");
  EXPECT_EQ(channel->receive(in(5s)).error().why, Why::hang_up);
  EXPECT_FALSE(child->limit_hit(1s));
}

TEST(ChildProcess, TheChildGetsDefaultSignalsAndOnlyItsStdio) {
  // SIGPIPE is ignored here but must not be in the child; and no descriptor of ours leaks in.
  ChildProcess::ignore_sigpipe();
  auto child =
      sh("grep -E '^(SigIgn|SigBlk)' /proc/self/status | tr -d '\\t' | sed 's/.*/\"&\"/';"
         " ls /proc/self/fd | wc -l");
  ASSERT_TRUE(child);
  auto channel = child->take_channel();
  EXPECT_EQ(channel->receive(in(500ms)).value_or(0), "SigBlk:0000000000000000");
  EXPECT_EQ(channel->receive(in(500ms)).value_or(0), "SigIgn:0000000000000000");
  // 0, 1, 2 and the one ls opens to read the directory.
  EXPECT_EQ(channel->receive(in(500ms)).value_or(0), 4);
}

TEST(ChildProcess, MissingProgramIsAnError) {
  auto missing = ChildProcess::spawn(ChildSpec{.argv = {"arbiter-no-such-program"}});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message,
            "cannot run \"arbiter-no-such-program\": No such file or directory");
  auto bad_path = ChildProcess::spawn(ChildSpec{.argv = {"/nonexistent/player"}});
  ASSERT_FALSE(bad_path);
  EXPECT_EQ(bad_path.error().message,
            "cannot run \"/nonexistent/player\": No such file or directory");
  auto not_executable = ChildProcess::spawn(ChildSpec{.argv = {"/etc/passwd"}});
  ASSERT_FALSE(not_executable);
  EXPECT_EQ(not_executable.error().message, "cannot run \"/etc/passwd\": Permission denied");
  EXPECT_FALSE(ChildProcess::spawn(ChildSpec{}));
  // Nothing was left behind.
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST(ChildProcess, ItsOwnEnvironmentWinsOverTheReferees) {
  const fs::path log = temp_file("env.log");
  ::setenv("ARBITER_TEST_SEED", "referee", 1);
  ::setenv("ARBITER_TEST_KEPT", "kept", 1);
  ChildSpec spec{.stderr_log = log};
  spec.environment = {"ARBITER_TEST_SEED=own", "ARBITER_TEST_NEW=new"};
  auto child =
      sh("echo \"$ARBITER_TEST_SEED $ARBITER_TEST_NEW $ARBITER_TEST_KEPT\" >&2; "
         "env | grep -c '^ARBITER_TEST_SEED=' >&2",
         spec);
  ASSERT_TRUE(child);
  await_exit(*child, 2s);
  child->kill();
  EXPECT_EQ(file_text(log), "own new kept\n1\n");
  ::unsetenv("ARBITER_TEST_SEED");
  ::unsetenv("ARBITER_TEST_KEPT");
  fs::remove(log);
}

// A planted link where the stderr log goes is replaced, never written through; the log is the
// organizer's alone (0600).
TEST(ChildProcess, TheStderrLogIsANewPrivateFile) {
  const fs::path log = temp_file("planted.log");
  const fs::path victim = temp_file("victim.txt");
  std::ofstream(victim) << "ORIGINAL\n";
  fs::remove(log);
  fs::create_symlink(victim, log);
  auto child = sh("echo written >&2", ChildSpec{.stderr_log = log});
  ASSERT_TRUE(child);
  await_exit(*child, 2s);
  child->kill();
  EXPECT_EQ(file_text(victim), "ORIGINAL\n");
  EXPECT_FALSE(fs::is_symlink(log));
  EXPECT_EQ(file_text(log), "written\n");
  EXPECT_EQ(fs::status(log).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  fs::remove(log);
  fs::remove(victim);
}

TEST(ChildProcess, CheckRefusesWhatSpawnRefusesAndStartsNothing) {
  for (const ChildSpec& spec :
       {ChildSpec{.argv = {"arbiter-no-such-program"}}, ChildSpec{.argv = {"/etc/passwd"}},
        ChildSpec{.argv = {"/bin/cat"}, .cwd = "/nonexistent/dir"}, ChildSpec{}}) {
    auto checked = ChildProcess::check(spec);
    auto spawned = ChildProcess::spawn(spec);
    ASSERT_FALSE(checked);
    ASSERT_FALSE(spawned);
    EXPECT_EQ(checked.error().message, spawned.error().message);
  }
  EXPECT_TRUE(ChildProcess::check(ChildSpec{.argv = {"/bin/cat"}}));
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

// The walls refuse to show a program a directory that holds one of the referee's private files
// (the store, a game log, tokens): its own directory, an argument's, its working directory.
// The refusal comes before any wall is built, so it needs no privileges.
TEST(ChildProcess, ThePrivateFilesOfTheRefereeAreNeverShown) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("arbiter-private-{}", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir / "bot");
  fs::create_directories(dir / "elsewhere");
  std::ofstream(dir / "bot" / "weights.txt") << "1 2 3\n";
  const auto walled = [&](fs::path secret, fs::path cwd = {}) {
    ChildSpec spec{.argv = {"/bin/cat", (dir / "bot" / "weights.txt").string()}};
    spec.cwd = std::move(cwd);
    spec.sandbox = SandboxSpec{};
    if (!secret.empty()) spec.sandbox->private_paths = {{std::move(secret), "the secret"}};
    return spec;
  };
  for (const ChildSpec& spec :
       {walled(dir / "bot" / "store.db"),  // beside a file its argument names
        walled(dir / "elsewhere" / "m.jsonl", dir / "elsewhere"),  // in its working directory
        walled(dir / "bot" / "deep" / "tokens")}) {                // below one, not yet written
    auto checked = ChildProcess::check(spec);
    ASSERT_FALSE(checked);
    EXPECT_NE(checked.error().message.find("No program may read it"), std::string::npos)
        << checked.error().message;
    auto spawned = ChildProcess::spawn(spec);
    ASSERT_FALSE(spawned);
    EXPECT_EQ(spawned.error().message, checked.error().message);
  }
  // An argument in / or in a directory everyone shares would show all of it as the program's
  // own: refused whatever is private.
  for (const char* shared : {"/", "/tmp", "/root", "/etc/../tmp/"}) {
    ChildSpec spec = walled({});
    spec.argv.push_back(shared);
    auto refused = ChildProcess::check(spec);
    ASSERT_FALSE(refused) << shared;
    EXPECT_NE(refused.error().message.find("everything there as its own"), std::string::npos)
        << refused.error().message;
  }
  // Elsewhere it may start; not while the file is in the system's directories, which every
  // program sees (a store in /opt or /usr would be read like any file of the system).
  EXPECT_TRUE(ChildProcess::check(walled({dir / "elsewhere" / "store.db"})));
  for (const char* system : {"/usr/share/arbiter-store.db", "/opt/league/t.db", "/etc/x.jsonl"}) {
    auto refused = ChildProcess::check(walled({system}));
    ASSERT_FALSE(refused) << system;
    EXPECT_NE(refused.error().message.find("every program is shown"), std::string::npos)
        << refused.error().message;
  }
  fs::remove_all(dir);
}

// A path in a program's command is followed through a link only where the link stays in its
// directory or leads into the system: a planted link would show its target as the program's.
TEST(ChildProcess, LinksAreFollowedOnlyWithinTheirDirectory) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("arbiter-links-{}", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir / "bot" / "data");
  fs::create_directories(dir / "organizer");
  std::ofstream(dir / "bot" / "weights-v2.txt") << "1 2 3\n";
  std::ofstream(dir / "organizer" / "keys.txt") << "secret\n";
  fs::create_symlink("weights-v2.txt", dir / "bot" / "weights.txt");
  fs::create_symlink(dir / "organizer" / "keys.txt", dir / "bot" / "book.txt");
  fs::create_symlink(dir / "organizer", dir / "bot" / "cache");
  fs::create_symlink("/usr/share", dir / "bot" / "share");
  const auto with = [&](const std::string& arg) {
    ChildSpec spec{.argv = {"/bin/cat", arg}};
    spec.sandbox = SandboxSpec{};
    return ChildProcess::check(spec);
  };
  const fs::path bot = dir / "bot";
  for (const fs::path& fine : {bot / "weights.txt", bot / "data/", bot / "data/../data/.",
                               bot / "share", bot / "weights-v2.txt"})
    EXPECT_TRUE(with(fine.string())) << fine << ": " << with(fine.string()).error().message;
  for (const fs::path& planted : {bot / "book.txt", bot / "cache", bot / "cache" / "keys.txt"}) {
    auto refused = with(planted.string());
    ASSERT_FALSE(refused) << planted;
    EXPECT_NE(refused.error().message.find("leads through a link"), std::string::npos)
        << refused.error().message;
  }
  fs::remove_all(dir);
}

// The line that says why a program died, as each runtime prints its crash (the last line is
// often a stack frame, a banner or a hint instead).
TEST(TellingLine, EachRuntimesCrashGivesItsErrorLine) {
  const std::pair<std::string, std::string> crashes[] = {
      {"/bots/bot.js:3\n  throw new Error('no move');\n  ^\n\nError: no move\n    at "
       "Object.<anonymous> "
       "(/bots/bot.js:3:9)\n    at Module._compile (node:internal:1)\n\nNode.js v20.20.2\n",
       "Error: no move"},
      {"Traceback (most recent call last):\n  File \"/b/bot.py\", line 9, in <module>\n    "
       "main()\nValueError: bad view\n",
       "ValueError: bad view"},
      {"Exception in thread \"main\" java.lang.IllegalStateException: no tiles\n\tat "
       "Bot.take(Bot.java:40)\n\tat Bot.main(Bot.java:12)\n",
       "Exception in thread \"main\" java.lang.IllegalStateException: no tiles"},
      {"panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\n"
       "main.main()\n\t/b/main.go:9 +0x1d\nexit status 2\n",
       "panic: runtime error: index out of range [3] with length 3"},
      {"thread 'main' panicked at src/main.rs:4:5:\nno legal move\nnote: run with "
       "`RUST_BACKTRACE=1` environment variable to display a backtrace\n",
       "thread 'main' panicked at src/main.rs:4:5: no legal move"},
      {"terminate called after throwing an instance of 'std::runtime_error'\n  what():  bad "
       "input\n",
       "terminate called after throwing an instance of 'std::runtime_error' what():  bad input"},
      {"python3: can't open file '/b/nope.py': [Errno 2] No such file or directory\n",
       "python3: can't open file '/b/nope.py': [Errno 2] No such file or directory"},
      {"thinking...\ngave up\n\n", "gave up"},
      {"", ""},
  };
  for (const auto& [tail, line] : crashes) EXPECT_EQ(telling_line(tail), line) << tail;
  EXPECT_EQ(telling_line(std::string(500, 'x')).size(), 200u);
}

TEST(ChildProcess, FiftyChildrenLeaveNothingBehind) {
  // The reaper's image is one descriptor for the life of the process, opened by the first spawn.
  ASSERT_TRUE(spawn(ChildSpec{.argv = {"/bin/true"}}));
  const std::size_t fds = count_entries("/proc/self/fd");
  const std::size_t threads = count_entries("/proc/self/task");
  std::vector<std::unique_ptr<ChildProcess>> children;
  std::vector<std::unique_ptr<Channel>> channels;
  for (int i = 0; i < 50; ++i) {
    auto child = i % 2 ? spawn(ChildSpec{.argv = {"/bin/cat"}})
                       : sh("echo x >&2; sleep 1000 & exec sleep 1000");
    ASSERT_TRUE(child);
    if (i % 3 == 0) channels.push_back(child->take_channel());
    children.push_back(std::move(child));
  }
  EXPECT_EQ(count_entries("/proc/self/task"), threads + 50);
  for (auto& child : children) child->kill();
  channels.clear();
  EXPECT_EQ(count_entries("/proc/self/fd"), fds);
  EXPECT_EQ(count_entries("/proc/self/task"), threads);
  children.clear();
  EXPECT_EQ(count_entries("/proc/self/fd"), fds);
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

}  // namespace
}  // namespace arbiter
