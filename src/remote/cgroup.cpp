#include "remote/cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "core/file.h"

namespace arbiter {
namespace {

// Where this machine keeps the groups the referee may make, found once.
struct Layout {
  bool v2 = false;
  std::string memory;  // v1: the referee's group in the memory hierarchy; v2: its group
  std::string pids;    // v1: ... in the pids hierarchy; v2: same as memory
  std::string cpu;     // v1: ... in the cpu hierarchy; v2: same as memory; empty: none writable
  std::string why_not;  // empty when usable
  std::string cpu_why_not;  // empty when CPU shares can be capped
};

std::string read_small(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool write_small(const std::string& path, const std::string& value) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, value.data(), value.size()) == static_cast<ssize_t>(value.size());
  ::close(fd);
  return ok;
}

// The number after `key ` in a "key value" per line file (memory.events, pids.events, ...).
std::uint64_t counter(const std::string& path, const std::string& key) {
  std::istringstream in(read_small(path));
  std::string k;
  std::uint64_t v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return 0;
}

bool writable_dir(const std::string& dir) {
  struct stat st {};
  return !dir.empty() && ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
         ::access(dir.c_str(), W_OK) == 0;
}

Layout find_layout() {
  Layout l;
  // mountinfo fields: id parent major:minor root mountpoint options ... - fstype source superopts
  std::istringstream mounts(read_small("/proc/self/mountinfo"));
  std::string memory_mount, memory_root, pids_mount, pids_root, cpu_mount, cpu_root, v2_mount,
      v2_root;
  for (std::string line; std::getline(mounts, line);) {
    std::istringstream f(line);
    std::string id, parent, dev, root, point, options;
    f >> id >> parent >> dev >> root >> point >> options;
    std::string field;
    while (f >> field && field != "-") {
    }
    std::string type, source, super;
    f >> type >> source >> super;
    if (type == "cgroup2" && v2_mount.empty()) {
      v2_mount = point;
      v2_root = root;
    } else if (type == "cgroup") {
      std::istringstream opts(super);
      for (std::string o; std::getline(opts, o, ',');) {
        if (o == "memory") memory_mount = point, memory_root = root;
        if (o == "pids") pids_mount = point, pids_root = root;
        if (o == "cpu") cpu_mount = point, cpu_root = root;
      }
    }
  }
  // /proc/self/cgroup: "id:controllers:path"; v2 is "0::path".
  std::istringstream groups(read_small("/proc/self/cgroup"));
  std::string memory_path, pids_path, cpu_path, v2_path;
  for (std::string line; std::getline(groups, line);) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (controllers.empty()) v2_path = path;
    std::istringstream c(controllers);
    for (std::string name; std::getline(c, name, ',');) {
      if (name == "memory") memory_path = path;
      if (name == "pids") pids_path = path;
      if (name == "cpu") cpu_path = path;
    }
  }
  // The group's directory: the mount point plus the path below the mount's own root.
  const auto join = [](const std::string& mount, const std::string& root, std::string path) {
    if (root != "/" && path.starts_with(root)) path = path.substr(root.size());
    std::string dir = mount + (path == "/" ? "" : path);
    return writable_dir(dir) ? dir : (root == "/" ? std::string() : mount);
  };
  if (!memory_mount.empty() && !pids_mount.empty()) {
    l.memory = join(memory_mount, memory_root, memory_path);
    l.pids = join(pids_mount, pids_root, pids_path);
    if (writable_dir(l.memory) && writable_dir(l.pids)) {
      if (!cpu_mount.empty()) l.cpu = join(cpu_mount, cpu_root, cpu_path);
      if (!writable_dir(l.cpu)) {
        l.cpu.clear();
        l.cpu_why_not = "no writable cgroup v1 cpu hierarchy";
      }
      return l;
    }
  }
  if (!v2_mount.empty()) {
    const std::string own = join(v2_mount, v2_root, v2_path);
    l.v2 = true;
    l.memory = l.pids = own;
    const std::string enabled = read_small(own + "/cgroup.subtree_control");
    const bool has = enabled.find("memory") != std::string::npos &&
                     enabled.find("pids") != std::string::npos;
    if (writable_dir(own) &&
        (has || write_small(own + "/cgroup.subtree_control", "+memory +pids"))) {
      if (read_small(own + "/cgroup.subtree_control").find("cpu") != std::string::npos ||
          write_small(own + "/cgroup.subtree_control", "+cpu"))
        l.cpu = own;
      else
        l.cpu_why_not = fmt::format("cgroup v2 at {}: the cpu controller is not delegated", own);
      return l;
    }
    l.why_not = fmt::format(
        "cgroup v2 at {}: the memory and pids controllers are not delegated to the referee's "
        "group (run it in a group of its own with them, e.g. systemd-run --scope -p "
        "Delegate=yes)",
        own.empty() ? v2_mount : own);
    return l;
  }
  l.why_not = "no writable cgroup hierarchy with the memory and pids controllers";
  return l;
}

// Groups left by a referee that was killed (it could not remove them): removed when empty.
void remove_stale(const std::string& parent) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("arbiter-")) continue;
    const auto dash = name.find('-', 8);
    const std::string pid = name.substr(8, dash == std::string::npos ? 0 : dash - 8);
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos || pid.size() > 9)
      continue;
    if (::kill(static_cast<pid_t>(std::stol(pid)), 0) < 0 && errno == ESRCH)
      ::rmdir(entry.path().c_str());
  }
}

const Layout& layout() {
  static const Layout l = [] {
    Layout found = find_layout();
    if (found.why_not.empty()) {
      remove_stale(found.memory);
      if (found.pids != found.memory) remove_stale(found.pids);
      if (!found.cpu.empty() && found.cpu != found.memory) remove_stale(found.cpu);
    }
    return found;
  }();
  return l;
}

}  // namespace

