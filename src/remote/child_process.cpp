// ChildProcess: fork/exec of an untrusted program, confined to its own process group (and PID
// namespace when permitted), tied to the referee's life, with its stderr drained into a log.
#include "remote/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "core/units.h"
#include "remote/cgroup.h"
#include "remote/fd_channel.h"
#include "remote/io.h"
#include "remote/last_words.h"
#include "remote/reaper_image.h"
#include "remote/sandbox.h"

extern char** environ;

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

namespace arbiter {
namespace {

constexpr std::size_t kStderrChunk = 64 * 1024;
constexpr int kCgroupPollMs = 20;


using Resource = decltype(RLIMIT_AS);

// What the child writes to the report pipe when it cannot get as far as running the program.
struct ChildFailure {
  enum Stage : int { stdio, limits, exec, sandbox, workdir } stage;
  int err;
  int step = 0;  // for sandbox: SandboxPlan's step
};

// Everything the child needs, prepared before fork() so that the child only makes system calls.
struct Launch {
  std::string path;  // the resolved executable
  std::vector<std::string> args;
  std::vector<char*> argv;
  std::vector<char*> env;  // unwalled, with spec.environment; empty: the referee's own
  std::vector<std::pair<Resource, rlimit>> limits;
  int stdin_r = -1;
  int stdout_w = -1;
  int stderr_w = -1;
  int report_r = -1;
  int report_w = -1;
  int max_fd = 1024;  // for closing descriptors one by one when close_range() is missing
  std::string cwd;    // unsandboxed: where the program starts; empty: where the referee is
  pid_t parent = 0;
  bool in_namespace = false;
  const SandboxPlan* sandbox = nullptr;  // the walls, when the program plays behind them
  const std::vector<int>* cgroup_joins = nullptr;  // cgroup.procs files to write "0" to
  int reaper = -1;  // the reaper's image (reaper_fd()), for a PID namespace of its own
};

// Runs in the child between fork and exec: async-signal-safe calls only (no allocation, no
// locks), since another thread of the referee may have held any lock at the fork.
// Called as process 1 of a new PID namespace: starts the player, which returns to exec as process
// 2, then becomes the reaper (reaper.cpp) by exec, so that nothing of the referee's memory or
// argv stays in the namespace. The player waits at a gate (a pipe whose write end the exec
// closes) so that it never runs while process 1 is still a copy of the referee. The player must
// not be process 1: the kernel drops signals that process 1 sends itself, so a player that
// crashes by raise() or abort()-like self-signals would hang instead of dying.
// `gate`: a close-on-exec pipe. Returns false (in process 1) if the fork fails; never returns
// in process 1 otherwise.
bool stay_as_init(const Launch& l, const int (&gate)[2]) {
  // The raw system call: glibc's fork() takes locks that another thread of the referee may have
  // held when it cloned us.
  const auto player = static_cast<pid_t>(::syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0));
  if (player == 0) {
    ::close(gate[1]);
    char ignored;
    while (::read(gate[0], &ignored, 1) < 0 && errno == EINTR) {
    }
    ::close(gate[0]);
    return true;
  }
  if (player < 0) return false;
  // Only the gate's write end (closed by the exec) and the reaper's image stay open.
  if (::dup3(gate[1], 0, O_CLOEXEC) < 0 || ::dup3(l.reaper, 1, O_CLOEXEC) < 0) {
    ::kill(player, SIGKILL);
    ::_exit(127);
  }
  if (::syscall(SYS_close_range, 2U, ~0U, 0U) != 0)
    for (int fd = 2; fd < l.max_fd; ++fd) ::close(fd);
  static const char* const argv[] = {"arbiter-reaper", nullptr};
  static const char* const envp[] = {nullptr};
  ::syscall(SYS_execveat, 1, "", argv, envp, AT_EMPTY_PATH);
  ::kill(player, SIGKILL);
  ::_exit(127);
}

[[noreturn]] void run_child(const Launch& l) {
  const auto report = [&](ChildFailure::Stage stage, int step = 0) {
    const ChildFailure failure{stage, errno, step};
    [[maybe_unused]] ssize_t n = ::write(l.report_w, &failure, sizeof failure);
    ::_exit(127);
  };

  // Dispositions before the mask: a signal pending from the parent must not reach a handler that
  // only made sense in the parent. (SIG_IGN would even survive exec.)
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigemptyset(&dfl.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);
  }

  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have died before prctl() took effect. getppid() tells only outside a new PID
  // namespace (inside it is 0 either way); the report pipe tells in both cases, since once our
  // copy of its read end is closed only the parent holds one.
  ::close(l.report_r);
  pollfd reader_gone{l.report_w, 0, 0};
  if (::poll(&reader_gone, 1, 0) < 0 || (reader_gone.revents & POLLERR) != 0) ::_exit(127);
  if (!l.in_namespace && ::getppid() != l.parent) ::_exit(127);

