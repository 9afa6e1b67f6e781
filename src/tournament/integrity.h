// What a stored result and its game log must be to be believed. The store checks every row it
// reads against these (store.h: StoredResult::damage, StoredLog::damage), so a row edited by
// hand, a log whose bytes rotted and a log moved to another match are reported as damaged and
// never read as an ordinary outcome. `arbiter tournament verify` goes further: it replays each
// log (tournament/audit.h).
//
// A job spec is {"seats": [entrant per seat], "seed": natural} (schedule.h). A result is either
// {"error": string} (the match could not be played; its log is empty) or referee/match.h's
// encode_result without "type", plus the worker's extras ("details", "stderr_bytes", ...):
//   winners     distinct seats in range
//   ejections   [{"seat", "why", ...}], distinct seats in range, "why" a string
//   scores      one integer per seat
//   aborted     optional; an aborted match has no winners
// Its log is JSON lines whose first line is the "match" header of the job (same seed, as many
// seats) and whose last "result" line says what the stored result says.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/json.h"
#include "tournament/store.h"

namespace arbiter::tournament {

// Why `result` cannot be the result of the job `job_spec`; empty when it can.
std::string result_damage(const Json& job_spec, const Json& result);

// The checksum stored with a log: SHA-256 of the log's text (before compression), in hex.
std::string log_checksum(std::string_view log);

// Checks a log as stored (log_codec.h's packing) against its job, its stored result and the
// checksum stored with it (nothing: a row from before checksums, reported as unverified).
StoredLog check_stored_log(const Json& job_spec, const Json& result, const std::string& stored,
                           const std::optional<std::string>& checksum);

// What check_stored_log would find wrong (empty: nothing), reading the log in pieces without
// holding its text: for serving large logs.
std::string packed_log_damage(const Json& job_spec, const Json& result, const std::string& stored,
                              const std::optional<std::string>& checksum);

}  // namespace arbiter::tournament
