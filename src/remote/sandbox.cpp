#include "remote/sandbox.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/filter.h>
#include <net/if.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <map>
#include <set>

#include <fmt/format.h>

namespace arbiter {
namespace {

namespace fs = std::filesystem;

// Where the new root is put together: a path of the host that every system has, covered (in the
// child's private mount namespace only) by a tmpfs once every bind source has been opened.
constexpr const char* kStaging = "/tmp";

// The steps of apply(), for messages.
constexpr const char* kSteps[] = {
    "",
    "making the mounts private",
    "opening a path to show",
    "making a shown path read-only",
    "mounting the new root",
    "making a directory in the new root",
    "mounting the scratch directory",
    "placing a shown path",
    "making a link in the new root",
    "switching to the new root",
    "letting go of the old root",
    "mounting /proc",
    "making the new root read-only",
    "bringing up loopback",
    "dropping to an unprivileged user",
    "setting no_new_privs",
    "setting the parent-death signal",
    "entering the scratch directory",
    "loading the seccomp filter",
    "entering a cgroup namespace of its own",
};
enum Step : int {
  kPrivate = 1,
  kOpen,
  kReadOnly,
  kRoot,
  kMkdir,
  kScratch,
  kPlace,
  kLink,
  kPivot,
  kOldRoot,
  kProc,
  kRootReadOnly,
  kLoopback,
  kUser,
  kNoNewPrivs,
  kDeathSignal,
  kChdir,
  kFilter,
  kCgroupNamespace,
};

// The system calls a player never needs; each fails with EPERM. (Everything else is allowed:
// interpreters and runtimes use a wide and changing set, and the other walls bound what the
// rest can reach.)
constexpr const char* kRefused[] = {
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "unshare",
    "setns",
    "bpf",
    "perf_event_open",
    "keyctl",
    "add_key",
    "request_key",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "iopl",
    "ioperm",
    "open_by_handle_at",
    "name_to_handle_at",
    "userfaultfd",
    "lookup_dcookie",
    "quotactl",
    "syslog",
    "vhangup",
    "personality",
    "fanotify_init",
    "pidfd_getfd",
};

// The filter as a BPF program, built and exported by libseccomp before fork.
Expected<std::vector<unsigned char>> build_filter() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) return fail("sandbox: seccomp_init failed");
  const auto refuse = SCMP_ACT_ERRNO(EPERM);
  std::string problem;
  for (const char* name : kRefused) {
    const int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture
    if (seccomp_rule_add(ctx, refuse, nr, 0) < 0) problem = name;
  }
  // clone() with any namespace flag; clone3() (whose flags sit behind a pointer the filter cannot
  // read) answers ENOSYS, so that libc falls back to clone().
  for (const scmp_datum_t flag : {CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER,
                                  CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWCGROUP})
    if (seccomp_rule_add(ctx, refuse, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag)) <
        0)
      problem = "clone";
  if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) < 0) problem = "clone3";
  // Raw and packet sockets: sniffing and forging traffic.
  if (seccomp_rule_add(ctx, refuse, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_PACKET)) < 0)
    problem = "socket";
  if (seccomp_rule_add(ctx, refuse, SCMP_SYS(socket), 1,
                       SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_RAW)) < 0)
    problem = "socket";
  std::vector<unsigned char> program;
  const int fd = ::memfd_create("seccomp", MFD_CLOEXEC);
  if (fd >= 0 && seccomp_export_bpf(ctx, fd) == 0) {
    const off_t size = ::lseek(fd, 0, SEEK_END);
    program.resize(static_cast<std::size_t>(std::max<off_t>(size, 0)));
    if (::pread(fd, program.data(), program.size(), 0) != static_cast<ssize_t>(program.size()))
      program.clear();
  }
  if (fd >= 0) ::close(fd);
  seccomp_release(ctx);
  if (!problem.empty()) return fail("sandbox: seccomp cannot filter " + problem);
  if (program.empty() || program.size() % sizeof(sock_filter) != 0)
    return fail("sandbox: the seccomp filter could not be exported");
  return program;
}

std::atomic<std::uint32_t> g_next_uid{0};

