// `bot check`: a protocol self-test of a bot, the one an author runs before submitting and the
// gate every stored version passes before it becomes active. It plays real matches against the
// game's house bots behind the walls, on every seat count the game allows and every seat the
// bot can hold, and reports each check by name, with the wire transcript of the first failure:
//   starts        it starts and answers setup in time
//   answers       it answers every message the game sends (no timeout, no garbage, no hang-up)
//   legal         it makes only legal moves
//   limits        it stays within the default caps (memory, processes, output, CPU)
//   exits         it exits by itself once its match is over (stdin closed)
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "league/bots.h"
#include "league/manifest.h"
#include "remote/program_terms.h"

namespace arbiter::league {

struct CheckOptions {
  int matches = 10;    // at least one per seating (seat count and position)
  ProgramTerms terms;  // the organizer's defaults, lowered by the manifest
  std::chrono::milliseconds per_call{6000};
  // The whole check: no match starts after it (a bot that answers just within the per-call
  // limit would otherwise keep the gate for many minutes); past it, "answers" fails.
  std::chrono::milliseconds time{300'000};
  std::function<void(const std::string&)> say;  // a line per match for people; none: quiet
};

struct CheckLine {
  std::string name;  // "starts", "answers", "legal", "limits", "exits"
  bool ok = true;
  bool reached = true;  // false: not tried (the bot did not start)
  std::string detail;   // the first failure: which match, seat, call and why
};

struct CheckReport {
  std::vector<CheckLine> checks;
  std::string transcript;  // the wire exchange up to the first failure (printable lines)
  int matches = 0;
  bool ok() const;
  std::string first_failure() const;  // "legal: ..." or empty
  // As people read it: a line per check, then the first failure's transcript, then the verdict.
  std::string text() const;
};

// Plays the checks for the bot whose runnable files are in `dir`, run by `manifest.run`.
CheckReport check_bot(const Manifest& manifest, const std::filesystem::path& dir,
                      const CheckOptions& options);

// The gate of bot add and of the submission server: check_bot of the version's manifest on its
// files with `options`; `report`, when given, is told the report however the check ends. A
// failed check's Error is its first failure.
Gate check_gate(CheckOptions options, std::function<void(const CheckReport&)> report = {});

}  // namespace arbiter::league