  if (::dup2(l.stdin_r, 0) < 0 || ::dup2(l.stdout_w, 1) < 0 || ::dup2(l.stderr_w, 2) < 0)
    report(ChildFailure::stdio);
  // Into its cgroups while still privileged; whatever it starts is born in them.
  if (l.cgroup_joins != nullptr)
    for (const int fd : *l.cgroup_joins)
      if (::write(fd, "0", 1) != 1) report(ChildFailure::limits);
  // The walls first: the limits may leave too few descriptors to build them, and RLIMIT_NPROC
  // counts the processes of the sandbox's own uid.
  if (l.sandbox != nullptr) {
    if (const int step = l.sandbox->apply(); step != 0) report(ChildFailure::sandbox, step);
    // Changing credentials cleared the death signal (apply() set it again): check once more
    // that the parent is still there to receive the report.
    if (::poll(&reader_gone, 1, 0) < 0 || (reader_gone.revents & POLLERR) != 0) ::_exit(127);
  }
  if (!l.cwd.empty() && ::chdir(l.cwd.c_str()) < 0) report(ChildFailure::workdir);
  // Before the limits, which may leave no room for more descriptors.
  int gate[2] = {-1, -1};
  if (l.in_namespace && ::pipe2(gate, O_CLOEXEC) < 0) report(ChildFailure::exec);
  for (const auto& [resource, limit] : l.limits) {
    if (::setrlimit(resource, &limit) < 0) report(ChildFailure::limits);
  }
  // Close-on-exec rather than closed, so that the report pipe still works if exec fails.
  if (::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd < l.max_fd; ++fd) {
      if (fd != l.report_w && fd != l.reaper && fd != gate[0] && fd != gate[1]) ::close(fd);
    }
  }

  if (l.in_namespace && !stay_as_init(l, gate)) report(ChildFailure::exec);

  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(l.path.c_str(), l.argv.data(),
           l.sandbox != nullptr ? l.sandbox->environment()
           : !l.env.empty()     ? l.env.data()
                                : environ);
  report(ChildFailure::exec);
  ::_exit(127);  // not reached
}

// A close-on-exec pipe with both ends at 3 or above, so that placing the child's ends on 0, 1
// and 2 can never overwrite another of them.
bool make_pipe(int& read_end, int& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) < 0) return false;
  for (int& fd : fds) {
    if (fd >= 3) continue;
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    ::close(fd);
    fd = moved;
  }
  if (fds[0] < 0 || fds[1] < 0) {
    close_fd(fds[0]);
    close_fd(fds[1]);
    return false;
  }
  read_end = fds[0];
  write_end = fds[1];
  return true;
}

void add_limit(Launch& l, Resource resource, const std::optional<std::uint64_t>& value) {
  if (!value) return;
  rlimit current{};
  if (::getrlimit(resource, &current) < 0) return;
  const rlim_t want = std::min<std::uint64_t>(*value, RLIM_INFINITY - 2);
  // Lowering the hard limit too keeps the program from raising it back. For CPU time the hard
  // limit is a second later: SIGXCPU first, which a program may catch, then SIGKILL.
  const rlim_t hard = std::min(resource == RLIMIT_CPU ? want + 1 : want, current.rlim_max);
  l.limits.push_back({resource, rlimit{std::min(want, hard), hard}});
}

// 0, or the errno of the write that failed.
int write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return w < 0 ? errno : EIO;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return 0;
}

// A sealed memfd holding the reaper's executable image (reaper_image.h), made once; or the error.
Expected<int> reaper_fd() {
  static const Expected<int> fd = []() -> Expected<int> {
#ifndef MFD_EXEC
    constexpr unsigned kExec = 0x10U;  // Linux 6.3+: exec allowed whatever vm.memfd_noexec says
#else
    constexpr unsigned kExec = MFD_EXEC;
#endif
    int made = ::memfd_create("arbiter-reaper", MFD_CLOEXEC | MFD_ALLOW_SEALING | kExec);
    if (made < 0 && errno == EINVAL)
      made = ::memfd_create("arbiter-reaper", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (made < 0) return fail(fmt::format("no memfd for the reaper: {}", std::strerror(errno)));
    const auto* bytes = reinterpret_cast<const char*>(kReaperImage);
    if (write_all(made, bytes, kReaperImage_SIZE) != 0 || ::fchmod(made, 0555) < 0 ||
        ::fcntl(made, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) < 0) {
      const int err = errno;
      ::close(made);
      return fail(fmt::format("cannot write the reaper's image: {}", std::strerror(err)));
    }
    return made;
  }();
  return fd;
}

}  // namespace