// The directories from the staging root down to `path` (exclusive), e.g. /a/b/c -> /a, /a/b.
void add_parents(const fs::path& path, std::vector<std::string>& dirs,
                 std::set<std::string>& seen) {
  fs::path at;
  for (auto it = path.begin(); it != path.end(); ++it) {
    if (std::next(it) == path.end()) break;
    at /= *it;
    if (at == "/") continue;
    if (seen.insert(at.string()).second) dirs.push_back(std::string(kStaging) + at.string());
  }
}

bool under(const fs::path& path, const fs::path& dir) {
  auto [d, p] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return d == dir.end();
}

// A user namespace whose root is `uid` (and gid) of the host, for idmapped mounts: a file the
// referee's user owns, seen through such a mount, is owned by `uid`. Made by a helper child
// that exists only until its maps are written. Returns an open descriptor of it, or -1 (errno).
int make_owner_map(uid_t uid) {
  // The helper waits to be killed: waiting for a pipe to close would deadlock when two threads
  // make helpers at once (each helper holds a copy of the other's pipe).
  const auto helper = static_cast<pid_t>(::syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0));
  if (helper == 0) {
    for (;;) ::pause();
  }
  if (helper < 0) return -1;
  int ns = -1;
  const std::string map = fmt::format("0 {} 1\n", uid);
  const auto put = [&](const char* file, const std::string& text) {
    const int fd = ::open(fmt::format("/proc/{}/{}", helper, file).c_str(), O_WRONLY | O_CLOEXEC);
    const bool ok =
        fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    if (fd >= 0) ::close(fd);
    return ok;
  };
  if (put("uid_map", map) && put("setgroups", "deny") && put("gid_map", map))
    ns = ::open(fmt::format("/proc/{}/ns/user", helper).c_str(), O_RDONLY | O_CLOEXEC);
  const int err = errno;
  ::kill(helper, SIGKILL);
  while (::waitpid(helper, nullptr, 0) < 0 && errno == EINTR) {
  }
  errno = err;
  return ns;
}

}  // namespace

const char* SandboxPlan::step_name(int step) {
  return step > 0 && step < static_cast<int>(std::size(kSteps)) ? kSteps[step] : "?";
}

