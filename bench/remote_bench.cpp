// Remote-player benchmarks: what one call to a player in another process costs, next to the
// physical floor of the same transport, and how soon after its deadline a player that never
// answers is stopped and gone. A plain program (not Google Benchmark), because what matters here
// is the distribution of single round trips (p50, p99), not a mean over a timed loop. The
// results and what they mean: docs/benchmarks.md, "Remote players".
//
//   remote_bench [--rounds N] [--warmup N] [--kills N] [--deadline-us N]
//
// Round trips (each case: --warmup untimed round trips, then --rounds timed ones, each timed
// on its own with std::chrono::steady_clock), each case run with the bench and its peer on one
// CPU, on two CPUs, and unpinned:
//   pipe floor           blocking write()/read() of one line through a pipe pair to /bin/cat
//   pipe floor + poll()  the same, waiting in poll() before each read() as FdChannel does
//   pipe floor + look    the same after a poll() with zero timeout that must find nothing
//                        waiting: the system calls of FdChannel::exchange, which refuses an
//                        unsolicited message, without its framing and JSON
//   pipe channel         ChildProcess(/bin/cat) + FdChannel::exchange, Framing::lines
//   pipe floor, void     blocking write()/read() to this program's own "void" peer (it answers
//                        every line with "void")
//   pipe RemotePlayer    RemotePlayer<q::Q>::win(true) through guarded_call
//   (Isolation::inline_call)
//                        to the same void peer, under a fresh 6 s deadline per call: the referee's
//                        whole per-call path for a remote player
//   tcp floor            blocking send()/recv() over 127.0.0.1 (TCP_NODELAY) to an echo thread
//   tcp channel          tcp_connect() + FdChannel::exchange to the same echo thread
// The message is the call ["win",[true]] on one line (17 bytes with the newline).
// Then the CPU-only parts of a call (building, encoding, decoding, guarded_call), in batches.
//
// Kill latency (--kills repetitions per kind of child): a child that never answers, behind a
// RemotePlayer<q::Q> that owns it, called through guarded_call with a --deadline-us deadline,
// then the referee's ejection path, RemotePlayer::disconnect() (close the channel, SIGKILL the
// child's group, reap it, stop its stderr drain). Reported: how far past the deadline the call
// returned, and how far past the deadline disconnect() had returned with the child reaped
// (checked with waitpid() and kill(pid, 0)); next to a floor without arbiter (posix_spawn,
// ppoll, kill, waitpid) and a RemotePlayer over a bare FdChannel (no ChildProcess).
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/clock.h"
#include "core/ejection.h"
#include "core/json.h"
#include "games/q/game.h"
#include "referee/call_runner.h"
#include "referee/guarded_call.h"
#include "core/channel.h"
#include "remote/child_process.h"
#include "remote/fd_channel.h"
#include "core/framer.h"
#include "remote/remote_player.h"
#include "remote/tcp.h"

#include "cpu_placement.h"

extern char** environ;

namespace {

using arbiter::Channel;
using arbiter::ChildProcess;
using arbiter::ChildSpec;
using arbiter::Deadline;
using arbiter::Framing;
using arbiter::Json;
using arbiter::SteadyClock;
using Steady = std::chrono::steady_clock;
using arbiter::bench::Placement;
using arbiter::bench::place_peer;
using arbiter::bench::placements;
using arbiter::bench::set_affinity;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "remote_bench: %s\n", what.c_str());
  std::exit(1);
}

[[noreturn]] void die_errno(const char* what) {
  die(fmt::format("{}: {}", what, std::strerror(errno)));
}

