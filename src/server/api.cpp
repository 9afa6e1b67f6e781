#include "server/api.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "arena/bot_shelf.h"
#include "arena/spectator.h"
#include "tournament/integrity.h"
#include "tournament/ratings.h"
#include "tournament/schedule.h"
#include "tournament/standings.h"

namespace arbiter::server {

using tournament::PackedLog;
using tournament::StoredResult;

ApiReply api_error(int status, std::string message) {
  return {status, Json{{"error", std::move(message)}}};
}

ApiReply store_failed(const Error& e) { return api_error(503, "the store failed: " + e.message); }

Expected<std::string> text_field(const Json& body, const char* key, std::string fallback) {
  if (!body.contains(key)) return fallback;
  if (!body[key].is_string()) return fail(fmt::format("\"{}\" must be a string", key));
  return body[key].get<std::string>();
}

Expected<std::int64_t> number_field(const Json& body, const char* key, std::int64_t fallback,
                                    std::int64_t lo, std::int64_t hi) {
  if (!body.contains(key)) return fallback;
  const Json& v = body[key];
  if (!v.is_number_integer() || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi)
    return fail(fmt::format("\"{}\" is a whole number from {} to {}", key, lo, hi));
  return v.get<std::int64_t>();
}

bool console_name(const std::string& name) {
  return !name.empty() && name.size() <= 40 &&
         name.find_first_not_of(
             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
             std::string::npos;
}

namespace {

Json progress_json(const tournament::Progress& p) {
  return {{"planned", p.planned},
          {"enqueued", p.enqueued},
          {"done", p.done},
          {"leased", p.leased},
          {"duplicates", p.duplicates}};
}

// The rounds at which the rating chart samples the ratings: every round up to kChartPoints,
// else kChartPoints of them spread evenly, the last always included.
constexpr std::size_t kChartPoints = 40;

std::vector<std::int64_t> chart_rounds(const std::set<std::int64_t>& rounds) {
  std::vector<std::int64_t> all(rounds.begin(), rounds.end());
  if (all.size() <= kChartPoints) return all;
  std::vector<std::int64_t> picked;
  for (std::size_t i = 1; i <= kChartPoints; ++i)
    picked.push_back(all[i * all.size() / kChartPoints - 1]);
  return picked;
}

// The entrants a job seats, by seat (null for a seat the spec does not have).
Json seat_names(const tournament::TournamentSpec& spec, const Json& job_spec) {
  Json seats = Json::array();
  for (std::size_t e : tournament::seated(job_spec))
    seats.push_back(e < spec.players.size() ? Json(spec.players[e].name) : Json());
  return seats;
}

// The stored bots' versions a job seats, by seat ("alice@3"; null for a seat that is no stored
// bot), or null when it seats none.
Json seat_versions(const tournament::TournamentSpec& spec, const Json& job_spec) {
  Json versions = Json::array();
  bool any = false;
  for (std::size_t e : tournament::seated(job_spec)) {
    const bool stored = e < spec.players.size() && is_stored_bot(spec.players[e].bot);
    versions.push_back(stored ? Json(spec.players[e].bot.substr(kStoredBotPrefix.size())) : Json());
    any = any || stored;
  }
  return any ? versions : Json();
}

}  // namespace

std::string held_message(std::int64_t id, std::int64_t index) {
  return fmt::format(
      "match {} of tournament {} shares its seed with matches still to be played (its pair, "
      "seats swapped): its log and seed are served once they are over",
      index, id);
}

std::variant<std::shared_ptr<StoreApi::Snapshot>, ApiReply> StoreApi::snapshot(
    std::int64_t id, std::chrono::milliseconds max_age) {
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mu_);
    if (auto it = cache_.find(id); it != cache_.end() && now - it->second->checked < max_age)
      return it->second;
  }
  auto record = store_.find_tournament(id);
  if (!record) return store_failed(record.error());
  if (!*record) return api_error(404, fmt::format("no tournament {}", id));
  auto progress = store_.progress(id);
  if (!progress) return store_failed(progress.error());
  {
    std::lock_guard lock(mu_);
    if (auto it = cache_.find(id); it != cache_.end() &&
                                   it->second->progress.done == progress->done &&
                                   it->second->progress.enqueued == progress->enqueued &&
                                   it->second->progress.duplicates == progress->duplicates) {
      it->second->checked = now;
      return it->second;
    }
  }
  auto spec = tournament::decode_spec((*record)->spec);
  if (!spec) return api_error(503, fmt::format("tournament {}: its stored spec cannot be read: {}",
                                               id, spec.error().message));
  auto results = store_.results(id);
  if (!results) return store_failed(results.error());
  auto snap = std::make_shared<Snapshot>();
  snap->record = std::move(**record);
  snap->spec = std::move(*spec);
  snap->progress = *progress;
  snap->results = std::move(*results);
  snap->groups.emplace(snap->spec, snap->results);
  // A ladder is never over while it exists: its master seed would tell every deal to come.
  snap->over = snap->spec.schedule != tournament::Schedule::ladder &&
               tournament::tournament_over(snap->progress);
  snap->checked = now;
  std::lock_guard lock(mu_);
  cache_[id] = snap;
  return snap;
}