namespace {

// What a program is shown besides its scratch directory, and where it starts.
struct Sight {
  std::vector<fs::path> shown;  // absolute, canonical; shallowest first
  std::set<std::string> own;    // the program's own paths (not the system's): owned by it
  std::map<std::string, std::string> why;  // why each path is shown, for messages
  std::vector<std::pair<std::string, std::string>> symlinks;  // {link target, staged path}
  std::string workdir = "/tmp";
};

// The paths shown to `program` with `argv` (both made absolute), refused with one line when a
// path is missing or when a shown directory holds one of spec.private_paths.
// Where a private file is, or will be: made absolute, every link followed (a link whose target
// does not exist yet too, since the referee will create the file through it), the rest made
// canonical. Empty when it cannot be told.
fs::path private_target(const fs::path& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  for (int hops = 0; hops < 40 && !ec; ++hops) {
    p = fs::weakly_canonical(p, ec);
    std::error_code missing;  // a file not made yet is no link
    if (ec || !fs::is_symlink(fs::symlink_status(p, missing))) break;
    const fs::path target = fs::read_symlink(p, ec);
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  return ec ? fs::path() : p;
}

// The (device, inode) of every existing directory holding `file`, up to the root's child.
std::set<std::pair<dev_t, ino_t>> ancestor_ids(const fs::path& file) {
  std::set<std::pair<dev_t, ino_t>> ids;
  for (fs::path d = file.parent_path(); !d.empty() && d != d.root_path(); d = d.parent_path()) {
    struct stat st {};
    if (::stat(d.c_str(), &st) == 0) ids.insert({st.st_dev, st.st_ino});
  }
  return ids;
}

Expected<Sight> look(const SandboxSpec& spec, std::string& program,
                     std::vector<std::string>& argv, const fs::path& workdir) {
  Sight sight;
  std::vector<fs::path>& shown = sight.shown;
  auto show = [&](const fs::path& p, bool its_own, std::string why) {
    for (const auto& s : shown)
      if (under(p, s)) return;
    sight.why[p.string()] = std::move(why);
    // What p covers is shown by p, unless it is shown otherwise (the working directory, as it
    // is, inside a parent made the program's own): a file bound below p could not be placed
    // in p's read-only mount.
    std::erase_if(shown, [&](const fs::path& s) {
      return under(s, p) && sight.own.contains(s.string()) == its_own;
    });
    shown.push_back(p);
    if (its_own) sight.own.insert(p.string());
  };
  // The system, read-only: what interpreters and libraries need.
  std::set<std::string> system{"/usr", "/etc"};
  for (const char* dir : {"/usr", "/etc"}) show(dir, false, "the system");
  for (const char* top : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"}) {
    std::error_code ec;
    const auto status = fs::symlink_status(top, ec);
    if (ec || !fs::exists(status)) continue;
    if (fs::is_symlink(status))
      sight.symlinks.push_back({fs::read_symlink(top, ec).string(), std::string(kStaging) + top});
    else if (fs::is_directory(status)) {
      show(top, false, "the system");
      system.insert(top);
    }
  }
  std::error_code ec;
  // Its working directory, before its program and the files its arguments name: shown as it is,
  // not made its own, so that it reads there only what anyone may read (an organizer's store,
  // tokens or other programs' stderr kept there stay closed to it), and nothing under it is
  // remapped.
  if (!workdir.empty()) {
    const fs::path dir = fs::canonical(workdir, ec);
    if (ec || !fs::is_directory(dir, ec))
      return fail(fmt::format("sandbox: its directory {} does not exist", workdir.string()));
    show(dir, false, "its working directory");
    sight.workdir = dir.string();
  }
  // A path is followed only where a link stays in its directory (python3 -> python3.11): a link
  // planted in a program's directory and named in its command would otherwise show its target,
  // anywhere on the host, as the program's own. The system's links (/bin -> usr/bin) are fine.
  std::vector<fs::path> named;  // the read-only paths, where they really are
  const auto locate = [&](const fs::path& given, const std::string& what) -> Expected<fs::path> {
    std::error_code ec;
    const fs::path real = fs::canonical(given, ec);
    if (ec) return fail(fmt::format("sandbox: {}: {}", given.string(), ec.message()));
    for (const auto& s : system)
      if (under(real, s)) return real;
    for (const auto& s : named)
      if (under(real, s)) return real;
    fs::path lexical = fs::absolute(given, ec).lexically_normal();
    if (lexical.filename().empty()) lexical = lexical.parent_path();  // "data/" names data
    if (real.parent_path() != lexical.parent_path())
      return fail(fmt::format("sandbox: {} {} leads through a link to {}: name it where it is, "
                              "or show where it leads with --read-only (a virtualenv's "
                              "interpreter); links out of a program's directories are not "
                              "followed",
                              what, given.string(), real.string()));
    return real;
  };
  // The paths the organizer shows by name, first: a link into one of them is followed too (a
  // virtualenv's python -> the interpreter it was made from, given with --read-only).
  for (const auto& p : spec.read_only) {
    if (!fs::exists(p, ec))
      return fail(fmt::format("sandbox: the read-only path {} does not exist", p.string()));
    auto found = locate(p, "the read-only path");
    if (!found) return std::unexpected(found.error());
    show(*found, true, "a --read-only path");
    named.push_back(*found);
  }
  // The program: its directory; for a program in a bin directory (an interpreter such as a
  // pyenv Python), the lib directories beside it too, which it needs.
  auto real = locate(program, "the program");
  if (!real) return std::unexpected(real.error());
  show(real->parent_path(), true, "the program's own directory");
  if (real->parent_path().filename() == "bin")
    for (const char* lib : {"lib", "lib64"})
      if (const fs::path dir = real->parent_path().parent_path() / lib; fs::is_directory(dir, ec)) {
        auto found = locate(dir, "the program's library directory");
        if (!found) return std::unexpected(found.error());
        show(*found, true, "the program's library directory");
      }
  program = fs::absolute(program, ec).lexically_normal().string();
  // Arguments that name files: their directories, read-only; the arguments made absolute.
  for (std::size_t i = 1; i < argv.size(); ++i) {
    // Relative to its working directory when it has one (never to the referee's).
    const fs::path arg = workdir.empty() || fs::path(argv[i]).is_absolute()
                             ? fs::path(argv[i])
                             : fs::path(sight.workdir) / argv[i];
    if (argv[i].empty() || !fs::exists(arg, ec)) continue;
    auto abs = locate(arg, "the argument");
    if (!abs) return std::unexpected(abs.error());
    show(fs::is_directory(*abs) ? *abs : abs->parent_path(), true,
         fmt::format("shown for its argument {}", argv[i]));
    argv[i] = abs->string();
  }
  // The root, or a directory everyone shares, made the program's own would be no wall at all:
  // every file of the referee's there (other runs' stores and tokens in /tmp, a home's keys).
  std::set<fs::path> shared{"/", "/tmp", "/var/tmp", "/home", "/root", "/dev/shm"};
  if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/')
    shared.insert(fs::weakly_canonical(home, ec));
  for (const auto& p : shown)
    if (sight.own.contains(p.string()) && shared.contains(p))
      return fail(fmt::format("sandbox: the program or an argument is a file in {} (or {} "
                              "itself), which would show the program everything there as its "
                              "own: keep its files in a directory of their own",
                              p.string(), p.string()));
  // Nothing shown besides the system may hold a file the referee keeps from programs: a bot in
  // the directory of the store would read every match in it (with paired seeds, the deal of
  // the match it is playing), one beside the game log its own match as it is written.
  // The system's directories too: every program sees them, and the referee's files there are
  // as readable as any file of the system.
  for (const auto& secret : spec.private_paths) {
    if (secret.path.empty()) continue;
    const fs::path real = private_target(secret.path);
    if (real.empty()) continue;
    // The same directory reached by another path (a bind mount of it elsewhere) counts too.
    const std::set<std::pair<dev_t, ino_t>> holders = ancestor_ids(real);
    for (const auto& p : shown) {
      struct stat st {};
      const bool same_dir = ::stat(p.c_str(), &st) == 0 && holders.contains({st.st_dev, st.st_ino});
      if (!under(real, p) && !same_dir) continue;
      if (system.contains(p.string()))
        return fail(fmt::format(
            "sandbox: every program would see {} ({}): it is in {}, which every program is "
            "shown (the system: /usr, /etc, /opt, /bin, /lib*). No program may read it: keep "
            "{} elsewhere",
            secret.what, real.string(), p.string(), secret.what));
      return fail(
          fmt::format("sandbox: the program would see {} ({}): it is in {}, {}. No "
                      "program may read it: put the program in a folder of its own, "
                      "or keep {} elsewhere",
                      secret.what, real.string(), p.string(), sight.why[p.string()], secret.what));
    }
  }
  // A path shown after one below it (an argument in the parent of the working directory) is
  // mounted first, so that it does not cover the deeper one: the working directory stays shown
  // as it is inside a parent made the program's own.
  std::stable_sort(shown.begin(), shown.end(), [](const fs::path& a, const fs::path& b) {
    return std::distance(a.begin(), a.end()) < std::distance(b.begin(), b.end());
  });
  return sight;
}

}  // namespace

Expected<void> SandboxPlan::check(const SandboxSpec& spec, std::string program,
                                  std::vector<std::string> argv,
                                  const std::filesystem::path& workdir) {
  auto sight = look(spec, program, argv, workdir);
  if (!sight) return std::unexpected(sight.error());
  return {};
}

Expected<SandboxPlan> SandboxPlan::prepare(const SandboxSpec& spec, std::string& program,
                                           std::vector<std::string>& argv,
                                           const std::filesystem::path& workdir) {
  auto sight = look(spec, program, argv, workdir);
  if (!sight) return std::unexpected(sight.error());
  SandboxPlan plan;
  plan.workdir_ = sight->workdir;
  plan.symlinks_ = std::move(sight->symlinks);
  const std::vector<fs::path>& shown = sight->shown;
  const std::set<std::string>& own = sight->own;
  std::set<std::string> seen;
  std::error_code ec;
  // Staged in this order: the root's own directories, the scratch mount, then the shown paths
  // (a shown path under /tmp lands inside the scratch directory, read-only).
  plan.dirs_ = {std::string(kStaging) + "/proc", std::string(kStaging) + "/dev",
                std::string(kStaging) + "/tmp", std::string(kStaging) + "/.old"};
  for (const auto& d : plan.dirs_) seen.insert(d.substr(std::strlen(kStaging)));
  for (const char* dev : {"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"})
    plan.binds_.push_back({dev, std::string(kStaging) + dev, true});
  for (const auto& p : shown) {
    add_parents(p, plan.dirs_, seen);
    const bool is_file = !fs::is_directory(p, ec);
    if (!is_file && seen.insert(p.string()).second)
      plan.dirs_.push_back(std::string(kStaging) + p.string());
    plan.binds_.push_back(
        {p.string(), std::string(kStaging) + p.string(), is_file, own.contains(p.string())});
  }
  plan.symlinks_.push_back({"/proc/self/fd", std::string(kStaging) + "/dev/fd"});
  plan.network_ = spec.network;
  // A fresh uid per program: no two players share one, none is root.
  plan.uid_ = 100000 + (g_next_uid.fetch_add(1) % 100000);
  // Its own files are shown as owned by it, so that it can read them wherever they are (in a
  // private directory of the organizer, say); still read-only, and never the system's files.
  if (!own.empty()) {
    const int ns = make_owner_map(plan.uid_);
    if (ns < 0)
      return fail(fmt::format("sandbox: a user namespace for its own files: {}", std::strerror(errno)));
    plan.owner_map_ = std::shared_ptr<int>(new int(ns), [](int* fd) {
      ::close(*fd);
      delete fd;
    });
  }
  plan.scratch_options_ =
      fmt::format("size={},mode=0700,uid={},gid={}", spec.scratch_bytes, plan.uid_, plan.uid_);
  plan.env_text_ = {std::string("PATH=") + kSandboxPath, "HOME=/tmp", "LANG=C.UTF-8"};
  for (const auto& e : spec.environment) {
    if (e.find('=') != std::string::npos) {
      plan.env_text_.push_back(e);
    } else if (const char* value = std::getenv(e.c_str()); value != nullptr) {
      plan.env_text_.push_back(e + "=" + value);
    }
  }
  for (auto& e : plan.env_text_) plan.env_.push_back(e.data());
  plan.env_.push_back(nullptr);
  plan.fds_.assign(plan.binds_.size(), -1);
  static const Expected<std::vector<unsigned char>> filter = build_filter();
  if (!filter) return std::unexpected(filter.error());
  plan.filter_ = *filter;
  return plan;
}

int SandboxPlan::clone_flags() const {
  return CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | (network_ ? 0 : CLONE_NEWNET);
}

int SandboxPlan::apply() const noexcept {
  // Its cgroups (joined by now) become its roots: /proc/self/cgroup shows "/", not the host's
  // path with the referee's pid in it.
  if (::unshare(CLONE_NEWCGROUP) < 0) return kCgroupNamespace;
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) < 0) return kPrivate;
  // Every source is opened (as a detached copy of its mounts) before the staging tmpfs covers
  // anything, so that a source under the staging path is still reachable.
  for (std::size_t i = 0; i < binds_.size(); ++i) {
    // The program's own paths without what is mounted below them: an idmapping is per mount.
    const bool recursive = !binds_[i].is_file && !binds_[i].own;
    const int flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (recursive ? AT_RECURSIVE : 0);
    fds_[i] = static_cast<int>(::syscall(SYS_open_tree, AT_FDCWD, binds_[i].source.c_str(), flags));
    if (fds_[i] < 0) return kOpen;
    mount_attr attr{};
    attr.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
                    (binds_[i].source.starts_with("/dev/") ? 0 : MOUNT_ATTR_NODEV);
    if (binds_[i].own) {
      attr.attr_set |= MOUNT_ATTR_IDMAP;
      attr.userns_fd = static_cast<std::uint64_t>(*owner_map_);
    }
    if (::syscall(SYS_mount_setattr, fds_[i], "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0),
                  &attr, sizeof attr) < 0)
      return kReadOnly;
  }
  if (::mount("tmpfs", kStaging, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") < 0)
    return kRoot;
  for (std::size_t i = 0; i < dirs_.size(); ++i) {
    if (::mkdir(dirs_[i].c_str(), 0755) < 0 && errno != EEXIST) return kMkdir;
    if (i == 2 && ::mount("tmpfs", dirs_[i].c_str(), "tmpfs", MS_NOSUID | MS_NODEV,
                          scratch_options_.c_str()) < 0)
      return kScratch;
  }
  for (std::size_t i = 0; i < binds_.size(); ++i) {
    if (binds_[i].is_file) {
      const int f = ::open(binds_[i].target.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
      if (f < 0) return kPlace;
      ::close(f);
    }
    if (::syscall(SYS_move_mount, fds_[i], "", AT_FDCWD, binds_[i].target.c_str(),
                  MOVE_MOUNT_F_EMPTY_PATH) < 0)
      return kPlace;
    ::close(fds_[i]);
  }
  for (const auto& [target, link] : symlinks_)
    if (::symlink(target.c_str(), link.c_str()) < 0) return kLink;
  const std::string& old_root = dirs_[3];
  if (::syscall(SYS_pivot_root, kStaging, old_root.c_str()) < 0) return kPivot;
  if (::chdir("/") < 0) return kPivot;
  if (::umount2("/.old", MNT_DETACH) < 0 || ::rmdir("/.old") < 0) return kOldRoot;
  if (::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) < 0) return kProc;
  if (::mount(nullptr, "/", nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
              nullptr) < 0)
    return kRootReadOnly;
  if (!network_) {
    const int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ifreq ifr{};
    std::memcpy(ifr.ifr_name, "lo", 3);
    if (s < 0 || ::ioctl(s, SIOCGIFFLAGS, &ifr) < 0) return kLoopback;
    ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP);
    if (::ioctl(s, SIOCSIFFLAGS, &ifr) < 0) return kLoopback;
    ::close(s);
  }
  // The raw system calls: glibc's wrappers broadcast the change to every thread the referee
  // had when it cloned us, and wait for threads that do not exist here (a deadlock).
  if (::syscall(SYS_setgroups, 0, nullptr) < 0 || ::syscall(SYS_setresgid, uid_, uid_, uid_) < 0 ||
      ::syscall(SYS_setresuid, uid_, uid_, uid_) < 0)
    return kUser;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return kNoNewPrivs;
  // Changing credentials cleared it.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) return kDeathSignal;
  if (::chdir(workdir_.c_str()) < 0) return kChdir;
  // The last wall: from here on the calls above are refused to the program as well.
  sock_fprog prog{static_cast<unsigned short>(filter_.size() / sizeof(sock_filter)),
                  reinterpret_cast<sock_filter*>(const_cast<unsigned char*>(filter_.data()))};
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) return kFilter;
  return 0;
}