Expected<void> ProgramCgroup::available() {
  if (!layout().why_not.empty()) return fail(layout().why_not);
  return {};
}

Expected<void> ProgramCgroup::cpu_available() {
  if (!layout().why_not.empty()) return fail(layout().why_not);
  if (!layout().cpu_why_not.empty()) return fail(layout().cpu_why_not);
  return {};
}

Expected<std::unique_ptr<ProgramCgroup>> ProgramCgroup::create(
    std::optional<std::uint64_t> memory_bytes, std::optional<std::uint64_t> processes,
    std::optional<std::uint64_t> cpu_millis) {
  const Layout& l = layout();
  if (!l.why_not.empty()) return fail(l.why_not);
  static std::atomic<std::uint64_t> serial{0};
  const std::string name = fmt::format("arbiter-{}-{}", ::getpid(), serial.fetch_add(1));
  std::unique_ptr<ProgramCgroup> group(new ProgramCgroup);
  const auto make = [&](const std::string& parent) -> Expected<std::string> {
    const std::string dir = parent + "/" + name;
    if (::mkdir(dir.c_str(), 0700) < 0)
      return fail(fmt::format("cannot make the cgroup {}: {}", dir, std::strerror(errno)));
    group->dirs_.push_back(dir);
    return dir;
  };
  const auto set = [](const std::string& file, std::uint64_t value) -> Expected<void> {
    if (!write_small(file, std::to_string(value)))
      return fail(fmt::format("cannot set {}: {}", file, std::strerror(errno)));
    return {};
  };
  const auto set_text = [](const std::string& file, const std::string& value) -> Expected<void> {
    if (!write_small(file, value))
      return fail(fmt::format("cannot set {}: {}", file, std::strerror(errno)));
    return {};
  };
  const auto join = [&](const std::string& dir) -> Expected<void> {
    const std::string procs = dir + "/cgroup.procs";
    const int fd = ::open(procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return fail(fmt::format("cannot open {}: {}", procs, std::strerror(errno)));
    group->join_fds_.push_back(fd);
    return {};
  };
  if (l.v2) {
    auto dir = make(l.memory);
    if (!dir) return std::unexpected(dir.error());
    if (memory_bytes) {
      if (auto ok = set(*dir + "/memory.max", *memory_bytes); !ok) return std::unexpected(ok.error());
      write_small(*dir + "/memory.swap.max", "0");  // absent without swap accounting
      group->memory_events_ = *dir + "/memory.events";
    }
    if (processes) {
      if (auto ok = set(*dir + "/pids.max", *processes); !ok) return std::unexpected(ok.error());
      group->pids_events_ = *dir + "/pids.events";
    }
    // Equal weight, and a quota per period of 100 ms.
    if (cpu_millis && !l.cpu.empty()) {
      if (auto ok = set_text(*dir + "/cpu.max", fmt::format("{} {}", *cpu_millis * 100, 100000));
          !ok)
        return std::unexpected(ok.error());
      write_small(*dir + "/cpu.weight", "100");
    }
    if (auto ok = join(*dir); !ok) return std::unexpected(ok.error());
    group->memory_key_ = "oom_kill";
    return group;
  }
  if (memory_bytes) {
    auto dir = make(l.memory);
    if (!dir) return std::unexpected(dir.error());
    if (auto ok = set(*dir + "/memory.limit_in_bytes", *memory_bytes); !ok)
      return std::unexpected(ok.error());
    // RAM plus swap, where swap is accounted, so that the cap cannot be dodged into swap.
    write_small(*dir + "/memory.memsw.limit_in_bytes", std::to_string(*memory_bytes));
    group->memory_events_ = *dir + "/memory.oom_control";
    group->memory_key_ = "oom_kill";
    if (auto ok = join(*dir); !ok) return std::unexpected(ok.error());
  }
  if (processes) {
    auto dir = make(l.pids);
    if (!dir) return std::unexpected(dir.error());
    if (auto ok = set(*dir + "/pids.max", *processes); !ok) return std::unexpected(ok.error());
    group->pids_events_ = *dir + "/pids.events";
    if (auto ok = join(*dir); !ok) return std::unexpected(ok.error());
  }
  if (cpu_millis && !l.cpu.empty()) {
    const std::string dir = l.cpu + "/" + name;
    if (::mkdir(dir.c_str(), 0700) < 0)
      return fail(fmt::format("cannot make the cgroup {}: {}", dir, std::strerror(errno)));
    group->dirs_.push_back(dir);
    // Equal weight (the default shares), and a quota per period of 100 ms.
    for (const auto& [file, value] : {std::pair<const char*, std::uint64_t>{"cpu.shares", 1024},
                                      {"cpu.cfs_period_us", 100000},
                                      {"cpu.cfs_quota_us", *cpu_millis * 100}})
      if (auto ok = set(dir + "/" + file, value); !ok) return std::unexpected(ok.error());
    if (auto ok = join(dir); !ok) return std::unexpected(ok.error());
  }
  return group;
}

ProgramCgroup::~ProgramCgroup() {
  for (int fd : join_fds_) ::close(fd);
  // The processes were killed; the kernel may still be tearing the last ones down.
  for (auto it = dirs_.rbegin(); it != dirs_.rend(); ++it)
    for (int attempt = 0; attempt < 200 && ::rmdir(it->c_str()) < 0 && errno == EBUSY; ++attempt)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

bool ProgramCgroup::memory_hit() const {
  return !memory_events_.empty() && counter(memory_events_, memory_key_) > 0;
}

bool ProgramCgroup::processes_hit() const {
  return !pids_events_.empty() && counter(pids_events_, "max") > 0;
}

}  // namespace arbiter
