// zoo-bot: a Q player that speaks the wire protocol correctly except for one chosen misbehaviour.
//
// Usage: zoo-bot MODE [--tcp HOST:PORT --token TOKEN] [--delay S] [--pid-file PATH]
// Over stdin/stdout by default; with --tcp it connects to a referee and signs up with the token
// (--name is the same option).
// It answers "void" to setup, new-tiles and win and "pass" to take-turn, except that MODE
// misbehaves (at the first take-turn unless stated):
//   good            never misbehaves
//   silent          reads on, never answers
//   exit-now        exits at once, before setup (stdio)
//   crash-mid       abort()
//   loop            busy-loops forever
//   late            sleeps --delay seconds (default 2), then answers "pass"
//   garbage         answers a line that is not JSON
//   huge-line       writes 2 MiB of 'x' without a newline, then waits
//   no-newline      writes "pass" (with the quotes) without a newline, then waits
//   illegal         places a tile it does not hold next to the map (foul tile-not-owned)
//   stderr-flood    plays correctly while a thread writes ~100 MB to stderr (stdio)
//   close-stdout    closes stdout, then sleeps forever (stdio)
//   fork-exit       forks a child that sleeps forever holding stdout, then exits (stdio)
//   fork-hold       at start forks a child that sleeps forever holding stdout; silent (stdio)
//   ignore-sigterm  ignores SIGTERM from the start; at take-turn sleeps forever without reading
//   stall           (tcp) sends its name, then never answers anything
//   half-close      (tcp) sends its name, shuts down its sending side, reads on
// --pid-file appends "EVENT PID" lines (PID as the machine sees it, also inside a PID
// namespace) for "start", "grandchild" (a forked sleeper) and "misbehave".
// It exits quietly at end of input and after answering win.
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

namespace {

using Json = nlohmann::json;

enum class Mode {
  good,
  silent,
  exit_now,
  crash_mid,
  loop,
  late,
  garbage,
  huge_line,
  no_newline,
  illegal,
  stderr_flood,
  close_stdout,
  fork_exit,
  fork_hold,
  ignore_sigterm,
  stall,
  half_close,
};

constexpr std::pair<std::string_view, Mode> kModes[] = {
    {"good", Mode::good},
    {"silent", Mode::silent},
    {"exit-now", Mode::exit_now},
    {"crash-mid", Mode::crash_mid},
    {"loop", Mode::loop},
    {"late", Mode::late},
    {"garbage", Mode::garbage},
    {"huge-line", Mode::huge_line},
    {"no-newline", Mode::no_newline},
    {"illegal", Mode::illegal},
    {"stderr-flood", Mode::stderr_flood},
    {"close-stdout", Mode::close_stdout},
    {"fork-exit", Mode::fork_exit},
    {"fork-hold", Mode::fork_hold},
    {"ignore-sigterm", Mode::ignore_sigterm},
    {"stall", Mode::stall},
    {"half-close", Mode::half_close},
};

constexpr std::size_t kFloodTotal = 100u << 20;  // bytes the stderr flood writes in all
constexpr std::size_t kFloodHead = 2u << 20;     // written before the first answer
constexpr std::size_t kHugeLine = 2u << 20;

std::string g_pid_file;

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "zoo-bot: %s\nusage: zoo-bot MODE [--tcp HOST:PORT --name NAME] "
               "[--delay S] [--pid-file PATH]\nmodes:",
               problem.c_str());
  for (const auto& [name, mode] : kModes) std::fprintf(stderr, " %s", std::string(name).c_str());
  std::fprintf(stderr, "\n");
  std::exit(2);
}

// This process's PID in the machine's (procfs's) PID namespace, which getpid() is not when the
// referee started us in a PID namespace of our own.
long machine_pid() {
  char buf[32] = {};
  const ssize_t n = ::readlink("/proc/self", buf, sizeof buf - 1);
  return n > 0 ? std::atol(buf) : static_cast<long>(::getpid());
}