// Looked up here rather than by execvp() because the child cannot allocate.
Expected<std::string> find_program(const std::string& name, const char* search_path) {
  const auto refuse = [&](int err) {
    return fail(fmt::format(
        "cannot run \"{}\": {}{}", name, std::strerror(err),
        search_path != nullptr && name.find('/') == std::string::npos
            ? fmt::format(" (looked up in {}, as the program will see it behind the walls; "
                          "give its absolute path)",
                          search_path)
            : std::string()));
  };
  if (name.empty()) return fail("cannot run a program without a name");
  const auto runnable = [](const std::string& path) -> int {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return errno;
    if (S_ISDIR(st.st_mode)) return EISDIR;
    if (!S_ISREG(st.st_mode)) return EACCES;
    return ::access(path.c_str(), X_OK) == 0 ? 0 : errno;
  };
  if (name.find('/') != std::string::npos) {
    if (const int err = runnable(name); err != 0) return refuse(err);
    return name;
  }
  const char* env = search_path != nullptr ? search_path : std::getenv("PATH");
  const std::string_view path = env && *env ? env : "/usr/local/bin:/usr/bin:/bin";
  int err = ENOENT;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = std::min(path.find(':', begin), path.size());
    std::string candidate(end > begin ? path.substr(begin, end - begin) : ".");
    candidate += '/';
    candidate += name;
    const int found = runnable(candidate);
    if (found == 0) return candidate;
    if (found == EACCES) err = EACCES;
    if (end == path.size()) break;
    begin = end + 1;
  }
  return refuse(err);
}

struct ChildProcess::State {
  pid_t pid = -1;
  bool in_namespace = false;

  std::mutex mu;  // kill() may come from any thread
  bool reaped = false;
  int stdin_w = -1;
  int stdout_r = -1;

  // The drain thread's; constant while it runs, closed by kill() after joining it.
  int stderr_r = -1;
  int wake_fd = -1;  // eventfd: kill() tells the drain to stop even if a grandchild holds stderr
  int log_fd = -1;
  std::filesystem::path log_path;
  std::size_t stderr_cap = 0;
  std::size_t logged = 0;
  std::size_t tail_cap = 0;
  std::atomic<std::uint64_t> stderr_bytes{0};
  std::thread drain;
  std::mutex drain_mu;                   // whoever joins the drain
  std::atomic<bool> finishing{false};    // kill(): the drain takes the last words and returns
  std::atomic<std::int64_t> kill_at{0};  // stop_after(): when the drain kills (steady ns; 0: no)

  // The caps, and the first one found hit (-1: none yet; else a Why).
  std::unique_ptr<ProgramCgroup> cgroup;  // destroyed after the child is reaped
  ChildLimits limits;
  std::atomic<int> hit{-1};
  std::string hit_detail;  // written before `hit` is set, read after
  int status = 0;          // under mu once reaped: the wait status and usage of the child
  rusage usage{};

  mutable std::mutex tail_mu;  // the drain writes, anyone reads
  std::string tail;            // up to 2 * tail_cap bytes; the last tail_cap are the tail
  std::string log_error;       // under tail_mu
  bool stderr_ended = false;   // under tail_mu
  mutable std::condition_variable stderr_end;

  // Records the first cap hit and kills the tree (the referee sees a hang-up and asks why).
  void record_hit(Why why, std::string detail) {
    if (hit.load() != -1) return;
    hit_detail = std::move(detail);
    int none = -1;
    if (hit.compare_exchange_strong(none, static_cast<int>(why))) signal_group();
  }

  // What the cgroup's counters say, if a cap was hit.
  std::optional<LimitHit> cgroup_hit() const {
    if (!cgroup) return std::nullopt;
    if (cgroup->memory_hit())
      return LimitHit{Why::memory_limit,
                      fmt::format("the kernel killed it for using more than {} of memory",
                                  format_size(*limits.memory_bytes))};
    if (cgroup->processes_hit())
      return LimitHit{Why::process_limit,
                      fmt::format("it tried to run more than {} processes or threads",
                                  *limits.processes)};
    return std::nullopt;
  }

