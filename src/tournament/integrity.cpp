// The checks of integrity.h. Each returns the first thing wrong, as a phrase that follows
// "damaged match N: ".
#include "tournament/integrity.h"

#include <set>

#include <fmt/format.h>

#include "core/sha256.h"
#include "tournament/log_codec.h"

namespace arbiter::tournament {
namespace {

// The number of seats of a job, or nothing if its spec is not a job spec.
std::optional<std::size_t> seat_count(const Json& job_spec) {
  const Json seats = field_or_null(job_spec, "seats");
  if (!seats.is_array() || seats.empty() || !field_or_null(job_spec, "seed").is_number_unsigned())
    return std::nullopt;
  std::set<std::uint64_t> entrants;
  for (const Json& e : seats)
    if (!e.is_number_unsigned() || !entrants.insert(e.get<std::uint64_t>()).second)
      return std::nullopt;
  return seats.size();
}

bool is_seat(const Json& j, std::size_t seats) {
  return j.is_number_unsigned() && j.get<std::uint64_t>() < seats;
}

// What a result says about the match, the fields its log's "result" line must repeat.
Json outcome(const Json& result) {
  return Json{{"winners", field_or_null(result, "winners")},
              {"ejections", field_or_null(result, "ejections")},
              {"scores", field_or_null(result, "scores")},
              {"aborted", field_or_null(result, "aborted").is_boolean() && result["aborted"]}};
}

}  // namespace

std::string result_damage(const Json& job_spec, const Json& result) {
  const auto seats = seat_count(job_spec);
  if (!seats) return "its job spec is not {\"seats\": [distinct entrants], \"seed\": natural}";
  if (!result.is_object()) return "its result is not a JSON object";
  if (result.contains("error"))
    return result["error"].is_string() ? "" : "its error is not a string";
  const Json winners = field_or_null(result, "winners");
  if (!winners.is_array()) return "its result has no list of winners";
  std::set<std::uint64_t> seen;
  for (const Json& w : winners) {
    if (!is_seat(w, *seats))
      return fmt::format("winner {} is not one of its {} seats", excerpt(w), *seats);
    if (!seen.insert(w.get<std::uint64_t>()).second)
      return fmt::format("seat {} is named twice among the winners", excerpt(w));
  }
  const Json ejections = field_or_null(result, "ejections");
  if (!ejections.is_array()) return "its result has no list of ejections";
  seen.clear();
  for (const Json& e : ejections) {
    const Json seat = field_or_null(e, "seat");
    if (!is_seat(seat, *seats))
      return fmt::format("an ejection's seat {} is not one of its {} seats", excerpt(seat), *seats);
    if (!seen.insert(seat.get<std::uint64_t>()).second)
      return fmt::format("seat {} is ejected twice", excerpt(seat));
    if (!field_or_null(e, "why").is_string()) return "an ejection has no reason (why)";
  }
  const Json scores = field_or_null(result, "scores");
  if (!scores.is_array() || scores.size() != *seats)
    return fmt::format("its result has {} scores for {} seats",
                       scores.is_array() ? scores.size() : 0, *seats);
  for (const Json& s : scores)
    if (!s.is_number_integer()) return fmt::format("score {} is not an integer", excerpt(s));
  if (result.contains("aborted")) {
    if (!result["aborted"].is_boolean()) return "its \"aborted\" is not true or false";
    if (result["aborted"].get<bool>() && !winners.empty()) return "an aborted match has winners";
  }
  return "";
}

std::string log_checksum(std::string_view log) {
  return sha256_hex(log);
}

StoredLog check_stored_log(const Json& job_spec, const Json& result, const std::string& stored,
                           const std::optional<std::string>& checksum) {
  StoredLog out;
  out.checksummed = checksum.has_value();
  auto text = unpack_log(stored);
  if (!text) {
    out.damage = "its log: " + text.error().message;
    return out;
  }
  out.text = std::move(*text);
  if (checksum && *checksum != log_checksum(out.text)) {
    out.damage = "its log's SHA-256 is not the one stored with it";
    return out;
  }
  if (auto why = result_damage(job_spec, result); !why.empty()) {
    out.damage = why;
    return out;
  }
  if (result.contains("error")) {
    if (!out.text.empty()) out.damage = "a match that could not be played has a log";
    return out;
  }
  Json header;
  std::optional<Json> last_result;
  std::size_t start = 0;
  for (std::size_t number = 1; start < out.text.size(); ++number) {
    auto end = out.text.find('\n', start);
    if (end == std::string::npos) end = out.text.size();
    const std::string_view line(out.text.data() + start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto parsed = parse_json(line);
    if (!parsed || !parsed->is_object()) {
      out.damage = fmt::format("its log's line {} is not a JSON object", number);
      return out;
    }
    if (header.is_null()) {
      if (string_or(*parsed, "type") != "match") {
        out.damage = "its log does not start with a match header";
        return out;
      }
      header = std::move(*parsed);
      continue;
    }
    if (string_or(*parsed, "type") == "result") last_result = std::move(*parsed);
  }
  if (header.is_null()) {
    out.damage = "its log is empty";
    return out;
  }
  if (field_or_null(header, "seed") != job_spec["seed"]) {
    out.damage = fmt::format("its log is of seed {}, the match's seed is {}",
                             excerpt(field_or_null(header, "seed")), excerpt(job_spec["seed"]));
    return out;
  }
  const Json names = field_or_null(header, "seats");
  if (!names.is_array() || names.size() != job_spec["seats"].size()) {
    out.damage = fmt::format("its log seats {} players, the match {}",
                             names.is_array() ? names.size() : 0, job_spec["seats"].size());
    return out;
  }
  if (!last_result) {
    out.damage = "its log has no result line";
    return out;
  }
  if (outcome(*last_result) != outcome(result))
    out.damage = fmt::format("its log's result {} is not the stored result {}",
                             excerpt(outcome(*last_result), 120), excerpt(outcome(result), 120));
  return out;
}

}  // namespace arbiter::tournament