ApiReply StoreApi::tournaments() {
  auto all = store_.tournaments();
  if (!all) return store_failed(all.error());
  Json list = Json::array();
  for (const auto& t : *all) {
    auto progress = store_.progress(t.id);
    if (!progress) return store_failed(progress.error());
    list.push_back({{"id", t.id},
                    {"name", t.name},
                    {"game", t.game},
                    {"schedule", field_or_null(t.spec, "schedule")},
                    {"created", t.created},
                    {"progress", progress_json(*progress)}});
  }
  return {200, Json{{"tournaments", list}}};
}

ApiReply StoreApi::tournament(std::int64_t id) {
  auto got = snapshot(id);
  if (auto* reply = std::get_if<ApiReply>(&got)) return *reply;
  const Snapshot& s = *std::get<std::shared_ptr<Snapshot>>(got);
  Json players = Json::array();
  for (const auto& p : s.spec.players) players.push_back({{"name", p.name}, {"bot", p.bot}});
  return {200, Json{{"id", s.record.id},
                    {"name", s.record.name},
                    {"game", s.record.game},
                    {"created", s.record.created},
                    {"players", players},
                    {"schedule", std::string(tournament::schedule_name(s.spec.schedule))},
                    {"seats", s.spec.seats},
                    {"rounds", s.spec.rounds},
                    // Every match's deal follows from it: shown once none is played any more.
                    {"seed", s.over ? Json(std::to_string(s.spec.seed)) : Json(nullptr)},
                    {"config", s.spec.config},
                    {"per_call_ms", s.spec.per_call_ms},
                    {"progress", progress_json(s.progress)}}};
}

ApiReply StoreApi::standings(std::int64_t id) {
  auto got = snapshot(id);
  if (auto* reply = std::get_if<ApiReply>(&got)) return *reply;
  Snapshot& s = *std::get<std::shared_ptr<Snapshot>>(got);
  // An n x n crosstable over every version a ladder ever had is not an answer to serve.
  if (s.spec.schedule == tournament::Schedule::ladder)
    return api_error(
        404, fmt::format("{} is a ladder: its leaderboard is /api/ladders/{}", s.record.name, id));
  std::call_once(s.standings_once, [&s] {
    const std::size_t n = s.spec.players.size();
    Json out = tournament::standings_json(tournament::compute_standings(s.spec, s.results));
    // Crosstable: the points row entrant earned against column entrant, over their pairwise
    // games (ratings.h), and how many games.
    std::vector<std::vector<double>> points(n, std::vector<double>(n, 0.0));
    std::vector<std::vector<std::int64_t>> games(n, std::vector<std::int64_t>(n, 0));
    std::vector<std::pair<std::int64_t, tournament::MatchFinish>> finished;
    std::set<std::int64_t> rounds;
    for (const StoredResult& r : s.results) {
      if (!tournament::row_damage(s.spec, r).empty()) continue;
      auto finish = tournament::match_finish(r.spec, r.result);
      if (!finish) continue;
      for (const auto& g : tournament::pairwise_games(*finish)) {
        points[g.a][g.b] += g.score;
        points[g.b][g.a] += 1 - g.score;
        ++games[g.a][g.b];
        ++games[g.b][g.a];
      }
      finished.emplace_back(r.round, std::move(*finish));
      rounds.insert(r.round);
    }
    Json names = Json::array();
    for (const auto& p : s.spec.players) names.push_back(p.name);
    Json cells = Json::array();
    for (std::size_t a = 0; a < n; ++a) {
      Json row = Json::array();
      for (std::size_t b = 0; b < n; ++b)
        row.push_back({{"points", points[a][b]}, {"games", games[a][b]}});
      cells.push_back(std::move(row));
    }
    out["crosstable"] = {{"entrants", names}, {"cells", cells}};
    // The rating chart: Elo (ratings.h) of every entrant from the matches up to each round.
    Json chart = Json::array();
    for (std::int64_t round : chart_rounds(rounds)) {
      std::vector<tournament::MatchFinish> upto;
      for (const auto& [r, f] : finished)
        if (r <= round) upto.push_back(f);
      Json elo = Json::array();
      for (const auto& e : tournament::elo_ratings(n, upto)) elo.push_back(e.elo);
      chart.push_back({{"round", round}, {"elo", elo}});
    }
    out["elo_by_round"] = std::move(chart);
    s.standings = std::move(out);
  });
  return {200, s.standings};
}