double micros(Steady::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

struct Options {
  int rounds = 20000;
  int warmup = 2000;
  int kills = 200;
  int deadline_us = 20000;
};

// ---------------------------------------------------------------------------------------------
// Statistics

struct Summary {
  std::size_t n = 0;
  double p10 = 0, p50 = 0, p90 = 0, p99 = 0, mean = 0, max = 0;
};

// Nearest-rank percentiles.
Summary summarize(std::vector<double> v) {
  Summary s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const auto rank = [&](double p) {
    const auto k = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
    return v[std::clamp<std::size_t>(k, 1, v.size()) - 1];
  };
  s.p10 = rank(0.10);
  s.p50 = rank(0.50);
  s.p90 = rank(0.90);
  s.p99 = rank(0.99);
  s.max = v.back();
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  return s;
}

// Runs `round_trip` warmup times untimed, then `rounds` times timed one by one (µs).
std::vector<double> time_round_trips(const Options& o, const std::function<void()>& round_trip) {
  for (int i = 0; i < o.warmup; ++i) round_trip();
  std::vector<double> t;
  t.reserve(static_cast<std::size_t>(o.rounds));
  for (int i = 0; i < o.rounds; ++i) {
    const auto start = Steady::now();
    round_trip();
    t.push_back(micros(Steady::now() - start));
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// Peers run by this program itself (re-executed from /proc/self/exe)

void write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) die_errno("write");
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

// Answers every line on stdin with "void" on stdout; plain blocking I/O, no JSON.
int run_void_peer() {
  static constexpr std::string_view kReply = "\"void\"\n";
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(0, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    for (ssize_t i = 0; i < n; ++i)
      if (buf[i] == '\n') write_all(1, kReply.data(), kReply.size());
  }
}

// Reads and discards stdin, never answers: a player stuck waiting for something.
int run_mute_peer() {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(0, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
  }
}

std::string self_exe() {
  char path[4096];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) die_errno("readlink /proc/self/exe");
  return std::string(path, static_cast<std::size_t>(n));
}

// ---------------------------------------------------------------------------------------------
// The floors: plain blocking descriptors, nothing of arbiter

// One line out, one line back, blocking. `buf` holds bytes read past the line (none here).
// With `poll_first`, waits in poll() (on in_fd and an idle `extra_fd`, like FdChannel's wake
// eventfd) before each read, to show what the channel's way of waiting costs by itself.
void line_round_trip(int out_fd, int in_fd, std::string_view line, std::string& buf,
                     bool poll_first = false, int extra_fd = -1, bool look_first = false) {
  if (look_first) {
    // The channel's check for an unsolicited message: a look that must find nothing waiting.
    pollfd fd = {in_fd, POLLIN, 0};
    if (::poll(&fd, 1, 0) != 0) die("the floor peer sent something unasked");
  }
  write_all(out_fd, line.data(), line.size());
  buf.clear();
  char chunk[4096];
  for (;;) {
    if (poll_first) {
      pollfd fds[2] = {{in_fd, POLLIN, 0}, {extra_fd, POLLIN, 0}};
      if (::poll(fds, 2, 6000) <= 0) die("poll on the floor peer failed");
    }
    const ssize_t n = ::read(in_fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) die("floor peer closed");
    buf.append(chunk, static_cast<std::size_t>(n));
    if (buf.back() == '\n') return;
  }
}

// A child running argv with its stdin/stdout on pipes, started with posix_spawn.
struct RawChild {
  pid_t pid = -1;
  int to_child = -1;
  int from_child = -1;

  explicit RawChild(const std::vector<std::string>& args) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) < 0 || ::pipe2(out, O_CLOEXEC) < 0) die_errno("pipe2");
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    std::vector<char*> argv;
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (const int rc = ::posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ); rc != 0)
      die(fmt::format("posix_spawn {}: {}", args[0], std::strerror(rc)));
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    ::close(out[1]);
    to_child = in[1];
    from_child = out[0];
  }
  ~RawChild() {
    if (to_child >= 0) ::close(to_child);  // end of input: cat and the void peer exit
    if (from_child >= 0) ::close(from_child);
    if (pid > 0) reap();
  }
  void reap() {
    int status;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    pid = -1;
  }
};

