// The sandboxed build of a stored bot: its `build` command run once, behind the same walls as a
// match (its own uid, no network, the system read-only, caps on time, memory, processes and
// output), in a scratch copy of its files on a size-capped tmpfs. What the build leaves there
// comes back as a tar stream and is read as an upload is (league/archive.h: every check, every
// cap), so a build is trusted no more than the files it started from.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

#include "league/archive.h"
#include "league/manifest.h"
#include "remote/program_terms.h"

namespace arbiter::league {

struct BuildCaps {
  std::chrono::milliseconds time{300'000};        // wall time, the whole build
  std::uint64_t memory = std::uint64_t{2} << 30;  // all its processes together
  std::uint64_t processes = 256;
  std::uint64_t log_bytes = std::uint64_t{1} << 20;      // its output kept as the build log
  std::uint64_t output_bytes = std::uint64_t{16} << 20;  // its output before it is stopped
  std::uint64_t scratch_bytes = std::uint64_t{1} << 30;  // the tmpfs it builds in
  ArchiveCaps tree;                                      // what it leaves behind
  bool sandbox = true;                                   // false only for --unsafe-no-sandbox
};

struct BuildOutcome {
  bool ok = false;
  std::string reason;  // one line when it failed: "timed out after 300 s", "exit 2: ...", ...
  std::string log;     // what it printed (the first log_bytes), with a closing line of ours
  Tree built;          // the tree it left, when ok
};

// Builds `source` by `manifest.build` (REQUIRES: not empty). `scratch` is a private directory
// of ours where the source is unpacked for the walls to show (removed before returning). Never
// throws; a failure of ours (cannot start the sandbox) is a failed build with the reason.
BuildOutcome build_bot(const Tree& source, const Manifest& manifest, const BuildCaps& caps,
                       const std::filesystem::path& scratch);

}  // namespace arbiter::league