  void keep(const char* p, std::size_t n) {
    const std::uint64_t total = stderr_bytes.fetch_add(n, std::memory_order_relaxed) + n;
    if (limits.output_bytes && total > *limits.output_bytes)
      record_hit(Why::output_limit,
                 fmt::format("more than {} of output on stderr", format_size(*limits.output_bytes)));
    {
      std::lock_guard lock(tail_mu);
      const std::size_t take = std::min(n, tail_cap);
      tail.append(p + (n - take), take);
      if (tail.size() > 2 * tail_cap) tail.erase(0, tail.size() - tail_cap);
    }
    const std::size_t k = std::min(n, stderr_cap - logged);
    if (k == 0) return;
    if (log_fd >= 0) {
      if (const int err = write_all(log_fd, p, k); err != 0) {
        std::lock_guard lock(tail_mu);
        log_error = fmt::format("{}: {}", log_path.string(), std::strerror(err));
        close_fd(log_fd);
      }
    }
    logged += k;
  }

  // false at end of input or on an error.
  bool read_stderr(char* buf) {
    const ssize_t n = ::read(stderr_r, buf, kStderrChunk);
    if (n > 0) {
      keep(buf, static_cast<std::size_t>(n));
      return true;
    }
    return n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK);
  }

  // Drains stderr until it ends, and carries out a stop_after() when its time comes; returns
  // when kill() says so (after taking the last words already in the pipe).
  void run_drain() {
    auto buf = std::make_unique<char[]>(kStderrChunk);
    bool open = true;  // stderr not at its end yet
    for (;;) {
      const std::int64_t at = kill_at.load();
      int timeout = -1;
      if (at != 0)
        timeout =
            static_cast<int>(std::clamp<std::int64_t>((at - now_ns()) / 1'000'000 + 1, 0, 60'000));
      // A program that hits a cgroup cap may go on running (a refused fork is only an error to
      // it): the counters are looked at every kCgroupPoll and the first hit ends it.
      if (cgroup && cgroup->caps_counted() && hit.load() == -1) {
        if (auto found = cgroup_hit()) record_hit(found->why, std::move(found->detail));
        timeout = timeout < 0 ? kCgroupPollMs : std::min(timeout, kCgroupPollMs);
      }
      pollfd fds[2] = {{open ? stderr_r : -1, POLLIN, 0}, {wake_fd, POLLIN, 0}};
      if (::poll(fds, 2, timeout) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[1].revents != 0) {
        std::uint64_t ignored = 0;
        [[maybe_unused]] ssize_t n = ::read(wake_fd, &ignored, sizeof ignored);
        if (finishing.load()) {
          // The program's last words are usually already in the pipe; take those, but a
          // surviving grandchild that keeps writing must not hold us.
          for (int i = 0; open && i < 16; ++i) {
            const ssize_t r = ::read(stderr_r, buf.get(), kStderrChunk);
            if (r <= 0) break;
            keep(buf.get(), static_cast<std::size_t>(r));
          }
          return;
        }
      }
      if (at != 0 && now_ns() >= at) {
        std::int64_t expected = at;
        if (kill_at.compare_exchange_strong(expected, 0)) signal_group();
      }
      if (open && fds[0].revents != 0 && !read_stderr(buf.get())) {
        open = false;
        std::lock_guard lock(tail_mu);
        stderr_ended = true;
        stderr_end.notify_all();
      }
    }
  }

  static std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  // SIGKILL to the child's tree, not waiting; nothing once it is reaped (its pid may be reused).
  void signal_group() {
    std::lock_guard lock(mu);
    if (reaped) return;
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  }

  // Kills the child's whole tree and reaps the child. Precondition: mu held, not reaped yet, so
  // the pid (and the group id equal to it) still belongs to our child, if only as a zombie.
  void kill_and_reap() {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
    }
    reaped = true;
  }
};

ChildProcess::ChildProcess(std::unique_ptr<State> s) : s_(std::move(s)) {}

ChildProcess::~ChildProcess() {
  kill();
}

void ChildProcess::ignore_sigpipe() {
  static std::once_flag once;
  std::call_once(once, [] { ::signal(SIGPIPE, SIG_IGN); });
}