// An echo server on 127.0.0.1: accepts `connections` connections one after another and echoes
// every byte back with blocking recv()/send(), TCP_NODELAY on.
class EchoServer {
 public:
  EchoServer(int connections, std::optional<int> cpu) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) die_errno("socket");
    const int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sa;
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) < 0 ||
        ::listen(listen_fd_, 4) < 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&sa), &len) < 0)
      die_errno("listen on 127.0.0.1");
    port_ = ntohs(sa.sin_port);
    thread_ = std::thread([this, connections, cpu] {
      if (cpu) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(*cpu, &set);
        if (::pthread_setaffinity_np(::pthread_self(), sizeof set, &set) != 0)
          die("pthread_setaffinity_np failed");
      }
      serve(connections);
    });
  }
  ~EchoServer() {
    thread_.join();
    ::close(listen_fd_);
  }
  std::uint16_t port() const { return port_; }

 private:
  void serve(int connections) {
    char buf[4096];
    for (int c = 0; c < connections; ++c) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) die_errno("accept");
      const int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      for (;;) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        for (ssize_t done = 0; done < n;) {
          const ssize_t w =
              ::send(fd, buf + done, static_cast<std::size_t>(n - done), MSG_NOSIGNAL);
          if (w < 0 && errno == EINTR) continue;
          if (w <= 0) break;
          done += w;
        }
      }
      ::close(fd);
    }
  }

  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::thread thread_;
};

int tcp_connect_raw(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) die_errno("socket");
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  sa.sin_port = htons(port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) < 0) die_errno("connect");
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// ---------------------------------------------------------------------------------------------
// Round-trip cases

const Json& win_call() {
  static const Json call = arbiter::wire::call(arbiter::wire::kWin, Json::array({true}));
  return call;
}

std::string win_line() {
  return arbiter::dump(win_call()) + '\n';
}

Deadline generous() {
  return Deadline::after(SteadyClock::instance(), std::chrono::seconds(6));
}

std::vector<double> bench_raw_pipe(const Options& o, const Placement& where,
                                   const std::vector<std::string>& argv, bool poll_first = false,
                                   bool look_first = false) {
  RawChild child(argv);
  place_peer(child.pid, where);
  const std::string line = win_line();
  std::string buf;
  const int idle = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (idle < 0) die_errno("eventfd");
  auto t = time_round_trips(o, [&] {
    line_round_trip(child.to_child, child.from_child, line, buf, poll_first, idle, look_first);
  });
  ::close(idle);
  return t;
}

std::unique_ptr<ChildProcess> spawn_or_die(const ChildSpec& spec) {
  auto child = ChildProcess::spawn(spec);
  if (!child) die(child.error().message);
  return std::move(*child);
}

std::vector<double> bench_channel(const Options& o, Channel& channel) {
  const Json& request = win_call();
  return time_round_trips(o, [&] {
    auto reply = channel.exchange(request, generous());
    if (!reply) die(fmt::format("{}: {}", channel.describe(), reply.error().detail));
    if (!reply->is_array() || reply->size() != 2)
      die(fmt::format("{}: unexpected echo {}", channel.describe(), arbiter::excerpt(*reply)));
  });
}

std::vector<double> bench_pipe_channel(const Options& o, const Placement& where) {
  auto child = spawn_or_die({.argv = {"/bin/cat"}});
  auto channel = child->take_channel(Framing::lines);
  if (!channel->exchange(win_call(), generous())) die("cat did not echo");
  place_peer(child->pid(), where);
  auto t = bench_channel(o, *channel);
  channel->close();
  child->kill();
  return t;
}

std::vector<double> bench_remote_player(const Options& o, const Placement& where,
                                        const std::string& exe) {
  auto child = spawn_or_die({.argv = {exe, "--void-peer"}});
  auto channel = child->take_channel(Framing::lines);
  if (!channel->exchange(win_call(), generous())) die("the void peer did not answer");
  place_peer(child->pid(), where);
  auto player = std::make_shared<arbiter::RemotePlayer<arbiter::q::Q>>("void", std::move(channel),
                                                                       std::move(child));
  arbiter::CallRunner runner(arbiter::Isolation::inline_call);
  auto t = time_round_trips(o, [&] {
    // As the turn-based referee does it: a fresh deadline per call, the call through
    // guarded_call on the inline runner, the player captured by shared_ptr.
    const Deadline deadline = generous();
    auto out = arbiter::guarded_call(0, "win", runner, deadline, [p = player] { p->win(true); });
    if (!out.value) die(fmt::format("RemotePlayer::win: {}", out.value.error().detail));
  });
  player->disconnect();
  return t;
}

