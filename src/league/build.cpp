#include "league/build.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/clock.h"
#include "core/file.h"
#include "core/printable.h"
#include "core/shell_words.h"
#include "core/units.h"
#include "remote/child_process.h"

namespace arbiter::league {
namespace {

namespace fs = std::filesystem;

// Copies the files to the tmpfs (the shown directory is read-only), builds there with its output
// as the log, then streams the tree on stdout. The sandbox's PATH is the system's. The command is
// quoted into the script rather than passed as arguments: the walls would read an argument that
// names a file of the bot as that file in the read-only directory.
std::string build_script(const std::vector<std::string>& command) {
  return fmt::format(
      "set -e\n"
      "cp -R . /tmp/bot\n"
      "cd /tmp/bot\n"
      "{} >&2\n"
      "exec tar -cf - .\n",
      join_shell_words(command));
}

struct Scratch {
  fs::path dir;
  ~Scratch() {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

// Reads the build's stdout until it ends, the deadline passes or it passes `cap` bytes.
enum class Read { done, timeout, too_big, error };
Read read_stream(int fd, const Deadline& deadline, std::uint64_t cap, std::string& out) {
  char buf[1 << 16];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline.remaining());
    if (left.count() <= 0) return Read::timeout;
    pollfd p{fd, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 1000)));
    if (r < 0 && errno != EINTR) return Read::error;
    if (r <= 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return Read::error;
    if (n == 0) return Read::done;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > cap) return Read::too_big;
  }
}

// Waits for the build to exit until the deadline (its stdout has ended; it may still be writing
// its log or be stopped short of exiting).
bool wait_exit(ChildProcess& child, const Deadline& deadline) {
  while (!child.exited()) {
    if (deadline.passed()) return false;
    ::usleep(5000);
  }
  return true;
}

std::string seconds_text(std::chrono::milliseconds d) {
  return format_duration(std::chrono::duration_cast<std::chrono::microseconds>(d));
}

}  // namespace

BuildOutcome build_bot(const Tree& source, const Manifest& manifest, const BuildCaps& caps,
                       const fs::path& scratch) {
  BuildOutcome out;
  const auto failed = [&](std::string reason) {
    out.ok = false;
    out.reason = std::move(reason);
    out.log += fmt::format("\n[arbiter] build failed: {}\n", out.reason);
    return out;
  };
  std::error_code ec;
  std::filesystem::create_directories(scratch, ec);
  Scratch files{scratch / "src"};
  if (auto ok = unpack(source, files.dir); !ok) {
    files.dir.clear();
    return failed("cannot unpack the files to build: " + ok.error().message);
  }
  ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", build_script(manifest.build)};
  spec.cwd = files.dir;
  spec.limits.memory_bytes = caps.memory;
  spec.limits.processes = caps.processes;
  spec.limits.output_bytes = caps.output_bytes;
  spec.limits.open_files = 1024;
  spec.limits.cpu_millis = 1000;
  spec.stderr_log = scratch / "build.log";
  spec.stderr_cap = caps.log_bytes;
  if (caps.sandbox) {
    SandboxSpec walls;
    walls.scratch_bytes = caps.scratch_bytes;
    spec.sandbox = walls;
  }
  const SteadyClock clock;
  const Deadline deadline = Deadline::after(clock, caps.time);
  auto child = ChildProcess::spawn(spec);
  if (!child) return failed("cannot start the build: " + child.error().message);
  auto pipes = (*child)->take_pipes();
  ::close(pipes.in);
  std::string tar;
  const std::uint64_t tar_cap = caps.tree.unpacked_bytes + caps.tree.unpacked_bytes / 8 + (1 << 20);
  const Read read = read_stream(pipes.out, deadline, tar_cap, tar);
  ::close(pipes.out);
  const bool exited = read == Read::done && wait_exit(**child, deadline);
  if (!exited) (*child)->kill();
  const auto hit = (*child)->limit_hit(std::chrono::milliseconds(200));
  const auto code = (*child)->exit_code();
  (*child)->kill();
  out.log = read_file(spec.stderr_log, caps.log_bytes + 1).value_or("");
  if (out.log.size() > caps.log_bytes) out.log.resize(caps.log_bytes);
  if (!out.log.empty() && !out.log.ends_with('\n')) out.log += '\n';
  const std::string last_words = printable_line((*child)->last_words(std::chrono::milliseconds(0)));

  if (hit) return failed(fmt::format("{}: {}", to_string(hit->why), hit->detail));
  if (read == Read::timeout || (read == Read::done && !exited))
    return failed(
        fmt::format("timed out after {} (the build's time cap)", seconds_text(caps.time)));
  if (read == Read::too_big)
    return failed(fmt::format("the built files are over the cap of {}",
                              format_size(caps.tree.unpacked_bytes)));
  if (read == Read::error) return failed("its output could not be read");
  if (code && *code != 0)
    return failed(last_words.empty()
                      ? fmt::format("the build command failed (exit {})", *code)
                      : fmt::format("the build command failed (exit {}): {}", *code, last_words));
  ArchiveCaps tree_caps = caps.tree;
  tree_caps.packed_bytes = tar_cap;  // a plain tar: its size is its contents and headers
  auto built = read_archive(tar, tree_caps);
  if (!built) return failed("what it built: " + built.error().message);
  out.ok = true;
  out.built = std::move(*built);
  out.log += fmt::format("[arbiter] built: {} files, {}\n", out.built.entries.size(),
                         format_size(out.built.bytes()));
  return out;
}

}  // namespace arbiter::league