void record(const char* event) {
  if (g_pid_file.empty()) return;
  const int fd = ::open(g_pid_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[64];
  const int n = std::snprintf(line, sizeof line, "%s %ld\n", event, machine_pid());
  [[maybe_unused]] ssize_t w = ::write(fd, line, static_cast<std::size_t>(n));
  ::close(fd);
}

[[noreturn]] void sleep_forever() {
  for (;;) ::pause();
}

// Writes all of `text`; false when the peer is gone.
bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

class Wire {
 public:
  Wire(int in, int out) : in_(in), out_(out) {}
  int in() const { return in_; }
  int out() const { return out_; }

  // The next line without its '\n'; nothing at end of input or on a read error.
  std::optional<std::string> read_line() {
    for (;;) {
      const auto nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      char chunk[65536];
      const ssize_t n = ::read(in_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return std::nullopt;
      buf_.append(chunk, static_cast<std::size_t>(n));
    }
  }

  // Reads and discards until end of input, then exits quietly.
  [[noreturn]] void drain_and_exit() {
    while (read_line()) {
    }
    std::exit(0);
  }

  void send(std::string_view text) {
    if (!write_all(out_, text)) std::exit(0);
  }
  void answer(const Json& value) { send(value.dump() + "\n"); }

 private:
  int in_;
  int out_;
  std::string buf_;
};

int connect_tcp(const std::string& where) {
  const auto colon = where.rfind(':');
  if (colon == std::string::npos) usage("--tcp expects HOST:PORT");
  const std::string host = where.substr(0, colon);
  const std::string port = where.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  // The referee may not listen yet: retry for a while.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    addrinfo* found = nullptr;
    if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &found) == 0) {
      for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
        const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
          ::freeaddrinfo(found);
          return fd;
        }
        ::close(fd);
      }
      ::freeaddrinfo(found);
    }
    if (std::chrono::steady_clock::now() > give_up) {
      std::fprintf(stderr, "zoo-bot: cannot connect to %s\n", where.c_str());
      std::exit(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// A child that sleeps forever, keeping every descriptor it inherited (stdout among them).
// Returns once the child has recorded itself.
void fork_sleeper() {
  int recorded[2];
  if (::pipe(recorded) < 0) return;
  if (::fork() == 0) {
    ::close(recorded[0]);
    record("grandchild");
    ::close(recorded[1]);
    sleep_forever();
  }
  ::close(recorded[1]);
  char byte;
  while (::read(recorded[0], &byte, 1) < 0 && errno == EINTR) {
  }
  ::close(recorded[0]);
}

std::atomic<std::size_t> g_flooded{0};  // bytes the stderr flood has written so far

void start_flood() {
  std::thread([] {
    const std::string chunk(64 * 1024, 'e');
    while (g_flooded.load() < kFloodTotal) {
      const ssize_t n = ::write(STDERR_FILENO, chunk.data(), chunk.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      g_flooded.fetch_add(static_cast<std::size_t>(n));
    }
  }).detach();
}

// A placement of a tile kind missing from our hand on a free cell next to the map: decodes fine
// but breaks the rules (tile-not-owned is the first thing the referee checks).
Json illegal_placement(const Json& pub) {
  static constexpr const char* kColors[] = {"red", "green", "blue", "yellow", "orange", "purple"};
  static constexpr const char* kShapes[] = {"star",   "8star",  "square",
                                            "circle", "clover", "diamond"};
  std::set<std::pair<std::string, std::string>> held;
  for (const Json& t : pub.at("players").at(0).at("tile*"))
    held.insert({t.at("color").get<std::string>(), t.at("shape").get<std::string>()});
  Json tile;  // six tiles in hand leave at least 30 of the 36 kinds
  for (const char* color : kColors) {
    for (const char* shape : kShapes) {
      if (!held.contains({color, shape})) tile = {{"color", color}, {"shape", shape}};
    }
  }
  std::set<std::pair<long, long>> used;
  for (const Json& row : pub.at("map")) {
    const long r = row.at(0).get<long>();
    for (std::size_t i = 1; i < row.size(); ++i) used.insert({r, row.at(i).at(0).get<long>()});
  }
  std::pair<long, long> spot{0, 0};
  for (const auto& [r, c] : used) {
    for (const auto& [dr, dc] : {std::pair{0L, 1L}, {0L, -1L}, {1L, 0L}, {-1L, 0L}}) {
      if (!used.contains({r + dr, c + dc})) spot = {r + dr, c + dc};
    }
  }
  return Json::array(
      {{{"coordinate", {{"row", spot.first}, {"column", spot.second}}}, {"1tile", tile}}});
}

// The misbehaviour of `mode` at the first take-turn; returns only for modes that go on playing.
void misbehave(Mode mode, Wire& wire, const Json& pub, double delay) {
  if (mode != Mode::good && mode != Mode::stderr_flood) record("misbehave");
  switch (mode) {
    case Mode::silent:
    case Mode::fork_hold:
      wire.drain_and_exit();
    case Mode::crash_mid:
      std::abort();
    case Mode::loop: {
      volatile unsigned long spin = 0;
      for (;;) spin = spin + 1;
    }
    case Mode::late:
      std::this_thread::sleep_for(std::chrono::duration<double>(delay));
      wire.answer("pass");
      return;
    case Mode::garbage:
      wire.send("this is {not json\n");
      return;
    case Mode::huge_line:
      wire.send(std::string(kHugeLine, 'x'));
      wire.drain_and_exit();
    case Mode::no_newline:
      wire.send("\"pass\"");
      wire.drain_and_exit();
    case Mode::illegal:
      wire.answer(illegal_placement(pub));
      return;
    case Mode::close_stdout:
      ::close(STDOUT_FILENO);
      sleep_forever();
    case Mode::fork_exit:
      fork_sleeper();
      ::_exit(0);
    case Mode::ignore_sigterm:
      sleep_forever();
    default:
      wire.answer("pass");
      return;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) usage("no mode given");
  std::optional<Mode> mode;
  for (const auto& [name, m] : kModes)
    if (name == argv[1]) mode = m;
  if (!mode) usage(std::string("unknown mode ") + argv[1]);
  std::string tcp;
  std::string name = "zoo";
  double delay = 2.0;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage(arg + " needs a value");
    const std::string value = argv[++i];
    if (arg == "--tcp") {
      tcp = value;
    } else if (arg == "--name" || arg == "--token") {
      name = value;
    } else if (arg == "--delay") {
      delay = std::atof(value.c_str());
    } else if (arg == "--pid-file") {
      g_pid_file = value;
    } else {
      usage("unknown option " + arg);
    }
  }

  // abort() must not leave core files behind; a vanished reader is handled where we write.
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  ::signal(SIGPIPE, SIG_IGN);
  record("start");
  if (*mode == Mode::exit_now) return 0;
  if (*mode == Mode::ignore_sigterm) ::signal(SIGTERM, SIG_IGN);
  if (*mode == Mode::fork_hold) fork_sleeper();

  int in = STDIN_FILENO;
  int out = STDOUT_FILENO;
  if (!tcp.empty()) {
    in = out = connect_tcp(tcp);
    if (!write_all(out, Json(name).dump() + "\n")) return 0;
  }
  Wire wire(in, out);
  if (*mode == Mode::half_close) {
    ::shutdown(out, SHUT_WR);
    wire.drain_and_exit();
  }
  if (*mode == Mode::stall) wire.drain_and_exit();

  if (*mode == Mode::stderr_flood) {
    start_flood();
    while (g_flooded.load() < kFloodHead)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
  }

  bool misbehaved = false;
  while (auto line = wire.read_line()) {
    const Json call = Json::parse(*line, nullptr, /*allow_exceptions=*/false);
    if (!call.is_array() || call.size() != 2 || !call[0].is_string() || !call[1].is_array() ||
        call[1].empty()) {
      std::fprintf(stderr, "zoo-bot: not a call: %.80s\n", line->c_str());
      return 1;
    }
    const std::string method = call[0].get<std::string>();
    if (method == "take-turn" && !misbehaved) {
      misbehaved = true;
      misbehave(*mode, wire, call[1][0], delay);
    } else if (method == "take-turn") {
      wire.answer("pass");
    } else {
      wire.answer("void");
      if (method == "win") return 0;
    }
  }
  return 0;
}
