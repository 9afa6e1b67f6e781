#include "remote/cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdlib>
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
  std::string cpuacct;  // v1: ... in the cpuacct hierarchy (may be cpu's); v2: same as memory
  std::string cpuset;   // v1: ... in the cpuset hierarchy; v2: same as memory; empty: none
  std::string why_not;  // empty when usable
  std::string cpu_why_not;  // empty when CPU shares can be capped
  std::string cpuacct_why_not;
  std::string cpuset_why_not;
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
      v2_root, acct_mount, acct_root, set_mount, set_root;
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
        if (o == "cpuacct") acct_mount = point, acct_root = root;
        if (o == "cpuset") set_mount = point, set_root = root;
      }
    }
  }
  // /proc/self/cgroup: "id:controllers:path"; v2 is "0::path".
  std::istringstream groups(read_small("/proc/self/cgroup"));
  std::string memory_path, pids_path, cpu_path, v2_path, acct_path, set_path;
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
      if (name == "cpuacct") acct_path = path;
      if (name == "cpuset") set_path = path;
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
      if (!acct_mount.empty()) l.cpuacct = join(acct_mount, acct_root, acct_path);
      if (!writable_dir(l.cpuacct)) {
        l.cpuacct.clear();
        l.cpuacct_why_not = "no writable cgroup v1 cpuacct hierarchy";
      }
      if (!set_mount.empty()) l.cpuset = join(set_mount, set_root, set_path);
      if (!writable_dir(l.cpuset)) {
        l.cpuset.clear();
        l.cpuset_why_not = "no writable cgroup v1 cpuset hierarchy";
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
      l.cpuacct = own;  // every v2 group has cpu.stat
      if (read_small(own + "/cgroup.subtree_control").find("cpuset") != std::string::npos ||
          write_small(own + "/cgroup.subtree_control", "+cpuset"))
        l.cpuset = own;
      else
        l.cpuset_why_not =
            fmt::format("cgroup v2 at {}: the cpuset controller is not delegated", own);
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
      for (const std::string* dir : {&found.cpu, &found.cpuacct, &found.cpuset})
        if (!dir->empty() && *dir != found.memory && *dir != found.pids) remove_stale(*dir);
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

Expected<void> ProgramCgroup::accounting_available() {
  if (!layout().why_not.empty()) return fail(layout().why_not);
  if (!layout().cpuacct_why_not.empty()) return fail(layout().cpuacct_why_not);
  return {};
}

Expected<void> ProgramCgroup::pin_available() {
  if (!layout().why_not.empty()) return fail(layout().why_not);
  if (!layout().cpuset_why_not.empty()) return fail(layout().cpuset_why_not);
  return {};
}

Expected<std::unique_ptr<ProgramCgroup>> ProgramCgroup::create(const CgroupCaps& caps) {
  const Layout& l = layout();
  if (!l.why_not.empty()) return fail(l.why_not);
  if (!caps.cpus.empty() && l.cpuset.empty())
    return fail("cannot pin a program to CPUs: " + l.cpuset_why_not);
  static std::atomic<std::uint64_t> serial{0};
  const std::string name = fmt::format("arbiter-{}-{}", ::getpid(), serial.fetch_add(1));
  std::unique_ptr<ProgramCgroup> group(new ProgramCgroup);
  // The group's directory in the hierarchy mounted at `parent`: made once, and joined once,
  // however many of the controllers wanted share that hierarchy (v1 may mount cpu,cpuacct).
  const auto dir_in = [&](const std::string& parent) -> Expected<std::string> {
    const std::string dir = parent + "/" + name;
    if (std::find(group->dirs_.begin(), group->dirs_.end(), dir) != group->dirs_.end()) return dir;
    if (::mkdir(dir.c_str(), 0700) < 0)
      return fail(fmt::format("cannot make the cgroup {}: {}", dir, std::strerror(errno)));
    group->dirs_.push_back(dir);
    return dir;
  };
  const auto set = [](const std::string& file, const std::string& value) -> Expected<void> {
    if (!write_small(file, value))
      return fail(fmt::format("cannot set {}: {}", file, std::strerror(errno)));
    return {};
  };
  std::vector<std::string> to_join;
  const auto join_later = [&](const std::string& dir) {
    if (std::find(to_join.begin(), to_join.end(), dir) == to_join.end()) to_join.push_back(dir);
  };
  const auto count_cpu = [&](const std::string& file, bool stat) -> Expected<void> {
    group->usage_fd_ = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (group->usage_fd_ < 0)
      return fail(fmt::format("cannot open {}: {}", file, std::strerror(errno)));
    group->usage_in_stat_ = stat;
    group->counts_cpu_ = true;
    return {};
  };
#define ARBITER_TRY(expr) \
  if (auto ok_ = (expr); !ok_) return std::unexpected(ok_.error())
  if (l.v2) {
    auto dir = dir_in(l.memory);
    if (!dir) return std::unexpected(dir.error());
    if (caps.memory_bytes) {
      ARBITER_TRY(set(*dir + "/memory.max", std::to_string(*caps.memory_bytes)));
      write_small(*dir + "/memory.swap.max", "0");  // absent without swap accounting
      group->memory_events_ = *dir + "/memory.events";
    }
    if (caps.processes) {
      ARBITER_TRY(set(*dir + "/pids.max", std::to_string(*caps.processes)));
      group->pids_events_ = *dir + "/pids.events";
    }
    // Equal weight, and a quota per period of 100 ms.
    if (caps.cpu_millis && !l.cpu.empty()) {
      ARBITER_TRY(set(*dir + "/cpu.max", fmt::format("{} {}", *caps.cpu_millis * 100, 100000)));
      write_small(*dir + "/cpu.weight", "100");
      group->cpu_stat_ = *dir + "/cpu.stat";
    }
    if (!caps.cpus.empty()) ARBITER_TRY(set(*dir + "/cpuset.cpus", caps.cpus));
    ARBITER_TRY(count_cpu(*dir + "/cpu.stat", true));
    group->memory_key_ = "oom_kill";
    join_later(*dir);
  } else {
    if (caps.memory_bytes) {
      auto dir = dir_in(l.memory);
      if (!dir) return std::unexpected(dir.error());
      ARBITER_TRY(set(*dir + "/memory.limit_in_bytes", std::to_string(*caps.memory_bytes)));
      // RAM plus swap, where swap is accounted, so that the cap cannot be dodged into swap.
      write_small(*dir + "/memory.memsw.limit_in_bytes", std::to_string(*caps.memory_bytes));
      group->memory_events_ = *dir + "/memory.oom_control";
      group->memory_key_ = "oom_kill";
      join_later(*dir);
    }
    if (caps.processes) {
      auto dir = dir_in(l.pids);
      if (!dir) return std::unexpected(dir.error());
      ARBITER_TRY(set(*dir + "/pids.max", std::to_string(*caps.processes)));
      group->pids_events_ = *dir + "/pids.events";
      join_later(*dir);
    }
    if (caps.cpu_millis && !l.cpu.empty()) {
      auto dir = dir_in(l.cpu);
      if (!dir) return std::unexpected(dir.error());
      // Equal weight (the default shares), and a quota per period of 100 ms.
      ARBITER_TRY(set(*dir + "/cpu.shares", "1024"));
      ARBITER_TRY(set(*dir + "/cpu.cfs_period_us", "100000"));
      ARBITER_TRY(set(*dir + "/cpu.cfs_quota_us", std::to_string(*caps.cpu_millis * 100)));
      group->cpu_stat_ = *dir + "/cpu.stat";
      join_later(*dir);
    }
    if (!l.cpuacct.empty()) {
      auto dir = dir_in(l.cpuacct);
      if (!dir) return std::unexpected(dir.error());
      ARBITER_TRY(count_cpu(*dir + "/cpuacct.usage", false));
      join_later(*dir);
    }
    if (!caps.cpus.empty()) {
      auto dir = dir_in(l.cpuset);
      if (!dir) return std::unexpected(dir.error());
      // A v1 cpuset takes no process before it has memory nodes: the parent's.
      std::string mems = read_small(l.cpuset + "/cpuset.mems");
      while (!mems.empty() && std::isspace(static_cast<unsigned char>(mems.back())))
        mems.pop_back();
      ARBITER_TRY(set(*dir + "/cpuset.mems", mems));
      ARBITER_TRY(set(*dir + "/cpuset.cpus", caps.cpus));
      join_later(*dir);
    }
  }
#undef ARBITER_TRY
  for (const std::string& dir : to_join) {
    const std::string procs = dir + "/cgroup.procs";
    const int fd = ::open(procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return fail(fmt::format("cannot open {}: {}", procs, std::strerror(errno)));
    group->join_fds_.push_back(fd);
  }
  return group;
}

void ProgramCgroup::freeze() {
  const std::optional<Duration> last = used();
  std::lock_guard lock(usage_mu_);
  if (usage_fd_ < 0) return;
  frozen_ = last;
  ::close(usage_fd_);
  usage_fd_ = -1;
}

void ProgramCgroup::joined() {
  for (int fd : join_fds_) ::close(fd);
  join_fds_.clear();
}

std::optional<Duration> ProgramCgroup::used() const {
  std::lock_guard lock(usage_mu_);
  if (usage_fd_ < 0) return frozen_;
  char buf[512];
  const ssize_t n = ::pread(usage_fd_, buf, sizeof buf - 1, 0);
  if (n <= 0) return std::nullopt;
  buf[n] = '\0';
  const char* p = buf;
  if (usage_in_stat_) {
    p = std::strstr(buf, "usage_usec ");
    if (p == nullptr) return std::nullopt;
    p += std::strlen("usage_usec ");
  }
  char* end = nullptr;
  const unsigned long long value = std::strtoull(p, &end, 10);
  if (end == p) return std::nullopt;
  return usage_in_stat_ ? Duration(std::chrono::microseconds(value)) : Duration(value);
}

ProgramCgroup::~ProgramCgroup() {
  joined();
  if (usage_fd_ >= 0) ::close(usage_fd_);
  // The processes were killed; the kernel may still be tearing the last ones down.
  for (auto it = dirs_.rbegin(); it != dirs_.rend(); ++it)
    for (int attempt = 0; attempt < 200 && ::rmdir(it->c_str()) < 0 && errno == EBUSY; ++attempt)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

bool ProgramCgroup::memory_hit() const {
  return !memory_events_.empty() && counter(memory_events_, memory_key_) > 0;
}

bool ProgramCgroup::contends_with_itself() const {
  if (!cpu_stat_.empty() && counter(cpu_stat_, "nr_throttled") > 0) return true;
  if (dirs_.empty()) return false;
  std::istringstream procs(read_small(dirs_.front() + "/cgroup.procs"));
  int n = 0;
  for (std::string pid; procs >> pid;) ++n;
  return n > 2;
}

bool ProgramCgroup::processes_hit() const {
  return !pids_events_.empty() && counter(pids_events_, "max") > 0;
}

}  // namespace arbiter
