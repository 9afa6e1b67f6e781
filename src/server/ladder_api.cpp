#include "server/ladder_api.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "arena/bot_shelf.h"
#include "arena/registry.h"
#include "core/printable.h"
#include "league/ladder.h"
#include "tournament/ratings.h"
#include "tournament/schedule.h"
#include "tournament/standings.h"
#include "tournament/worker.h"

namespace arbiter::server {

using tournament::RatingStep;
using tournament::StoredResult;
using tournament::TournamentSpec;

namespace {

// The ladder `id`'s spec, or the reply saying why there is none.
std::variant<TournamentSpec, ApiReply> ladder_spec(tournament::Store& store, std::int64_t id) {
  auto record = store.find_tournament(id);
  if (!record) return store_failed(record.error());
  if (!*record || field_or_null((*record)->spec, "schedule") != "ladder")
    return api_error(404, fmt::format("no ladder {}", id));
  auto spec = tournament::decode_spec((*record)->spec);
  if (!spec)
    return api_error(503, fmt::format("ladder {}: its stored spec cannot be read: {}", id,
                                      spec.error().message));
  return std::move(*spec);
}

// The matches of a ladder's groups still under way among `rows`' groups: a ladder's group is
// one rotation per seat, numbered from the index of its first match ("pair").
std::set<std::int64_t> held_groups(tournament::Store& store, std::int64_t id,
                                   const TournamentSpec& spec,
                                   const std::vector<StoredResult>& rows) {
  std::map<std::int64_t, std::int64_t> size_of;  // group start -> its matches
  for (const StoredResult& r : rows)
    if (auto pair = tournament::pair_of(r.spec))
      size_of[*pair] = tournament::dealt_from_seed(spec, r.spec);
  std::vector<std::int64_t> wanted;
  for (const auto& [start, size] : size_of)
    for (std::int64_t i = start; i < start + size; ++i) wanted.push_back(i);
  std::set<std::int64_t> held;
  auto have = store.results_at(id, wanted);
  std::set<std::int64_t> done;
  if (have)
    for (const StoredResult& r : *have) done.insert(r.index);
  for (const auto& [start, size] : size_of)
    for (std::int64_t i = start; i < start + size; ++i)
      if (!done.contains(i)) held.insert(start);
  return held;
}

bool is_held(const std::set<std::int64_t>& held, const StoredResult& r) {
  const auto pair = tournament::pair_of(r.spec);
  return !pair || held.contains(*pair);
}

Json step_json(const RatingStep& s) {
  return {
      {"match", s.index}, {"mu", s.mu}, {"sigma", s.sigma}, {"games", s.games}, {"place", s.place}};
}

}  // namespace

ApiReply LadderApi::ladders() {
  auto all = league::ladders(store_);
  if (!all) return store_failed(all.error());
  Json list = Json::array();
  for (const auto& t : *all) {
    auto state = store_.ladder_state(t.id);
    if (!state) return store_failed(state.error());
    const Json& players = field_or_null(t.spec, "players");
    list.push_back({{"id", t.id},
                    {"name", t.name},
                    {"game", t.game},
                    {"created", t.created},
                    {"state", state->state},
                    {"entrants", players.is_array() ? players.size() : 0},
                    {"rated", state->rated()}});
  }
  return {200, Json{{"ladders", list}}};
}

ApiReply LadderApi::ladder(std::int64_t id) {
  auto spec = ladder_spec(store_, id);
  if (auto* reply = std::get_if<ApiReply>(&spec)) return *reply;
  auto board = league::leaderboard(store_, id);
  if (!board) return store_failed(board.error());
  Json out = league::leaderboard_json(*board);
  const auto& s = std::get<TournamentSpec>(spec);
  out["id"] = id;
  out["seats"] = s.seats == s.ladder->seats_max
                     ? std::to_string(s.seats)
                     : fmt::format("{}-{}", s.seats, s.ladder->seats_max);
  return {200, out};
}

ApiReply LadderApi::entrant(std::int64_t id, std::int64_t entrant, const std::string& reader,
                            bool organizer) {
  auto got = ladder_spec(store_, id);
  if (auto* reply = std::get_if<ApiReply>(&got)) return *reply;
  const TournamentSpec& spec = std::get<TournamentSpec>(got);
  if (entrant < 0 || static_cast<std::size_t>(entrant) >= spec.players.size())
    return api_error(404, fmt::format("ladder {} has no entrant {}", id, entrant));
  const auto& player = spec.players[static_cast<std::size_t>(entrant)];
  auto board = league::leaderboard(store_, id);
  if (!board) return store_failed(board.error());
  Json me;
  int rank = 0;
  for (const auto& row : board->rows) {
    ++rank;
    if (row.entrant != entrant) continue;
    me = {{"index", entrant},
          {"name", row.name},
          {"bot", shown_bot(row.bot)},
          {"status", row.status},
          {"rank", rank},
          {"mu", row.standing.skill.mu},
          {"sigma", row.standing.skill.sigma},
          {"conservative", row.conservative},
          {"games", row.standing.games}};
  }
  // The bot's versions, every one of them with its build state (a house anchor has none).
  Json versions = Json::array();
  bool mine = false;  // the reader's own bot
  if (auto ref = parse_stored_bot(player.bot); ref) {
    auto all = store_.bot_versions(ref->name);
    if (!all) return store_failed(all.error());
    for (const auto& v : *all) {
      mine = mine || (!reader.empty() && v.author == reader);
      versions.push_back({{"version", v.version},
                          {"status", v.status},
                          {"reason", v.reason},
                          {"created", v.created},
                          {"this", fmt::format("{}@{}", v.name, v.version) == ref->text()}});
    }
  }
  const bool stderr_shown = show_stderr_ || organizer || mine;
  auto history = store_.rating_history(id, entrant);
  if (!history) return store_failed(history.error());
  Json points = Json::array();
  const std::size_t n = history->size();
  const std::size_t stride = n > kHistoryPoints ? (n + kHistoryPoints - 1) / kHistoryPoints : 1;
  for (std::size_t i = 0; i < n; ++i)
    if (i % stride == 0 || i + 1 == n) points.push_back(step_json((*history)[i]));

  // Its last matches, found through its rating steps (every rated match it played).
  std::vector<std::int64_t> last;
  for (std::size_t i = n > kEjectionSpan ? n - kEjectionSpan : 0; i < n; ++i)
    last.push_back((*history)[i].index);
  auto rows = store_.results_at(id, last);
  if (!rows) return store_failed(rows.error());
  const auto held = held_groups(store_, id, spec, *rows);
  std::map<std::string, std::int64_t> ejected_for;
  Json recent = Json::array();
  Json stderr_tails = Json::array();
  for (auto it = rows->rbegin(); it != rows->rend(); ++it) {
    const StoredResult& r = *it;
    const auto seats = tournament::seated(r.spec);
    const auto seat = std::find(seats.begin(), seats.end(), static_cast<std::size_t>(entrant));
    if (seat == seats.end()) continue;
    const auto seat_index = static_cast<std::int64_t>(seat - seats.begin());
    if (r.damage.empty() && r.result.is_object() && r.result.contains("ejections"))
      for (const Json& e : r.result["ejections"])
        if (int_or(e, "seat", -1) == seat_index) ++ejected_for[string_or(e, "verdict", "?")];
    if (recent.size() >= kRecent) continue;
    const bool hidden = is_held(held, r);
    Json row = match_row(spec, r, hidden);
    row["seat"] = seat_index;
    if (auto finish = tournament::match_finish(r.spec, r.result))
      row["place"] = (*finish)[static_cast<std::size_t>(seat_index)].place;
    recent.push_back(std::move(row));
    if (stderr_shown && !hidden) {
      auto tails = store_.stderr_tails(r.job);
      if (!tails) return store_failed(tails.error());
      if (*tails && (*tails)->is_array())
        for (const Json& t : **tails)
          if (string_or(t, "seat") == player.name)  // tails are named by seat name
            stderr_tails.push_back({{"match", r.index},
                                    {"bytes", field_or_null(t, "bytes")},
                                    {"tail", field_or_null(t, "tail")}});
    }
  }
  Json out{{"ladder", {{"id", id}, {"name", spec.name}, {"game", spec.game}}},
           {"entrant", me},
           {"versions", versions},
           {"history", points},
           {"recent", recent},
           {"ejections", ejected_for},
           {"ejections_over", rows->size()}};
  if (stderr_shown) out["stderr"] = stderr_tails;
  return {200, out};
}

ApiReply LadderApi::set_state(std::int64_t id, const std::string& from, const std::string& to) {
  auto got = ladder_spec(store_, id);
  if (auto* reply = std::get_if<ApiReply>(&got)) return *reply;
  auto now = store_.ladder_state(id);
  if (!now) return store_failed(now.error());
  if (now->state != from)
    return api_error(409, fmt::format("ladder {} is {}, not {}", id, now->state, from));
  if (auto ok = store_.set_ladder_state(id, to); !ok) return store_failed(ok.error());
  return {200, Json{{"ladder", id}, {"state", to}}};
}

ApiReply LadderApi::head_to_head(std::int64_t id, std::int64_t a, std::int64_t b) {
  auto got = ladder_spec(store_, id);
  if (auto* reply = std::get_if<ApiReply>(&got)) return *reply;
  const TournamentSpec& spec = std::get<TournamentSpec>(got);
  const auto known = [&](std::int64_t e) {
    return e >= 0 && static_cast<std::size_t>(e) < spec.players.size();
  };
  if (!known(a) || !known(b))
    return api_error(404, fmt::format("ladder {} has no entrant {}", id, known(a) ? b : a));
  if (a == b) return api_error(400, "a and b must be two different entrants");
  auto ha = store_.rating_history(id, a);
  auto hb = store_.rating_history(id, b);
  if (!ha) return store_failed(ha.error());
  if (!hb) return store_failed(hb.error());
  std::set<std::int64_t> of_b;
  for (const RatingStep& s : *hb) of_b.insert(s.index);
  std::vector<std::int64_t> both;
  for (const RatingStep& s : *ha)
    if (of_b.contains(s.index)) both.push_back(s.index);
  if (both.size() > kMeetings) both.erase(both.begin(), both.end() - kMeetings);
  auto rows = store_.results_at(id, both);
  if (!rows) return store_failed(rows.error());
  const auto held = held_groups(store_, id, spec, *rows);
  double a_points = 0, b_points = 0;
  std::int64_t wins = 0, draws = 0, losses = 0, meetings = 0;
  Json matches = Json::array();
  for (auto it = rows->rbegin(); it != rows->rend(); ++it) {
    const StoredResult& r = *it;
    if (!r.damage.empty()) continue;
    auto finish = tournament::match_finish(r.spec, r.result);
    if (!finish) continue;
    int pa = -1, pb = -1;
    for (const auto& f : *finish) {
      if (static_cast<std::int64_t>(f.entrant) == a) pa = f.place;
      if (static_cast<std::int64_t>(f.entrant) == b) pb = f.place;
    }
    if (pa < 0 || pb < 0) continue;
    ++meetings;
    if (pa < pb)
      ++wins, a_points += 1;
    else if (pa > pb)
      ++losses, b_points += 1;
    else
      ++draws, a_points += 0.5, b_points += 0.5;
    if (matches.size() < 50) matches.push_back(match_row(spec, r, is_held(held, r)));
  }
  const auto who = [&](std::int64_t e) {
    const auto& p = spec.players[static_cast<std::size_t>(e)];
    return Json{{"index", e}, {"name", p.name}, {"bot", shown_bot(p.bot)}};
  };
  return {200, Json{{"ladder", {{"id", id}, {"name", spec.name}, {"game", spec.game}}},
                    {"a", who(a)},
                    {"b", who(b)},
                    {"meetings", meetings},
                    {"a_points", a_points},
                    {"b_points", b_points},
                    {"wins", wins},
                    {"draws", draws},
                    {"losses", losses},
                    {"matches", matches}}};
}

ApiReply LadderApi::request_test(std::int64_t id, const std::vector<std::string>& seats,
                                 const std::string& who, bool organizer) {
  if (auto known = ladder_spec(store_, id); std::holds_alternative<ApiReply>(known))
    return std::get<ApiReply>(known);
  // Enrolled first, so that the spec names a version made active since; whose an entrant is
  // comes from the spec's own players only (a name is never worked out again: a long bot name
  // is cut, and another's could then read as one's own).
  if (auto enrolled = league::enroll(store_, id); !enrolled) return store_failed(enrolled.error());
  auto got = ladder_spec(store_, id);
  if (auto* reply = std::get_if<ApiReply>(&got)) return *reply;
  const TournamentSpec& spec = std::get<TournamentSpec>(got);
  if (!organizer) {
    bool mine = false;
    for (const std::string& name : seats) {
      const auto it = std::find_if(spec.players.begin(), spec.players.end(),
                                   [&](const tournament::Entrant& e) { return e.name == name; });
      if (it == spec.players.end()) continue;
      auto ref = parse_stored_bot(it->bot);
      if (!ref) continue;
      auto versions = store_.bot_versions(ref->name);
      if (!versions) return store_failed(versions.error());
      mine = mine || (!versions->empty() && versions->front().author == who);
    }
    if (!mine) return api_error(403, "a test match seats one of your own entrants at least");
  }
  auto index = league::add_test_match(store_, id, seats, who);
  if (!index) return api_error(400, index.error().message);
  return {202, Json{{"ladder", id},
                    {"index", *index},
                    {"match", fmt::format("match.html?t={}&i={}", id, *index)}}};
}

ApiReply LadderApi::tests(const std::string& who, bool organizer) {
  auto all = league::ladders(store_);
  if (!all) return store_failed(all.error());
  Json out = Json::array();
  for (const auto& record : *all) {
    auto state = store_.ladder_state(record.id);
    if (!state) return store_failed(state.error());
    auto jobs = store_.jobs(record.id, std::max<std::int64_t>(state->mark - kTestSpan, 0));
    if (!jobs) return store_failed(jobs.error());
    std::vector<tournament::JobSpec> asked;
    std::vector<std::int64_t> indices;
    for (auto& job : *jobs) {
      const std::string by = league::test_match_by(job.spec);
      if (by.empty() || (!organizer && by != who)) continue;
      indices.push_back(job.index);
      asked.push_back(std::move(job));
    }
    if (asked.empty()) continue;
    auto spec = tournament::decode_spec(record.spec);
    auto results = store_.results_at(record.id, indices);
    if (!results) return store_failed(results.error());
    auto live = store_.live_jobs(record.id);
    if (!live) return store_failed(live.error());
    std::map<std::int64_t, const StoredResult*> over;
    for (const auto& r : *results) over[r.index] = &r;
    std::set<std::int64_t> playing;
    for (const auto& j : *live) playing.insert(j.index);
    for (auto it = asked.rbegin(); it != asked.rend(); ++it) {
      Json seats = Json::array();
      for (std::size_t e : tournament::seated(it->spec))
        seats.push_back(spec && e < spec->players.size() ? Json(spec->players[e].name)
                                                         : Json(fmt::format("#{}", e)));
      Json row{{"ladder", record.id},
               {"ladder_name", record.name},
               {"index", it->index},
               {"by", league::test_match_by(it->spec)},
               {"seats", seats},
               {"match", fmt::format("match.html?t={}&i={}", record.id, it->index)}};
      if (auto r = over.find(it->index); r != over.end()) {
        row["state"] = "over";
        row["result"] = r->second->damage.empty() ? r->second->result : Json();
      } else {
        row["state"] = playing.contains(it->index) ? "playing" : "queued";
      }
      out.push_back(std::move(row));
    }
  }
  return {200, Json{{"tests", out}}};
}

ApiReply LadderApi::create(const Json& body) {
  if (!body.is_object()) return api_error(400, "give {\"name\", \"game\", \"seats\", \"anchors\"}");
  auto spec = tournament::new_tournament_spec();
  auto name = text_field(body, "name", "");
  auto game = text_field(body, "game", "");
  auto seats_text = text_field(body, "seats", "2");
  for (const auto* f : {&name, &game, &seats_text})
    if (!*f) return api_error(400, f->error().message);
  if (!console_name(*name))
    return api_error(400, "a ladder's name is 1 to 40 letters, digits, '_' and '-'");
  auto seats = league::parse_seat_range(*seats_text);
  if (!seats) return api_error(400, "seats " + seats.error().message);
  spec.name = *name;
  spec.game = *game;
  spec.schedule = tournament::Schedule::ladder;
  spec.seats = seats->first;
  spec.ladder = tournament::Ladder{seats->second, {}, 10, league::encode_skill_params({})};
  const Json anchors = body.contains("anchors") ? body["anchors"] : Json::array();
  if (!anchors.is_array() || anchors.size() > 16)
    return api_error(400, "\"anchors\" is a list of at most 16 {\"name\", \"bot\"}");
  for (const Json& a : anchors) {
    auto anchor_name = a.is_object() ? text_field(a, "name", "") : fail("an anchor is an object");
    auto bot = a.is_object() ? text_field(a, "bot", "") : fail("an anchor is an object");
    if (!anchor_name || !bot) return api_error(400, "an anchor is {\"name\", \"bot\"} of strings");
    // A house bot of the game: no cmd: program, no tcp seat, no file, no stored bot from a web
    // form (stored bots join by themselves once active).
    if (bot->size() > 64 || !is_house_bot(spec.game, *bot))
      return api_error(400, fmt::format("anchor \"{}\": a house bot of the game, such as hunt",
                                        printable_line(*bot)));
    spec.players.push_back({*anchor_name, *bot});
  }
  if (auto ok = tournament::validate_spec(spec); !ok) return api_error(400, ok.error().message);
  auto id = league::create_ladder(store_, spec);
  if (!id) return api_error(400, id.error().message);
  return {201, Json{{"id", *id}, {"name", spec.name}}};
}

ApiReply LadderApi::finals(std::int64_t id, const Json& body) {
  auto got = ladder_spec(store_, id);
  if (auto* reply = std::get_if<ApiReply>(&got)) return *reply;
  league::FinalsTerms terms;
  if (body.is_object()) {
    auto top = number_field(body, "top", static_cast<std::int64_t>(terms.top), 2, 64);
    auto rounds = number_field(body, "rounds", terms.rounds, 1, 100);
    if (!top) return api_error(400, top.error().message);
    if (!rounds) return api_error(400, rounds.error().message);
    terms.rounds = *rounds;
    terms.top = static_cast<std::size_t>(*top);
  }
  auto spec = league::draw_finals(store_, id, terms);
  if (!spec) return api_error(400, spec.error().message);
  auto t = tournament::create_tournament(store_, *spec);
  if (!t) return store_failed(t.error());
  return {201, Json{{"tournament", *t},
                    {"matches", tournament::planned_matches(*spec)},
                    {"entrants", spec->players.size()}}};
}

}  // namespace arbiter::server
