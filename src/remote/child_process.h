// ChildProcess: an untrusted program run as a child, under the referee's control.
//  - its own process group, and where the kernel allows it (root, or user namespaces) its own
//    PID namespace, so that killing it kills everything it forked;
//  - PR_SET_PDEATHSIG(SIGKILL): it dies when the referee dies, even by kill -9;
//  - optional rlimits; the referee itself ignores SIGPIPE (a dead child's pipe is a hang_up);
//  - stderr drained continuously into a capped per-player log (the excess is counted, dropped);
//  - kill(): SIGKILL to the whole group, reaped, descriptors closed. The destructor kills.
// In its own PID namespace process 1 is a small reaper that holds no descriptor and exits when
// the program (process 2) does, with its exit code (128 + signal for a signal); pid() is that
// reaper's. The program is not process 1 because the kernel drops the signals process 1 sends
// itself: a program crashing by raise(SIGTERM) would hang instead of dying. RLIMIT_NPROC counts
// the reaper.
// Thread-safety: kill() may be called from any thread; the rest from one thread.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ejection.h"
#include "core/json.h"
#include "core/channel.h"
#include "remote/sandbox.h"

namespace arbiter {

// The caps on one program. Memory and processes are a cgroup of the program's own where the
// machine allows it (remote/cgroup.h: the kernel counts the whole tree and says when a cap was
// hit), else RLIMIT_AS and RLIMIT_NPROC (which cap as well, but a program that dies of them
// dies as a hang-up). Each cap that is hit is named: limit_hit().
struct ChildLimits {
  std::optional<std::uint64_t> memory_bytes;  // cgroup memory, else RLIMIT_AS
  std::optional<std::uint64_t> cpu_seconds;   // RLIMIT_CPU, for the whole life of the program
  std::optional<std::uint64_t> open_files;    // RLIMIT_NOFILE
  std::optional<std::uint64_t> processes;     // cgroup pids, else RLIMIT_NPROC; the program's own
  std::optional<std::uint64_t> output_bytes;  // on stderr (here) and on stdout (the channel's)
  // The CPU it may use at once, all its processes together, in thousandths of a CPU (1000: one
  // CPU): its cgroup's CPU quota, with the same weight as every other program, so that a
  // program forking spinners slows only itself. Where the machine has no writable cpu
  // controller it is not enforced (arbiter sandbox check says so).
  std::optional<std::uint64_t> cpu_millis;
  // The CPUs it may run on ("3", "0-1"), a cpuset group of its own (pinning); empty: any.
  // Spawning fails where the machine cannot pin (ProgramCgroup::pin_available).
  std::string cpus;
  friend bool operator==(const ChildLimits&, const ChildLimits&) = default;
};

// A cap the program ran into: the verdict (Why::memory_limit, ...) and what happened.
struct LimitHit {
  Why why;
  std::string detail;
};

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH if it has no '/'
  ChildLimits limits;
  std::filesystem::path stderr_log;   // empty: stderr is drained and dropped
  std::size_t stderr_cap = 1 << 20;   // bytes kept in the log (the first ones)
  std::size_t stderr_tail = 8 << 10;  // bytes kept in memory (the last ones): stderr_tail()
  bool own_pid_namespace = true;      // falls back to a process group when not permitted
  // Where the program starts, and what its relative program path and file arguments are read
  // against; empty: the referee's own directory (sandboxed: its scratch /tmp). Behind the walls
  // it is shown read-only, and the program starts in it.
  std::filesystem::path cwd;
  // Behind the walls of remote/sandbox.h when set; then spawn() fails rather than run the
  // program without them.
  std::optional<SandboxSpec> sandbox;
  // "NAME=VALUE" it gets besides its environment (the walls' clean one, or unwalled the
  // referee's, over which these win).
  std::vector<std::string> environment;
};

