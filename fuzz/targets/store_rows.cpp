// What a tournament store hands back, which is not taken on trust (tournament/log_codec.h, the
// spec's JSON form, and the job and result rows that standings and Swiss rounds read). The first
// byte chooses the row:
//   0  a stored game log: unpack_log; and pack_log/unpack_log round-trip the bytes
//   1  stored stderr tails: decode_stderr_tails, as stored and packed
//   2  a stored spec (JSON): decode_spec's round trip, and the program terms' (decode_terms)
//   3  result rows (JSON: [{"round", "spec", "result"}, ...]) for a fixed four-entrant
//      tournament: standings, their renderings, the matches CSV and the next Swiss round
#include <set>

#include "fuzz_support.h"
#include "remote/program_terms.h"
#include "tournament/log_codec.h"
#include "tournament/schedule.h"
#include "tournament/spec.h"
#include "tournament/standings.h"

using namespace arbiter;
using namespace arbiter::tournament;

namespace {

void stored_log(const std::string& bytes) {
  auto unpacked = unpack_log(bytes);
  if (!unpacked) fuzz::check_error(unpacked.error(), "unpack_log");
  else if (!bytes.starts_with("ZLB1"))
    FUZZ_CHECK(*unpacked == bytes, "a value without the tag is not returned as it is");
  auto round = unpack_log(pack_log(bytes));
  FUZZ_CHECK(round && *round == bytes, "pack_log/unpack_log do not round-trip");
}

void stored_tails(const std::string& bytes) {
  for (const std::string& stored : {bytes, pack_log(bytes)}) {
    auto tails = decode_stderr_tails(stored);
    if (!tails) {
      fuzz::check_error(tails.error(), "decode_stderr_tails");
      continue;
    }
    FUZZ_CHECK(tails->is_array(), "stderr tails that are not a list");
    for (const Json& t : *tails)
      FUZZ_CHECK(t.is_object() && t.size() == 3 && t.contains("seat") && t["seat"].is_string() &&
                     t.contains("bytes") && t["bytes"].is_number_unsigned() &&
                     t.contains("tail") && t["tail"].is_string(),
                 "a stderr tail of the wrong shape: " + dump(t));
  }
}

void stored_spec(const Json& j) {
  fuzz::round_trip(j, decode_spec, encode_spec, "spec");
  fuzz::round_trip(j, decode_terms, encode_terms, "program terms");
}

void result_rows(const Json& rows) {
  if (!rows.is_array()) return;
  TournamentSpec spec;
  spec.game = "q";
  spec.schedule = Schedule::swiss;
  for (const char* name : {"ann", "bob", "cy", "dee"}) spec.players.push_back({name, "dag", {}});
  std::vector<StoredResult> results;
  std::int64_t last_round = 0;
  for (const Json& r : rows) {
    StoredResult row;
    row.index = static_cast<std::int64_t>(results.size());
    row.round = int_or(r, "round", 0);
    row.spec = field_or_null(r, "spec");
    row.result = field_or_null(r, "result");
    last_round = std::max(last_round, std::min<std::int64_t>(row.round, 50));
    results.push_back(std::move(row));
  }
  const StandingsTable table = compute_standings(spec, results);
  FUZZ_CHECK(table.matches + table.errors + table.damaged ==
                 static_cast<std::int64_t>(results.size()),
             "standings count other results than were given");
  for (const auto& row : table.rows)
    FUZZ_CHECK(row.points >= 0 && row.points <= static_cast<double>(row.matches),
               "an entrant with more points than matches");
  (void)standings_text(table);
  (void)standings_csv(table);
  (void)dump(standings_json(table));
  (void)matches_csv(spec, results);
  const auto jobs = swiss_round(spec, last_round + 1, results);
  std::set<std::size_t> seen;
  for (const JobSpec& job : jobs) {
    const auto seats = seated(job.spec);
    FUZZ_CHECK(seats.size() == 2 && seats[0] != seats[1] && seats[0] < 4 && seats[1] < 4,
               "a Swiss pairing that is not two different entrants: " + dump(job.spec));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0: stored_log(bytes); break;
    case 1: stored_tails(bytes); break;
    case 2:
      if (auto j = fuzz::json_of(data + 1, size - 1)) stored_spec(*j);
      break;
    case 3:
      if (auto j = fuzz::json_of(data + 1, size - 1)) result_rows(*j);
      break;
  }
  return 0;
}