namespace {

// The program file and arguments spawn() runs for `spec`: relative paths read against its
// directory, the program looked up in PATH.
struct Resolved {
  std::string path;
  std::vector<std::string> args;
};

Expected<Resolved> resolve(const ChildSpec& spec) {
  if (spec.argv.empty()) return fail("cannot run a program without a name");
  std::vector<std::string> args = spec.argv;
  if (!spec.cwd.empty()) {
    // Relative paths mean paths in its directory: the program's, and arguments naming files.
    std::error_code ec;
    if (!std::filesystem::is_directory(spec.cwd, ec))
      return fail(fmt::format("cannot run \"{}\": its directory {} does not exist", args[0],
                              spec.cwd.string()));
    // Where it really is: the organizer's own link to it is no link the walls refuse.
    const auto base = std::filesystem::canonical(spec.cwd, ec);
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::filesystem::path arg = args[i];
      if (arg.empty() || arg.is_absolute() || (i == 0 && args[0].find('/') == std::string::npos))
        continue;
      if (i == 0 || std::filesystem::exists(base / arg, ec))
        args[i] = (base / arg).lexically_normal().string();
    }
  }
  auto path = find_program(args[0], spec.sandbox ? kSandboxPath : nullptr);
  if (!path) return std::unexpected(path.error());
  return Resolved{std::move(*path), std::move(args)};
}

}  // namespace

Expected<void> ChildProcess::check(const ChildSpec& spec) {
  auto resolved = resolve(spec);
  if (!resolved) return std::unexpected(resolved.error());
  if (spec.sandbox)
    if (auto ok = SandboxPlan::check(*spec.sandbox, resolved->path, resolved->args, spec.cwd); !ok)
      return fail(fmt::format("cannot run \"{}\": {}", spec.argv[0], ok.error().message));
  return {};
}

