// The walls around a program player (docs/security.md): the child runs in its own mount,
// network, IPC, UTS and cgroup namespaces (and the PID namespace ChildProcess gives it), under a
// root of its own that shows the system read-only (/usr, /etc and the links /bin, /lib, ...), its
// own program and files read-only, a fresh /proc of its PID namespace, four device nodes, and a
// size-capped tmpfs at /tmp that is its home and working directory (or a directory it is given,
// read-only: prepare()); it runs as an unprivileged
// uid/gid of its own with no capabilities and no_new_privs (its own files, shown through an
// idmapped mount, are owned by that uid, so it reads them whatever their mode), with only loopback
// for a network (unless allowed), a clean environment, and a seccomp filter (libseccomp) that
// refuses with EPERM the system calls no game player needs: new namespaces, mounts, ptrace, bpf,
// perf_event_open, keyrings, kernel modules and kexec, raw and packet sockets, and the like.
//
// Built with direct system calls (the new mount API: open_tree, move_mount, mount_setattr;
// pivot_root) rather than a launcher such as bubblewrap: nothing extra to install or exec, and
// the walls are set in the same fork that runs the program.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/json.h"

namespace arbiter {

// A file (or directory) of the referee's that no program may see, and what it is for messages
// ("the game log", "the stderr directory").
struct PrivateFile {
  std::filesystem::path path;
  std::string what;
  friend bool operator==(const PrivateFile&, const PrivateFile&) = default;
};

// The PATH a program behind the walls gets, and where its bare program name (python3) is looked
// up: the system's, never the referee's (whose version-manager shims cannot run there).
inline constexpr const char* kSandboxPath = "/usr/local/bin:/usr/bin:/bin";

struct SandboxSpec {
  // Extra paths visible read-only at the same place (the program and the files its arguments
  // name are added by prepare()).
  std::vector<std::filesystem::path> read_only;
  std::uint64_t scratch_bytes = std::uint64_t{64} << 20;  // the size of its /tmp
  bool network = false;                  // true: the host's network; false: loopback only
  // Passed on besides PATH, HOME and LANG: "NAME=VALUE", or "NAME" for the referee's own value
  // of NAME when the program starts (nothing if it has none).
  std::vector<std::string> environment;
  // Files of the referee's that no program may see (the result store, the game log being
  // written, token files, where stderr is kept): prepare() refuses to show a directory that
  // holds one. Set where the program is started, never stored.
  std::vector<PrivateFile> private_paths;
  friend bool operator==(const SandboxSpec&, const SandboxSpec&) = default;
};

// Everything the child needs to put up the walls, computed before fork so that the child only
// makes system calls (no allocation) between fork and exec.
class SandboxPlan {
 public:
  // The plan for running `argv` (argv[0] resolved to `program`). The program and arguments that
  // name existing files are made absolute (the program's working directory is its scratch
  // directory) and their directories shown read-only. Fails with a one-line Error (a read_only
  // path missing).
  // `workdir` (if not empty) is shown read-only too, and the program starts in it instead.
  static Expected<SandboxPlan> prepare(const SandboxSpec& spec, std::string& program,
                                       std::vector<std::string>& argv,
                                       const std::filesystem::path& workdir = {});

  // What prepare() would refuse, found without preparing anything: a read_only path missing,
  // or a shown directory holding one of spec.private_paths. For refusing a program before a
  // run rather than when its match starts.
  static Expected<void> check(const SandboxSpec& spec, std::string program,
                              std::vector<std::string> argv,
                              const std::filesystem::path& workdir = {});

  // The extra clone() flags for the child.
  int clone_flags() const;

  // Puts up the walls in the child. Async-signal-safe: system calls only. Returns 0, or the
  // number of the step that failed with errno set (step_name() says which).
  int apply() const noexcept;
  static const char* step_name(int step);

  // The environment for execve, null-terminated.
  char* const* environment() const { return env_.data(); }

  uid_t uid() const { return uid_; }

 private:
  struct Bind {
    std::string source;  // absolute, on the host
    std::string target;  // the same path under the staging root
    bool is_file = false;
    bool own = false;  // the program's own: idmapped so that the referee's files are its own
  };
  std::vector<Bind> binds_;
  std::vector<std::string> dirs_;                              // to create under staging, in order
  std::vector<std::pair<std::string, std::string>> symlinks_;  // {link target, staged path}
  std::string scratch_options_;
  std::string workdir_ = "/tmp";  // where the program starts
  bool network_ = false;
  uid_t uid_ = 0;
  std::shared_ptr<int> owner_map_;  // a user namespace mapping its root to uid_, for own binds
  std::vector<std::string> env_text_;
  std::vector<char*> env_;
  std::vector<unsigned char> filter_;  // the seccomp program (struct sock_filter[]), last wall
  mutable std::vector<int>
      fds_;  // apply()'s, one per bind; sized here so the child allocates nothing
};

// Which walls this machine can put up, for `arbiter sandbox check` and for a clear refusal.
struct SandboxSupport {
  bool ok = false;
  std::vector<std::string> lines;  // one per wall: "yes  ..." or "no   ... (why)"
};
SandboxSupport check_sandbox();

}  // namespace arbiter