Json StoreApi::match_row(const Snapshot& s, const StoredResult& row) const {
  return server::match_row(s.spec, row, !s.groups->over(row.spec));
}

Json match_row(const tournament::TournamentSpec& spec, const StoredResult& row, bool held) {
  const Json seats = seat_names(spec, row.spec);
  auto name_of = [&](std::size_t seat) -> Json { return seat < seats.size() ? seats[seat] : Json(); };
  Json out = {{"index", row.index},
              {"round", row.round},
              {"job", row.job},
              {"seats", seats},
              {"seconds", row.seconds}};
  if (Json versions = seat_versions(spec, row.spec); !versions.is_null())
    out["versions"] = std::move(versions);
  const std::string damage = tournament::row_damage(spec, row);
  if (!damage.empty()) {
    out["outcome"] = "damaged";
    out["damage"] = damage;
    return out;
  }
  // Seeds go up to 2^64-1, past what a JavaScript number holds exactly: sent as text; and only
  // once no match dealt from the same seed is played any more.
  out["held"] = held;
  if (const Json seed = field_or_null(row.spec, "seed"); !seed.is_null() && !out["held"])
    out["seed"] = dump(seed);
  const Json& result = row.result;
  if (!result.is_object() || result.contains("error") || !tournament::match_finish(row.spec, result)) {
    out["outcome"] = "error";
    out["error"] = result.is_object() && result.contains("error") ? result["error"]
                                                                  : Json("unreadable result");
    return out;
  }
  Json winners = Json::array();
  for (const Json& w : result["winners"]) winners.push_back(name_of(w.get<std::size_t>()));
  Json ejections = Json::array();
  for (const Json& e : result["ejections"]) {
    Json ej = e;
    ej["name"] = name_of(e.at("seat").get<std::size_t>());
    // A detail may name what a seat held, dealt again to its pair while that is still played.
    if (out["held"] == Json(true) && ej.contains("detail") && ej["detail"].is_string())
      ej["detail"] = detail_reason(ej["detail"].get<std::string>());
    ejections.push_back(std::move(ej));
  }
  out["winners"] = winners;
  out["scores"] = field_or_null(result, "scores");
  out["ejections"] = ejections;
  const bool aborted = field_or_null(result, "aborted") == Json(true);
  out["outcome"] = aborted ? "aborted" : winners.empty() ? "draw" : "win";
  return out;
}

ApiReply StoreApi::matches(std::int64_t id, const MatchQuery& q) {
  if (q.offset < 0 || q.offset > tournament::kMaxMatches)
    return api_error(400, fmt::format("offset: must be 0 to {}", tournament::kMaxMatches));
  if (q.limit < 1 || q.limit > 500) return api_error(400, "limit: must be 1 to 500");
  static const std::set<std::string> outcomes{"", "win", "draw", "aborted", "error", "damaged"};
  if (!outcomes.contains(q.outcome))
    return api_error(400, "outcome: must be win, draw, aborted, error or damaged");
  auto got = snapshot(id);
  if (auto* reply = std::get_if<ApiReply>(&got)) return *reply;
  Snapshot& s = *std::get<std::shared_ptr<Snapshot>>(got);
  // Every request filters the same rows: they are built once per snapshot.
  std::call_once(s.rows_once, [&] {
    s.rows.reserve(s.results.size());
    for (const StoredResult& r : s.results) s.rows.push_back(match_row(s, r));
  });
  Json page = Json::array();
  std::int64_t total = 0;
  for (const Json& row : s.rows) {
    if (q.round && row.at("round") != *q.round) continue;
    if (!q.outcome.empty() && row.at("outcome") != q.outcome) continue;
    const auto ejections = row.find("ejections");
    const bool any_ejected = ejections != row.end() && !ejections->empty();
    if (q.ejected && *q.ejected != any_ejected) continue;
    if (!q.verdict.empty() &&
        !(any_ejected && std::any_of(ejections->begin(), ejections->end(), [&](const Json& e) {
            return string_or(e, "why") == q.verdict;
          })))
      continue;
    if (!q.player.empty() &&
        std::none_of(row.at("seats").begin(), row.at("seats").end(),
                     [&](const Json& n) { return n == Json(q.player); }))
      continue;
    if (total >= q.offset && total < q.offset + q.limit) page.push_back(row);
    ++total;
  }
  return {200, Json{{"tournament", id},
                    {"total", total},
                    {"offset", q.offset},
                    {"limit", q.limit},
                    {"matches", page}}};
}