namespace {

// spawn()'s steps, each failing with the one line spawn() gives ("cannot run "NAME": ...").

// The walls (the child puts them up: SandboxPlan::apply) and the argv they show the program.
Expected<void> prepare_walls(const ChildSpec& spec, const std::string& name, Launch& l,
                             std::optional<SandboxPlan>& plan) {
  if (spec.sandbox) {
    SandboxSpec walls = *spec.sandbox;
    // First, so that they win over an --env of the same name, as they do unwalled.
    walls.environment.insert(walls.environment.begin(), spec.environment.begin(),
                             spec.environment.end());
    auto prepared = SandboxPlan::prepare(walls, l.path, l.args, spec.cwd);
    if (!prepared)
      return fail(fmt::format("cannot run \"{}\": {}", name, prepared.error().message));
    plan.emplace(std::move(*prepared));
    l.sandbox = &*plan;
  }
  for (std::string& arg : l.args) l.argv.push_back(arg.data());
  l.argv.push_back(nullptr);
  return {};
}

// Unwalled, the referee's environment with spec.environment over it (kept in `text`).
void prepare_environment(const ChildSpec& spec, Launch& l, std::vector<std::string>& text) {
  if (l.sandbox != nullptr || spec.environment.empty()) return;
  const auto name_of = [](std::string_view e) { return e.substr(0, e.find('=')); };
  for (char** e = environ; *e != nullptr; ++e)
    if (std::none_of(spec.environment.begin(), spec.environment.end(),
                     [&](const std::string& own) { return name_of(own) == name_of(*e); }))
      text.emplace_back(*e);
  text.insert(text.end(), spec.environment.begin(), spec.environment.end());
  for (std::string& e : text) l.env.push_back(e.data());
  l.env.push_back(nullptr);
}

// The caps: a cgroup of its own where the machine has one (returned), else rlimits; the reaper
// of its PID namespace.
Expected<std::unique_ptr<ProgramCgroup>> prepare_caps(const ChildSpec& spec,
                                                      const std::string& name, Launch& l,
                                                      bool own_namespace) {
  if (own_namespace) {
    auto reaper = reaper_fd();
    if (!reaper) return fail(fmt::format("cannot run \"{}\": {}", name, reaper.error().message));
    l.reaper = *reaper;
  }
  // The reaper that is process 1 of its PID namespace counts as one of its processes.
  std::optional<std::uint64_t> processes = spec.limits.processes;
  if (processes && own_namespace) *processes += 1;
  std::unique_ptr<ProgramCgroup> cgroup;
  // A group even without caps, where the machine has them: it counts the program's CPU time.
  if (ProgramCgroup::available()) {
    auto made = ProgramCgroup::create({.memory_bytes = spec.limits.memory_bytes,
                                       .processes = processes,
                                       .cpu_millis = spec.limits.cpu_millis,
                                       .cpus = spec.limits.cpus});
    if (!made) return fail(fmt::format("cannot run \"{}\": {}", name, made.error().message));
    cgroup = std::move(*made);
    l.cgroup_joins = &cgroup->join_fds();
  } else {
    add_limit(l, RLIMIT_AS, spec.limits.memory_bytes);
    add_limit(l, RLIMIT_NPROC, processes);
  }
  add_limit(l, RLIMIT_CPU, spec.limits.cpu_seconds);
  add_limit(l, RLIMIT_NOFILE, spec.limits.open_files);
  if (rlimit files{}; ::getrlimit(RLIMIT_NOFILE, &files) == 0)
    l.max_fd = static_cast<int>(std::min<rlim_t>(files.rlim_cur, 1 << 20));
  l.parent = ::getpid();
  return cgroup;
}

// The stderr log: a new file in place of whatever is there, never through a link (the
// directory may be an entrant's, and a link planted there would have the referee write the
// program's text into a file of the referee's choosing), private to the organizer (other
// programs in a shared working directory must not read it while it grows). Its descriptor.
Expected<int> open_stderr_log(const std::filesystem::path& path) {
  if (::unlink(path.c_str()) < 0 && errno != ENOENT)
    return fail(
        fmt::format("cannot replace the stderr log {}: {}", path.string(), std::strerror(errno)));
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return fail(
        fmt::format("cannot open the stderr log {}: {}", path.string(), std::strerror(errno)));
  return fd;
}

// Forks the child that runs `l` (run_child): as process 1 of a new PID namespace (with the
// walls' namespaces) where it may be, else, unwalled, as a plain process group. Its pid, or -1
// with `err` set.
pid_t fork_child(Launch& l, const ChildSpec& spec, bool own_namespace, int& err) {
  // All signals blocked across the fork, so that none is handled in the child before it has
  // reset the dispositions; run_child() unblocks them just before exec.
  sigset_t all, old;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t pid = -1;
  if (own_namespace) {
    // Like fork(), but the child is PID 1 of a new PID namespace: when it dies, the kernel kills
    // everything it started, however it detached itself.
    l.in_namespace = true;
    const int walls = l.sandbox != nullptr ? l.sandbox->clone_flags() : 0;
    pid = static_cast<pid_t>(::syscall(SYS_clone, CLONE_NEWPID | walls | SIGCHLD, 0, 0, 0, 0));
    if (pid == 0) run_child(l);
    err = errno;
  }
  // A program that should play behind walls never runs without them.
  if (pid < 0 && l.sandbox == nullptr &&
      (!spec.own_pid_namespace || err == EPERM || err == EINVAL || err == ENOSPC ||
       err == EUSERS)) {
    l.in_namespace = false;
    pid = ::fork();
    if (pid == 0) run_child(l);
    err = errno;
  }
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return pid;
}

// What the child reported on `report_r` before it could exec: nothing (end of input: the exec
// succeeded, the pipe being close-on-exec), or why it did not run.
std::optional<std::string> exec_failure(int report_r, const std::string& name) {
  ChildFailure failure{};
  ssize_t n;
  do {
    n = ::read(report_r, &failure, sizeof failure);
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(sizeof failure)) return std::nullopt;
  if (failure.stage == ChildFailure::sandbox)
    return fmt::format("cannot run \"{}\" in its sandbox: {}: {} (see arbiter sandbox check)", name,
                       SandboxPlan::step_name(failure.step), std::strerror(failure.err));
  const char* what = failure.stage == ChildFailure::exec      ? ""
                     : failure.stage == ChildFailure::limits  ? "cannot set its limits: "
                     : failure.stage == ChildFailure::workdir ? "cannot start in its directory: "
                                                              : "cannot set up its stdio: ";
  return fmt::format("cannot run \"{}\": {}{}", name, what, std::strerror(failure.err));
}

}  // namespace