std::vector<double> bench_raw_tcp(const Options& o, std::uint16_t port) {
  const int fd = tcp_connect_raw(port);
  const std::string line = win_line();
  std::string buf;
  auto t = time_round_trips(o, [&] { line_round_trip(fd, fd, line, buf); });
  ::close(fd);
  return t;
}

std::vector<double> bench_tcp_channel(const Options& o, std::uint16_t port) {
  auto channel = arbiter::tcp_connect("127.0.0.1", port, generous(), Framing::lines);
  if (!channel) die(channel.error().message);
  auto t = bench_channel(o, **channel);
  (*channel)->close();
  return t;
}

// ---------------------------------------------------------------------------------------------
// The CPU-only parts of one call, without I/O: what the channel and the referee add to the floor.
// Too short to time one by one, so each sample is the mean over a batch (ns per operation).

std::vector<double> time_batches(const Options& o, const std::function<void()>& op) {
  constexpr int kPerBatch = 100;
  const int batches = std::max(1, o.rounds / 10);
  for (int i = 0; i < kPerBatch * 10; ++i) op();
  std::vector<double> t;
  t.reserve(static_cast<std::size_t>(batches));
  for (int b = 0; b < batches; ++b) {
    const auto start = Steady::now();
    for (int i = 0; i < kPerBatch; ++i) op();
    t.push_back(std::chrono::duration<double, std::nano>(Steady::now() - start).count() /
                kPerBatch);
  }
  return t;
}

void bench_cpu_parts(const Options& o) {
  const auto row = [](std::string_view name, const Summary& s) {
    fmt::print("  {:<58} {:>8.0f} {:>8.0f} {:>8.0f}\n", name, s.p50, s.p99, s.mean);
    std::fflush(stdout);
  };
  fmt::print("CPU-only parts of one call (unpinned; ns per operation, from {} batches of 100)\n",
             std::max(1, o.rounds / 10));
  fmt::print("  {:<58} {:>8} {:>8} {:>8}\n", "(nanoseconds)", "p50", "p99", "mean");
  Json sink;
  row("build the request: wire::call(\"win\", [true])", summarize(time_batches(o, [&] {
        sink = arbiter::wire::call(arbiter::wire::kWin, Json::array({true}));
      })));
  const Json& request = win_call();
  std::string text;
  row("encode: Framer::encode (dump + newline)",
      summarize(time_batches(o, [&] { text = arbiter::Framer::encode(request); })));
  const std::string line = win_line();
  arbiter::Framer framer(Framing::lines, {});
  row("decode: Framer::append + next (find newline, parse_json)", summarize(time_batches(o, [&] {
        framer.append(line);
        auto m = framer.next();
        if (!m || !*m) die("framer did not return the message");
        sink = std::move(**m);
      })));
  const std::string reply = "\"void\"\n";
  row("decode the \"void\" reply", summarize(time_batches(o, [&] {
        framer.append(reply);
        auto m = framer.next();
        if (!m || !*m) die("framer did not return the message");
        sink = std::move(**m);
      })));
  row("Deadline::after(SteadyClock, 6 s)", summarize(time_batches(o, [&] {
        const Deadline d = generous();
        if (d.passed()) die("deadline passed");
      })));
  arbiter::CallRunner runner(arbiter::Isolation::inline_call);
  row("guarded_call, inline runner, empty job, fresh deadline", summarize(time_batches(o, [&] {
        const Deadline deadline = generous();
        auto out = arbiter::guarded_call(0, "win", runner, deadline, [] {});
        if (!out.value) die("empty job failed");
      })));
  fmt::print("\n");
}

// ---------------------------------------------------------------------------------------------
// Kill latency

