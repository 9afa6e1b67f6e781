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

namespace {

// Checks a log's text given in pieces, keeping only the line being read, its checksum state,
// the header and the last result line.
class LogCheck {
 public:
  LogCheck(const Json& job_spec, const Json& result) : job_spec_(job_spec), result_(result) {
    damage_ = result_damage(job_spec, result);
    played_ = !result.contains("error");
  }

  void feed(std::string_view piece) {
    sha_.update(piece);
    bytes_ += piece.size();
    while (!piece.empty()) {
      const auto end = piece.find('\n');
      if (end == std::string_view::npos) {
        line_.append(piece);
        return;
      }
      line_.append(piece.substr(0, end));
      piece.remove_prefix(end + 1);
      take_line();
    }
  }

  // What is wrong with the log as fed, against the stored checksum; empty when nothing is.
  std::string finish(const std::optional<std::string>& checksum) {
    if (!line_.empty()) take_line();
    if (checksum && *checksum != sha_.hex()) return "its log's SHA-256 is not the one stored with it";
    if (!damage_.empty()) return damage_;
    if (!played_) return bytes_ > 0 ? "a match that could not be played has a log" : "";
    if (!line_damage_.empty()) return line_damage_;
    if (header_.is_null()) return "its log is empty";
    if (field_or_null(header_, "seed") != job_spec_["seed"])
      return fmt::format("its log is of seed {}, the match's seed is {}",
                         excerpt(field_or_null(header_, "seed")), excerpt(job_spec_["seed"]));
    const Json names = field_or_null(header_, "seats");
    if (!names.is_array() || names.size() != job_spec_["seats"].size())
      return fmt::format("its log seats {} players, the match {}",
                         names.is_array() ? names.size() : 0, job_spec_["seats"].size());
    if (!last_result_) return "its log has no result line";
    if (outcome(*last_result_) != outcome(result_))
      return fmt::format("its log's result {} is not the stored result {}",
                         excerpt(outcome(*last_result_), 120), excerpt(outcome(result_), 120));
    return "";
  }

 private:
  void take_line() {
    ++number_;
    std::string line = std::move(line_);
    line_.clear();
    if (!played_ || !damage_.empty() || !line_damage_.empty()) return;
    if (line.find_first_not_of(" \t\r") == std::string::npos) return;
    auto parsed = parse_json(line);
    if (!parsed || !parsed->is_object()) {
      line_damage_ = fmt::format("its log's line {} is not a JSON object", number_);
      return;
    }
    if (header_.is_null()) {
      if (string_or(*parsed, "type") != "match")
        line_damage_ = "its log does not start with a match header";
      else
        header_ = std::move(*parsed);
      return;
    }
    if (string_or(*parsed, "type") == "result") last_result_ = std::move(*parsed);
  }

  const Json& job_spec_;
  const Json& result_;
  std::string damage_;       // of the result itself
  std::string line_damage_;  // the first line that is wrong
  bool played_ = true;
  Sha256 sha_;
  std::uint64_t bytes_ = 0;
  std::size_t number_ = 0;
  std::string line_;
  Json header_;
  std::optional<Json> last_result_;
};

}  // namespace

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
  LogCheck check(job_spec, result);
  check.feed(out.text);
  out.damage = check.finish(checksum);
  return out;
}

std::string packed_log_damage(const Json& job_spec, const Json& result, const std::string& stored,
                              const std::optional<std::string>& checksum) {
  LogCheck check(job_spec, result);
  auto inflated = inflate_log(stored, [&](std::string_view piece) {
    check.feed(piece);
    return true;
  });
  if (!inflated) return "its log: " + inflated.error().message;
  return check.finish(checksum);
}

}  // namespace arbiter::tournament