Expected<std::unique_ptr<ChildProcess>> ChildProcess::spawn(const ChildSpec& spec) {
  ignore_sigpipe();
  auto resolved = resolve(spec);
  if (!resolved) return std::unexpected(resolved.error());
  const std::string& name = spec.argv[0];
  Launch l;
  l.path = std::move(resolved->path);
  l.args = std::move(resolved->args);
  if (!spec.sandbox && !spec.cwd.empty()) l.cwd = spec.cwd.string();
  std::optional<SandboxPlan> plan;
  if (auto ok = prepare_walls(spec, name, l, plan); !ok) return std::unexpected(ok.error());
  std::vector<std::string> env_text;
  prepare_environment(spec, l, env_text);
  const bool own_namespace = spec.own_pid_namespace || plan;
  auto cgroup = prepare_caps(spec, name, l, own_namespace);
  if (!cgroup) return std::unexpected(cgroup.error());

  auto s = std::make_unique<State>();
  s->limits = spec.limits;
  s->cgroup = std::move(*cgroup);
  s->stderr_cap = spec.stderr_cap;
  s->tail_cap = spec.stderr_tail;
  s->log_path = spec.stderr_log;
  int stdin_r = -1, stdout_w = -1, stderr_w = -1, report_r = -1, report_w = -1;
  const auto close_all = [&] {
    for (int* fd : {&stdin_r, &stdout_w, &stderr_w, &report_r, &report_w, &s->stdin_w, &s->stdout_r,
                    &s->stderr_r, &s->wake_fd, &s->log_fd})
      close_fd(*fd);
  };
  if (!spec.stderr_log.empty()) {
    auto log = open_stderr_log(spec.stderr_log);
    if (!log) return std::unexpected(log.error());
    s->log_fd = *log;
  }
  if (!make_pipe(stdin_r, s->stdin_w) || !make_pipe(s->stdout_r, stdout_w) ||
      !make_pipe(s->stderr_r, stderr_w) || !make_pipe(report_r, report_w) ||
      (s->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0 ||
      !make_nonblocking_cloexec(s->stderr_r)) {
    const int err = errno;
    close_all();
    return fail(fmt::format("cannot run \"{}\": {}", name, std::strerror(err)));
  }
  l.stdin_r = stdin_r;
  l.stdout_w = stdout_w;
  l.stderr_w = stderr_w;
  l.report_r = report_r;
  l.report_w = report_w;

  int err = 0;
  const pid_t pid = fork_child(l, spec, own_namespace, err);
  if (pid < 0) {
    close_all();
    return fail(fmt::format("cannot run \"{}\": fork failed: {}", name, std::strerror(err)));
  }
  s->pid = pid;
  s->in_namespace = l.in_namespace;
  ::setpgid(pid, pid);  // also done by the child; whichever runs first wins the race for us
  for (int* fd : {&stdin_r, &stdout_w, &stderr_w, &report_w}) close_fd(*fd);
  const auto failed = exec_failure(report_r, name);
  close_fd(report_r);
  if (failed) {
    s->kill_and_reap();
    close_all();
    return fail(*failed);
  }
  if (s->cgroup) s->cgroup->joined();  // it ran exec, so it is in its groups
  try {
    s->drain = std::thread([state = s.get()] { state->run_drain(); });
  } catch (const std::system_error& e) {
    s->kill_and_reap();
    close_all();
    return fail(fmt::format("cannot run \"{}\": no thread for its stderr: {}", name, e.what()));
  }
  return std::unique_ptr<ChildProcess>(new ChildProcess(std::move(s)));
}

pid_t ChildProcess::pid() const {
  return s_->pid;
}

bool ChildProcess::in_own_pid_namespace() const {
  return s_->in_namespace;
}

std::unique_ptr<Channel> ChildProcess::take_channel(Framing framing, ChannelLimits limits) {
  std::lock_guard lock(s_->mu);
  if (s_->stdout_r < 0 || s_->stdin_w < 0) return nullptr;
  auto channel = std::make_unique<FdChannel>(s_->stdout_r, s_->stdin_w, framing, limits,
                                             fmt::format("pipe to pid {}", s_->pid));
  s_->stdout_r = s_->stdin_w = -1;
  return channel;
}

ChildProcess::Pipes ChildProcess::take_pipes() {
  std::lock_guard lock(s_->mu);
  Pipes pipes{s_->stdin_w, s_->stdout_r};
  s_->stdout_r = s_->stdin_w = -1;
  return pipes;
}

void ChildProcess::kill() {
  State& s = *s_;
  // A program told to stop (stop_after) may finish on its own within its grace.
  if (const std::int64_t at = s.kill_at.load(); at != 0) {
    while (State::now_ns() < at && !exited())
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  {
    std::lock_guard lock(s.mu);
    if (!s.reaped) s.kill_and_reap();
  }
  // Joined without holding mu: the drain takes mu to carry out a stop_after().
  std::lock_guard join(s.drain_mu);
  if (s.drain.joinable()) {
    s.finishing.store(true);
    const std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(s.wake_fd, &one, sizeof one);
    s.drain.join();
  }
  std::lock_guard lock(s.mu);
  for (int* fd : {&s.stdin_w, &s.stdout_r, &s.stderr_r, &s.wake_fd, &s.log_fd}) close_fd(*fd);
  if (s.cgroup) s.cgroup->freeze();  // its count is final: no descriptor is kept for it
}

void ChildProcess::stop() {
  // A program already told to stop (stop_after) keeps its grace; the drain ends it on time.
  if (s_->kill_at.load() != 0) return;
  s_->signal_group();
}

void ChildProcess::stop_after(Duration grace) {
  State& s = *s_;
  {
    std::lock_guard lock(s.mu);
    if (s.reaped) return;
  }
  const std::int64_t at = State::now_ns() + std::chrono::nanoseconds(grace).count();
  std::int64_t none = 0;
  if (!s.kill_at.compare_exchange_strong(none, at)) return;  // already due
  std::lock_guard join(s.drain_mu);
  if (s.drain.joinable() && !s.finishing.load()) {
    const std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(s.wake_fd, &one, sizeof one);
  } else {
    s.signal_group();
  }
}

bool ChildProcess::exited() {
  State& s = *s_;
  std::lock_guard lock(s.mu);
  if (s.reaped) return true;
  // Look without reaping: while the child is an unreaped zombie its pid cannot be reused, so
  // signalling its group (stragglers outside a PID namespace) is still safe.
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(s.pid), &info, WEXITED | WNOHANG | WNOWAIT) < 0) {
    if (errno != ECHILD) return false;
    s.reaped = true;  // reaped behind our back (SIGCHLD ignored, or a wait for any child)
    return true;
  }
  if (info.si_pid == 0) return false;
  s.kill_and_reap();
  return true;
}