std::variant<StoreApi::Found, ApiReply> StoreApi::find_match(std::int64_t id, std::int64_t index) {
  // A match missing from a snapshot up to kFresh old may have been stored since (a page that
  // followed it live asks for it the moment it ends): looked for once more in a current one.
  for (const auto max_age : {kFresh, std::chrono::milliseconds(0)}) {
    auto got = snapshot(id, max_age);
    if (auto* reply = std::get_if<ApiReply>(&got)) return *reply;
    auto snap = std::get<std::shared_ptr<Snapshot>>(std::move(got));
    auto it = std::lower_bound(snap->results.begin(), snap->results.end(), index,
                               [](const StoredResult& r, std::int64_t i) { return r.index < i; });
    if (it != snap->results.end() && it->index == index) return Found{snap, &*it};
  }
  return api_error(404, fmt::format("tournament {} has no finished match {}", id, index));
}

ApiReply StoreApi::match(std::int64_t id, std::int64_t index) {
  auto found = find_match(id, index);
  if (auto* reply = std::get_if<ApiReply>(&found)) return *reply;
  const auto& [snap, row] = std::get<Found>(found);
  Json out = match_row(*snap, *row);
  out["tournament"] = id;
  out["tournament_name"] = snap->record.name;
  out["game"] = snap->record.game;
  // The deal follows from the match's seed, the programs' seeds from the key.
  if (out["held"] == Json(false))
    out["reproduce"] = tournament::reproduce_command(snap->spec, row->spec, snap->over);
  out["log"] = fmt::format("/api/tournaments/{}/matches/{}/log", id, index);
  return {200, out};
}

std::variant<StoreApi::Log, ApiReply> StoreApi::log(std::int64_t id, std::int64_t index) {
  auto found = find_match(id, index);
  if (auto* reply = std::get_if<ApiReply>(&found)) return *reply;
  if (const auto& [snap, row] = std::get<Found>(found); !snap->groups->over(row->spec))
    return api_error(409, held_message(id, index));
  auto packed = store_.packed_log(std::get<Found>(found).row->job);
  if (!packed) return store_failed(packed.error());
  if (!*packed) return api_error(404, fmt::format("match {} of tournament {} has no log", index, id));
  PackedLog& p = **packed;
  std::string damage = tournament::packed_log_damage(p.spec, p.result, p.stored, p.checksum);
  return Log{std::move(p.stored), std::move(damage)};
}

std::variant<std::vector<tournament::LiveJob>, ApiReply> StoreApi::live_jobs(std::int64_t id) {
  auto jobs = store_.live_jobs(id);
  if (!jobs) return store_failed(jobs.error());
  return std::move(*jobs);
}

Json StoreApi::live_row(const Snapshot& s, const tournament::LiveJob& job) const {
  const std::int64_t t = s.record.id;
  return {{"tournament", t},
          {"index", job.index},
          {"round", job.round},
          {"seats", seat_names(s.spec, job.spec)},
          {"lines", job.lines},
          {"stream", fmt::format("/api/tournaments/{}/matches/{}/stream", t, job.index)}};
}

ApiReply StoreApi::live(std::int64_t id) {
  auto got = snapshot(id);
  if (auto* reply = std::get_if<ApiReply>(&got)) return *reply;
  const Snapshot& s = *std::get<std::shared_ptr<Snapshot>>(got);
  auto jobs = live_jobs(id);
  if (auto* reply = std::get_if<ApiReply>(&jobs)) return *reply;
  Json list = Json::array();
  for (const auto& job : std::get<std::vector<tournament::LiveJob>>(jobs))
    list.push_back(live_row(s, job));
  return {200, Json{{"matches", list}}};
}

std::variant<StoreApi::Live, ApiReply> StoreApi::live_match(std::int64_t id, std::int64_t index) {
  auto got = snapshot(id);
  if (auto* reply = std::get_if<ApiReply>(&got)) return *reply;
  const Snapshot& s = *std::get<std::shared_ptr<Snapshot>>(got);
  auto jobs = live_jobs(id);
  if (auto* reply = std::get_if<ApiReply>(&jobs)) return *reply;
  for (const auto& job : std::get<std::vector<tournament::LiveJob>>(jobs)) {
    if (job.index != index) continue;
    Json row = live_row(s, job);
    row["tournament_name"] = s.record.name;
    row["game"] = s.record.game;
    return Live{job.job, std::move(row)};
  }
  return api_error(404, fmt::format("match {} of tournament {} is not being played now", index,
                                    id));
}

}  // namespace arbiter::server