// The file spawn() would run for `name` (looked up in `search_path`, else this process's PATH,
// when it has no '/'), if it is an executable regular file; otherwise "cannot run \"NAME\":
// REASON". A program behind the walls is looked up in kSandboxPath, as it will see it.
Expected<std::string> find_program(const std::string& name, const char* search_path = nullptr);

class ChildProcess {
 public:
  // Starts the program. Fails with a one-line Error when it cannot be started (no such
  // program, not executable, fork failure).
  // Call it from a thread that outlives the child (the referee's main thread): the kernel sends
  // PR_SET_PDEATHSIG when the *thread* that forked exits, not only when the process does.
  static Expected<std::unique_ptr<ChildProcess>> spawn(const ChildSpec& spec);
  // What spawn() would refuse before starting anything, found without starting anything: no
  // such program or directory, or walls that refuse to show what the program would see
  // (SandboxPlan::check). Failing with the message spawn() would give.
  static Expected<void> check(const ChildSpec& spec);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const;
  bool in_own_pid_namespace() const;

  // The channel over the child's stdin (we write) and stdout (we read). Once only; nullptr after.
  std::unique_ptr<Channel> take_channel(Framing framing = Framing::lines,
                                        ChannelLimits limits = {});

  // The child's stdin (our write end) and stdout (our read end) as raw descriptors, for a
  // program that speaks no JSON (a build streaming what it built). Once only, instead of
  // take_channel; the caller owns and closes them. {-1, -1} after.
  struct Pipes {
    int in = -1;
    int out = -1;
  };
  Pipes take_pipes();

  // SIGKILL to the child's whole process group (or PID namespace), then reap it and stop the
  // stderr drain. Idempotent; returns quickly.
  void kill();

  // SIGKILL to the child's whole process group (or PID namespace) without waiting: the kernel
  // may take a while to free a large child's memory, and reaping waits for that. kill() (or the
  // destructor) reaps later. After stop_after() it leaves the child its grace.
  void stop();

  // SIGKILL to the child's whole tree `grace` from now, unless it has exited by then; returns at
  // once. For a program that has been told to go (an ejection notice) and may log it first. A
  // kill() before then waits for the child's exit until the same moment, no longer.
  void stop_after(Duration grace);

  // Whether the child has exited (non-blocking; reaps it if so).
  bool exited();

  // How it ended, once exited() (or kill()) has reaped it: its exit code, or 128 + the signal
  // that ended it. Nothing while it runs.
  std::optional<int> exit_code();

  // The cap the program ran into, if any: its stderr passed the output cap, its cgroup saw an
  // OOM kill or a refused fork, or it died of its CPU time. Waits up to `wait` for a child
  // whose output has ended to exit, so that how it died is known.
  std::optional<LimitHit> limit_hit(Duration wait);

  // Whether the memory and process caps are the kernel's cgroup ones (see ChildLimits).
  bool in_own_cgroup() const;
  // The CPU time the program and everything it started have used (its cgroup's count); null
  // where the machine does not count it (ProgramCgroup::accounting_available). Lives as long as
  // this ChildProcess.
  const CpuMeter* cpu_meter() const;

  // Bytes the child wrote to stderr so far, including those beyond the cap.
  std::uint64_t stderr_bytes() const;

  // The last spec.stderr_tail bytes the child wrote to stderr so far (complete after kill()).
  std::string stderr_tail() const;

  // The line of its stderr that says why it died (remote/last_words.h: telling_line(), at most
  // 200 bytes), once its
  // stderr has ended or `wait` has passed. Empty if it wrote nothing.
  std::string last_words(Duration wait) const;

  // Where its stderr is kept (ChildSpec::stderr_log); empty: in no file.
  const std::filesystem::path& stderr_log() const;

  // The first failure to write the stderr log ("PATH: REASON"), or empty. Once a write fails
  // the log gets nothing more; the child is not affected.
  std::string stderr_log_error() const;

  // Ignore SIGPIPE in this process (idempotent); spawn() calls it.
  static void ignore_sigpipe();

 private:
  struct State;
  explicit ChildProcess(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

}  // namespace arbiter