std::optional<int> ChildProcess::exit_code() {
  if (!exited()) return std::nullopt;
  std::lock_guard lock(s_->mu);
  const int status = s_->status;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return std::nullopt;
}

std::optional<LimitHit> ChildProcess::limit_hit(Duration wait) {
  State& s = *s_;
  const auto recorded = [&]() -> std::optional<LimitHit> {
    const int why = s.hit.load();
    if (why == -1) return std::nullopt;
    return LimitHit{static_cast<Why>(why), s.hit_detail};
  };
  if (auto found = recorded()) return found;
  const std::int64_t until = State::now_ns() + std::chrono::nanoseconds(wait).count();
  while (!exited() && State::now_ns() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (auto found = recorded()) return found;
  if (auto found = s.cgroup_hit()) return found;
  if (s.limits.cpu_seconds) {
    std::lock_guard lock(s.mu);
    // The reaper passes the program's death on as its exit code (128 + signal); its usage
    // includes the program's, which it reaped.
    const bool xcpu = s.in_namespace ? WIFEXITED(s.status) && WEXITSTATUS(s.status) == 128 + SIGXCPU
                                     : WIFSIGNALED(s.status) && WTERMSIG(s.status) == SIGXCPU;
    const auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
    const double used = seconds(s.usage.ru_utime) + seconds(s.usage.ru_stime);
    if (s.reaped && (xcpu || used >= static_cast<double>(*s.limits.cpu_seconds)))
      return LimitHit{Why::cpu_limit,
                      fmt::format("it used up its {} s of CPU time", *s.limits.cpu_seconds)};
  }
  return std::nullopt;
}

bool ChildProcess::in_own_cgroup() const {
  return s_->cgroup != nullptr;
}

const CpuMeter* ChildProcess::cpu_meter() const {
  return s_->cgroup != nullptr && s_->cgroup->counts_cpu() ? s_->cgroup.get() : nullptr;
}

std::uint64_t ChildProcess::stderr_bytes() const {
  return s_->stderr_bytes.load(std::memory_order_relaxed);
}

std::string ChildProcess::stderr_tail() const {
  std::lock_guard lock(s_->tail_mu);
  const std::string& t = s_->tail;
  return t.size() > s_->tail_cap ? t.substr(t.size() - s_->tail_cap) : t;
}

std::string ChildProcess::last_words(Duration wait) const {
  std::unique_lock lock(s_->tail_mu);
  s_->stderr_end.wait_for(lock, wait, [&] { return s_->stderr_ended || s_->finishing.load(); });
  return telling_line(s_->tail);
}

const std::filesystem::path& ChildProcess::stderr_log() const {
  return s_->log_path;
}

std::string ChildProcess::stderr_log_error() const {
  std::lock_guard lock(s_->tail_mu);
  return s_->log_error;
}

}  // namespace arbiter