SandboxSupport check_sandbox() {
  SandboxSupport support;
  SandboxSpec spec;
  std::vector<std::string> argv{"/bin/true"};
  std::string program = argv[0];
  auto plan = SandboxPlan::prepare(spec, program, argv);
  if (!plan) {
    support.lines.push_back("no   a sandbox plan: " + plan.error().message);
    return support;
  }
  // One walled child that only checks where it is: the walls go up as for a player.
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) < 0) {
    support.lines.push_back(fmt::format("no   a pipe: {}", std::strerror(errno)));
    return support;
  }
  const auto flags = CLONE_NEWPID | plan->clone_flags() | SIGCHLD;
  const pid_t pid = static_cast<pid_t>(::syscall(SYS_clone, flags, 0, 0, 0, 0));
  if (pid == 0) {
    ::close(pipefd[0]);
    int result[3] = {plan->apply(), errno, static_cast<int>(::getuid())};
    [[maybe_unused]] ssize_t n = ::write(pipefd[1], result, sizeof result);
    ::_exit(0);
  }
  ::close(pipefd[1]);
  if (pid < 0) {
    support.lines.push_back(fmt::format(
        "no   namespaces (mount, PID, network, IPC, UTS): {} (run as root)", std::strerror(errno)));
    ::close(pipefd[0]);
    return support;
  }
  int result[3] = {-1, 0, 0};
  const ssize_t n = ::read(pipefd[0], result, sizeof result);
  ::close(pipefd[0]);
  ::waitpid(pid, nullptr, 0);
  support.lines.push_back("yes  namespaces: mount, PID, network, IPC, UTS, cgroup");
  if (n != sizeof result || result[0] != 0) {
    support.lines.push_back(
        fmt::format("no   {}: {}", SandboxPlan::step_name(result[0]),
                    n == sizeof result ? std::strerror(result[1]) : "no answer"));
    return support;
  }
  support.lines.push_back("yes  a root of its own: the system read-only, /tmp a capped tmpfs");
  support.lines.push_back("yes  its own /proc; only loopback for a network");
  support.lines.push_back(
      fmt::format("yes  an unprivileged uid ({} here), no capabilities, "
                  "no_new_privs",
                  result[2]));
  support.lines.push_back(
      fmt::format("yes  a seccomp filter refusing {} system calls", std::size(kRefused) + 4));
  support.ok = true;
  return support;
}

}  // namespace arbiter