struct KillTimes {
  std::vector<double> spawn;       // ChildProcess::spawn (µs)
  std::vector<double> call_late;   // call returned, past the deadline (µs)
  std::vector<double> disconnect;  // disconnect() alone (µs)
  std::vector<double> gone_late;   // disconnect() returned, child reaped, past the deadline (µs)
};

// The floor: a posix_spawn'ed child that never answers, the request written to it, ppoll() on its
// stdout with the exact time left until the deadline, then kill(SIGKILL) and waitpid(). No
// process group, no PID namespace, no stderr drain, no channel.
KillTimes bench_kill_raw(const Options& o, const std::vector<std::string>& argv) {
  KillTimes k;
  const std::string line = win_line();
  for (int i = 0; i < o.kills; ++i) {
    const auto t0 = Steady::now();
    RawChild child(argv);
    const auto t1 = Steady::now();
    const auto deadline = Steady::now() + std::chrono::microseconds(o.deadline_us);
    write_all(child.to_child, line.data(), line.size());
    for (;;) {
      const auto left = deadline - Steady::now();
      if (left <= Steady::duration::zero()) break;
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
      const timespec ts{static_cast<time_t>(ns / 1'000'000'000),
                        static_cast<long>(ns % 1'000'000'000)};
      pollfd fd{child.from_child, POLLIN, 0};
      if (::ppoll(&fd, 1, &ts, nullptr) > 0) die("the mute peer answered");
    }
    const auto returned = Steady::now();
    const pid_t pid = child.pid;
    ::kill(pid, SIGKILL);
    child.reap();
    const auto gone = Steady::now();
    if (::kill(pid, 0) == 0 || errno != ESRCH) die(fmt::format("pid {} still exists", pid));
    k.spawn.push_back(micros(t1 - t0));
    k.call_late.push_back(micros(returned - deadline));
    k.disconnect.push_back(micros(gone - returned));
    k.gone_late.push_back(micros(gone - deadline));
  }
  return k;
}

// Between the two: RemotePlayer and guarded_call as in the referee, but over an FdChannel built
// on the pipes of a posix_spawn'ed child, without ChildProcess (no fork of the referee, no
// PID namespace, no stderr drain); the child is then killed and reaped by hand.
KillTimes bench_kill_channel_only(const Options& o, const std::vector<std::string>& argv) {
  KillTimes k;
  for (int i = 0; i < o.kills; ++i) {
    const auto t0 = Steady::now();
    RawChild child(argv);
    const auto t1 = Steady::now();
    // The channel takes the descriptors; RawChild must not close them again.
    auto channel = std::make_unique<arbiter::FdChannel>(child.from_child, child.to_child,
                                                        Framing::lines, arbiter::ChannelLimits{},
                                                        "pipe to a posix_spawn'ed child");
    child.from_child = child.to_child = -1;
    auto player =
        std::make_shared<arbiter::RemotePlayer<arbiter::q::Q>>("looper", std::move(channel));
    arbiter::CallRunner runner(arbiter::Isolation::inline_call);
    const Deadline deadline =
        Deadline::after(SteadyClock::instance(), std::chrono::microseconds(o.deadline_us));
    auto out = arbiter::guarded_call(0, "win", runner, deadline, [p = player] { p->win(true); });
    const auto returned = Steady::now();
    if (out.value || out.value.error().why != arbiter::Why::timeout)
      die("channel-only kill case: expected a timeout");
    player->disconnect();
    const pid_t pid = child.pid;
    ::kill(pid, SIGKILL);
    child.reap();
    const auto gone = Steady::now();
    k.spawn.push_back(micros(t1 - t0));
    k.call_late.push_back(micros(returned - deadline.at()));
    k.disconnect.push_back(micros(gone - returned));
    k.gone_late.push_back(micros(gone - deadline.at()));
  }
  return k;
}

KillTimes bench_kill(const Options& o, const std::vector<std::string>& argv,
                     bool own_pid_namespace = true) {
  KillTimes k;
  for (int i = 0; i < o.kills; ++i) {
    const auto t0 = Steady::now();
    auto child = spawn_or_die({.argv = argv, .own_pid_namespace = own_pid_namespace});
    const auto t1 = Steady::now();
    const pid_t pid = child->pid();
    auto channel = child->take_channel(Framing::lines);
    auto player = std::make_shared<arbiter::RemotePlayer<arbiter::q::Q>>(
        "looper", std::move(channel), std::move(child));
    arbiter::CallRunner runner(arbiter::Isolation::inline_call);

    const Deadline deadline =
        Deadline::after(SteadyClock::instance(), std::chrono::microseconds(o.deadline_us));
    auto out = arbiter::guarded_call(0, "win", runner, deadline, [p = player] { p->win(true); });
    const auto returned = Steady::now();
    if (out.value || out.value.error().why != arbiter::Why::timeout)
      die(fmt::format("kill case: expected a timeout, got {}",
                      out.value ? std::string("an answer")
                                : std::string(arbiter::to_string(out.value.error().why))));
    // disconnect() sends SIGKILL and returns; the child is gone once exited() sees it dead (and
    // reaps it).
    player->disconnect();
    while (!player->child()->exited()) std::this_thread::yield();
    const auto gone = Steady::now();

    // The child must be reaped: no longer our child, and no process with its pid.
    int status;
    if (::waitpid(pid, &status, WNOHANG) != -1 || errno != ECHILD)
      die(fmt::format("kill case: pid {} not reaped after disconnect()", pid));
    if (::kill(pid, 0) == 0 || errno != ESRCH)
      die(fmt::format("kill case: pid {} still exists after disconnect()", pid));

    k.spawn.push_back(micros(t1 - t0));
    k.call_late.push_back(micros(returned - deadline.at()));
    k.disconnect.push_back(micros(gone - returned));
    k.gone_late.push_back(micros(gone - deadline.at()));
  }
  return k;
}

// ---------------------------------------------------------------------------------------------
// Output

void print_round_trip_header() {
  fmt::print("{:<38} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9}\n", "round trip (us)",
             "n", "p10", "p50", "p90", "p99", "mean", "max", "p50/floor", "p99/floor");
}

void print_round_trip(std::string_view name, const Summary& s, const Summary* floor) {
  std::string r50, r99;
  if (floor != nullptr) {
    r50 = fmt::format("{:.2f}x", s.p50 / floor->p50);
    r99 = fmt::format("{:.2f}x", s.p99 / floor->p99);
  }
  fmt::print("{:<38} {:>6} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.1f} {:>8.0f} {:>9} {:>9}\n",
             name, s.n, s.p10, s.p50, s.p90, s.p99, s.mean, s.max, r50, r99);
  std::fflush(stdout);
}

void print_kill(std::string_view kind, const KillTimes& k) {
  const auto row = [](std::string_view name, const Summary& s) {
    fmt::print("  {:<46} {:>5} {:>9.1f} {:>9.1f} {:>9.1f} {:>9.1f}\n", name, s.n, s.p50, s.p99,
               s.mean, s.max);
  };
  fmt::print("{}\n", kind);
  row("call returned, past the deadline", summarize(k.call_late));
  row("child killed and reaped, past the deadline", summarize(k.gone_late));
  row("killing and reaping alone (disconnect())", summarize(k.disconnect));
  row("spawn (for scale)", summarize(k.spawn));
  std::fflush(stdout);
}

int int_flag(const char* text, const char* flag) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 1 || v > 10'000'000)
    die(fmt::format("{} wants a positive integer, got \"{}\"", flag, text));
  return static_cast<int>(v);
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const auto value = [&] {
      if (i + 1 >= argc) die(fmt::format("{} needs a value", a));
      ++i;
      return int_flag(argv[i], argv[i - 1]);
    };
    if (a == "--rounds")
      o.rounds = value();
    else if (a == "--warmup")
      o.warmup = value();
    else if (a == "--kills")
      o.kills = value();
    else if (a == "--deadline-us")
      o.deadline_us = value();
    else
      die(fmt::format("unknown argument \"{}\" (--rounds N --warmup N --kills N --deadline-us N)",
                      a));
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == "--void-peer") return run_void_peer();
  if (argc == 2 && std::string_view(argv[1]) == "--mute-peer") return run_mute_peer();
  const Options o = parse_options(argc, argv);
  ChildProcess::ignore_sigpipe();
  const std::string exe = self_exe();
  const auto started = Steady::now();

  fmt::print("remote_bench: {} timed round trips per case after {} untimed; message {}\n", o.rounds,
             o.warmup, arbiter::dump(win_call()));
  fmt::print("{} cores, kernel pid namespaces for children: {}\n\n",
             std::thread::hardware_concurrency(), [] {
               auto c = ChildProcess::spawn({.argv = {"/bin/true"}});
               return c && (*c)->in_own_pid_namespace() ? "yes" : "no";
             }());

  for (const Placement& where : placements()) {
    set_affinity(0, where.self_cpu);
    fmt::print("{}\n", where.name);
    print_round_trip_header();
    const Summary pipe_floor = summarize(bench_raw_pipe(o, where, {"/bin/cat"}));
    print_round_trip("pipe floor (cat, blocking r/w)", pipe_floor, nullptr);
    print_round_trip("pipe floor + poll() before read (cat)",
                     summarize(bench_raw_pipe(o, where, {"/bin/cat"}, /*poll_first=*/true)),
                     &pipe_floor);
    print_round_trip("pipe floor + look + poll() (cat)",
                     summarize(bench_raw_pipe(o, where, {"/bin/cat"}, true, /*look_first=*/true)),
                     &pipe_floor);
    print_round_trip("pipe channel (cat, exchange)", summarize(bench_pipe_channel(o, where)),
                     &pipe_floor);
    const Summary void_floor = summarize(bench_raw_pipe(o, where, {exe, "--void-peer"}));
    print_round_trip("pipe floor (void peer)", void_floor, nullptr);
    print_round_trip("pipe RemotePlayer::win (void peer)",
                     summarize(bench_remote_player(o, where, exe)), &void_floor);
    {
      EchoServer echo(2, where.peer_cpu);
      const Summary tcp_floor = summarize(bench_raw_tcp(o, echo.port()));
      print_round_trip("tcp floor (echo thread, blocking)", tcp_floor, nullptr);
      print_round_trip("tcp channel (echo thread, exchange)",
                       summarize(bench_tcp_channel(o, echo.port())), &tcp_floor);
    }
    fmt::print("\n");
  }
  set_affinity(0, std::nullopt);
  bench_cpu_parts(o);

  fmt::print(
      "kill latency (unpinned): {} children per kind, deadline {} us, "
      "guarded_call (inline) then RemotePlayer::disconnect()\n",
      o.kills, o.deadline_us);
  fmt::print("  {:<46} {:>5} {:>9} {:>9} {:>9} {:>9}\n", "(microseconds)", "n", "p50", "p99",
             "mean", "max");
  print_kill("floor: posix_spawn, ppoll() to the deadline, kill(SIGKILL) + waitpid() (mute peer)",
             bench_kill_raw(o, {exe, "--mute-peer"}));
  print_kill(
      "RemotePlayer + FdChannel, posix_spawn'ed mute peer, no ChildProcess; "
      "disconnect() + kill + waitpid",
      bench_kill_channel_only(o, {exe, "--mute-peer"}));
  print_kill("child that reads but never answers (--mute-peer)",
             bench_kill(o, {exe, "--mute-peer"}));
  print_kill("the same, own_pid_namespace = false (process group only)",
             bench_kill(o, {exe, "--mute-peer"}, /*own_pid_namespace=*/false));
  print_kill("child spinning in a shell loop (sh -c 'while :; do :; done')",
             bench_kill(o, {"/bin/sh", "-c", "while :; do :; done"}));

  fmt::print("\ntotal {:.1f} s\n", std::chrono::duration<double>(Steady::now() - started).count());
  return 0;
}
