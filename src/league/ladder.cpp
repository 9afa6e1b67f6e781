#include "league/ladder.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "arena/bot_shelf.h"
#include "core/seat_name.h"
#include "core/seed_tree.h"
#include "league/matchmaker.h"
#include "tournament/schedule.h"
#include "tournament/standings.h"
#include "tournament/worker.h"

namespace arbiter::league {

using tournament::Entrant;
using tournament::RatingStep;
using tournament::Schedule;
using tournament::Store;
using tournament::StoredResult;
using tournament::TournamentRecord;
using tournament::TournamentSpec;

Json encode_skill_params(const SkillParams& p) {
  return {{"model", "plackett-luce"}, {"mu", p.mu},   {"sigma", p.sigma}, {"beta", p.beta},
          {"kappa", p.kappa},         {"tau", p.tau}, {"z", p.z}};
}

Expected<SkillParams> decode_skill_params(const Json& j) {
  SkillParams p;
  if (j.is_null()) return p;
  if (auto ok = only_keys(j, {"model", "mu", "sigma", "beta", "kappa", "tau", "z"},
                          "the ladder's rating");
      !ok)
    return std::unexpected(ok.error());
  if (j.contains("model") && j["model"] != "plackett-luce")
    return fail(fmt::format("the ladder's rating model {} is not known (plackett-luce is)",
                            excerpt(j["model"])));
  for (auto [key, field] : {std::pair{"mu", &p.mu},
                            {"sigma", &p.sigma},
                            {"beta", &p.beta},
                            {"kappa", &p.kappa},
                            {"tau", &p.tau},
                            {"z", &p.z}}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_number() || !std::isfinite(j[key].get<double>()))
      return fail(fmt::format("the ladder's rating: {} must be a number", key));
    *field = j[key].get<double>();
  }
  if (!(p.sigma > 0 && p.beta > 0 && p.z > 0 && p.kappa > 0 && p.kappa <= 1 && p.tau >= 0))
    return fail(
        "the ladder's rating: sigma, beta and z must be positive, kappa in (0, 1], tau "
        ">= 0");
  return p;
}

namespace {

bool is_ladder(const TournamentRecord& t) {
  return t.spec.is_object() && field_or_null(t.spec, "schedule") == "ladder";
}

Expected<TournamentSpec> ladder_spec(const TournamentRecord& record) {
  auto spec = tournament::decode_spec(record.spec);
  if (!spec) return fail(fmt::format("ladder {}: {}", record.name, spec.error().message));
  if (spec->schedule != Schedule::ladder)
    return fail(fmt::format("{} is not a ladder", record.name));
  return spec;
}

Expected<TournamentSpec> load_ladder_spec(Store& store, std::int64_t ladder) {
  auto spec = tournament::load_spec(store, ladder);
  if (spec && spec->schedule != Schedule::ladder)
    return fail(fmt::format("tournament {} is not a ladder", ladder));
  return spec;
}

// Calls a store operation again after a short pause, a few times: a busy SQLite file or a
// PostgreSQL restart should not end a ladder.
template <class F>
auto patiently(F&& call) -> decltype(call()) {
  auto result = call();
  for (int attempt = 1; !result && attempt < 6; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100 << attempt));
    result = call();
  }
  return result;
}

}  // namespace

Expected<std::vector<TournamentRecord>> ladders(Store& store) {
  auto all = store.tournaments();
  if (!all) return std::unexpected(all.error());
  std::vector<TournamentRecord> out;
  for (auto& t : *all)
    if (is_ladder(t)) out.push_back(std::move(t));
  return out;
}

Expected<TournamentRecord> find_ladder(Store& store, const std::string& name) {
  auto all = ladders(store);
  if (!all) return std::unexpected(all.error());
  for (auto it = all->rbegin(); it != all->rend(); ++it)
    if (it->name == name) return *it;
  std::string known;
  for (const auto& t : *all) known += (known.empty() ? "" : ", ") + t.name;
  return fail(fmt::format(
      "no ladder \"{}\" in the store ({})", escape_controls(name),
      known.empty() ? "it has none: arbiter ladder create makes one" : "it has " + known));
}

Expected<std::pair<std::int64_t, std::int64_t>> parse_seat_range(const std::string& text) {
  const auto dash = text.find('-');
  try {
    std::size_t used = 0;
    const std::int64_t lo = std::stoll(text.substr(0, dash), &used);
    if (used != (dash == std::string::npos ? text.size() : dash)) throw std::invalid_argument("");
    std::int64_t hi = lo;
    if (dash != std::string::npos) {
      hi = std::stoll(text.substr(dash + 1), &used);
      if (used != text.size() - dash - 1) throw std::invalid_argument("");
    }
    if (lo < 1 || hi < lo || hi > 64) throw std::invalid_argument("");
    return std::pair{lo, hi};
  } catch (const std::exception&) {
    return fail(
        fmt::format("\"{}\": expected K or a range K-M (e.g. 2 or 2-4)", escape_controls(text)));
  }
}

Expected<std::int64_t> create_ladder(Store& store, const TournamentSpec& spec) {
  if (spec.schedule != Schedule::ladder || !spec.ladder)
    return fail("a ladder needs the ladder schedule and its terms");
  if (auto ok = tournament::validate_spec(spec); !ok) return std::unexpected(ok.error());
  if (auto params = decode_skill_params(spec.ladder->rating); !params)
    return std::unexpected(params.error());
  auto all = ladders(store);
  if (!all) return std::unexpected(all.error());
  for (const auto& t : *all)
    if (t.name == spec.name)
      return fail(
          fmt::format("the store has a ladder \"{}\" already (ladder {})", spec.name, t.id));
  auto id = store.create_tournament(spec.name, spec.game, tournament::encode_spec(spec),
                                    tournament::planned_matches(spec), {});
  if (!id) return id;
  if (auto ok = store.set_ladder_state(*id, "running"); !ok) return std::unexpected(ok.error());
  return id;
}

std::string entrant_name(const std::string& bot, std::int64_t version,
                         const std::vector<Entrant>& taken) {
  constexpr std::size_t kLongest = 20;  // core/seat_name.h's rule
  std::string base;
  for (char c : bot)
    if (valid_seat_name(std::string_view(&c, 1))) base.push_back(c);
  if (base.empty()) base = "bot";
  const auto fit = [&](const std::string& tail) {
    return base.substr(0, kLongest - std::min(tail.size(), kLongest - 1)) + tail;
  };
  const auto free = [&](const std::string& name) {
    return std::none_of(taken.begin(), taken.end(),
                        [&](const Entrant& e) { return e.name == name; });
  };
  std::string name = fit(fmt::format("v{}", version));
  for (int n = 2; !free(name) || name.size() > kLongest; ++n)
    name = fit(fmt::format("v{}x{}", version, n)).substr(0, kLongest);
  return name;
}

Expected<Enrollment> enroll(Store& store, std::int64_t ladder) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    auto record = store.find_tournament(ladder);
    if (!record) return std::unexpected(record.error());
    if (!*record) return fail(fmt::format("no ladder {} in the store", ladder));
    auto spec = ladder_spec(**record);
    if (!spec) return std::unexpected(spec.error());
    auto state = store.ladder_state(ladder);
    if (!state) return std::unexpected(state.error());
    auto versions = store.bot_versions();
    if (!versions) return std::unexpected(versions.error());

    std::map<std::string, const tournament::BotVersion*> active;  // by "bot:NAME@V"
    for (const auto& v : *versions)
      if (v.game == spec->game && v.status == "active" && !v.artifact.empty())
        active.emplace(fmt::format("{}{}@{}", kStoredBotPrefix, v.name, v.version), &v);
    std::set<std::int64_t> benched(spec->ladder->benched.begin(), spec->ladder->benched.end());
    std::set<std::string> present;
    Enrollment e;
    for (std::size_t i = 0; i < spec->players.size(); ++i) {
      const Entrant& entrant = spec->players[i];
      if (!is_stored_bot(entrant.bot)) continue;
      present.insert(entrant.bot);
      const bool playing = active.contains(entrant.bot);
      const auto index = static_cast<std::int64_t>(i);
      if (!playing && !benched.contains(index)) {
        benched.insert(index);
        e.benched.push_back(entrant.bot);
      } else if (playing && benched.contains(index) && state->state != "frozen") {
        benched.erase(index);
        e.returned.push_back(entrant.bot);
      }
    }
    if (state->state != "frozen")
      for (const auto& [bot, v] : active) {
        if (present.contains(bot)) continue;
        Entrant entrant;
        entrant.name = entrant_name(v->name, v->version, spec->players);
        entrant.bot = bot;
        entrant.artifact = v->artifact;
        spec->players.push_back(std::move(entrant));
        e.joined.push_back(bot);
      }
    if (e.joined.empty() && e.benched.empty() && e.returned.empty()) return e;
    spec->ladder->benched.assign(benched.begin(), benched.end());
    auto swapped = store.replace_spec(ladder, (*record)->spec, tournament::encode_spec(*spec));
    if (!swapped) return std::unexpected(swapped.error());
    if (*swapped) return e;
  }
  return fail(fmt::format("ladder {}: its spec kept changing under enrollment", ladder));
}

std::string test_match_by(const Json& job_spec) {
  if (!job_spec.is_object()) return {};
  const auto it = job_spec.find("test");
  return it != job_spec.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Expected<std::int64_t> add_test_match(Store& store, std::int64_t ladder,
                                      const std::vector<std::string>& seats,
                                      const std::string& by) {
  if (auto enrolled = enroll(store, ladder); !enrolled) return std::unexpected(enrolled.error());
  for (int attempt = 0; attempt < 20; ++attempt) {
    auto spec = load_ladder_spec(store, ladder);
    if (!spec) return std::unexpected(spec.error());
    auto state = store.ladder_state(ladder);
    if (!state) return std::unexpected(state.error());
    if (state->state != "running")
      return fail(fmt::format("ladder {} is {}: no test matches now", spec->name, state->state));
    const auto count = static_cast<std::int64_t>(seats.size());
    if (count < spec->seats || count > spec->ladder->seats_max)
      return fail(spec->seats == spec->ladder->seats_max
                      ? fmt::format("ladder {} seats {}: name {} entrants", spec->name, spec->seats,
                                    spec->seats)
                      : fmt::format("ladder {} seats {} to {}: name that many entrants", spec->name,
                                    spec->seats, spec->ladder->seats_max));
    const std::set<std::int64_t> benched(spec->ladder->benched.begin(),
                                         spec->ladder->benched.end());
    std::vector<std::size_t> indices;
    for (const std::string& name : seats) {
      const auto it = std::find_if(spec->players.begin(), spec->players.end(),
                                   [&](const Entrant& e) { return e.name == name; });
      if (it == spec->players.end())
        return fail(
            fmt::format("ladder {} has no entrant \"{}\"", spec->name, escape_controls(name)));
      const auto index = static_cast<std::size_t>(it - spec->players.begin());
      if (benched.contains(static_cast<std::int64_t>(index)))
        return fail(fmt::format("{} is benched (its version is not active)", name));
      if (std::find(indices.begin(), indices.end(), index) != indices.end())
        return fail(fmt::format("{} is named twice", name));
      indices.push_back(index);
    }
    // After the last job, in its round: a test never takes an index the coordinator's next round
    // wants without add_round telling one of them to read the store again.
    auto queued = store.jobs(ladder, std::max<std::int64_t>(state->mark - 1, 0));
    if (!queued) return std::unexpected(queued.error());
    const std::int64_t index = queued->empty() ? 0 : queued->back().index + 1;
    const std::int64_t round = queued->empty() ? 0 : queued->back().round;
    tournament::JobSpec job = tournament::job(*spec, index, round, indices, index, index);
    job.spec["pair"] = index;  // a group of one: its log is shown once it is over
    job.spec["dealt"] = 1;
    job.spec["test"] = by;
    auto added = store.add_round(ladder, {job});
    if (!added) return std::unexpected(added.error());
    if (*added) return index;
  }
  return fail(fmt::format("ladder {}: its queue kept changing: try again", ladder));
}

// ---- ratings ----------------------------------------------------------------------------------

Expected<RatingBook> RatingBook::load(Store& store, std::int64_t ladder,
                                      const SkillParams& params) {
  RatingBook book(ladder, params);
  auto state = store.ladder_state(ladder);
  if (!state) return std::unexpected(state.error());
  auto rows = store.ratings(ladder);
  if (!rows) return std::unexpected(rows.error());
  book.mark_ = state->mark;
  for (const RatingStep& r : *rows)
    book.standings_[r.entrant] = {{r.mu, r.sigma}, r.games, r.index};
  return book;
}

Standing RatingBook::standing(std::int64_t entrant) const {
  if (auto it = standings_.find(entrant); it != standings_.end()) return it->second;
  return {{params_.mu, params_.sigma}, 0, -1};
}

std::vector<RatingStep> RatingBook::rate(const std::vector<StoredResult>& rows,
                                         std::size_t entrants, std::int64_t& mark) {
  std::vector<RatingStep> steps;
  for (const StoredResult& row : rows) {
    if (row.index < mark) continue;
    if (row.index != mark) break;  // a job before it has no result yet
    if (!test_match_by(row.spec).empty()) {
      ++mark;  // a test match someone asked for: never rated
      continue;
    }
    const auto finish =
        row.damage.empty() ? tournament::match_finish(row.spec, row.result) : std::nullopt;
    if (finish && finish->size() >= 2) {
      std::set<std::size_t> seen;
      bool known = true;
      for (const auto& f : *finish) {
        known = known && f.entrant < entrants;
        seen.insert(f.entrant);
      }
      if (!known) break;  // an entrant the caller's spec does not have yet
      if (seen.size() == finish->size()) {
        std::vector<Skill> seats;
        std::vector<int> places;
        for (const auto& f : *finish) {
          seats.push_back(standing(static_cast<std::int64_t>(f.entrant)).skill);
          places.push_back(f.place);
        }
        const auto rated = rate_match(seats, places, params_);
        for (std::size_t s = 0; s < finish->size(); ++s) {
          const auto entrant = static_cast<std::int64_t>((*finish)[s].entrant);
          Standing next = standing(entrant);
          next.skill = rated[s];
          ++next.games;
          next.last_index = row.index;
          standings_[entrant] = next;
          steps.push_back({row.index, entrant, next.skill.mu, next.skill.sigma, next.games,
                           (*finish)[s].place});
        }
      }
    }
    ++mark;  // an error, a damaged row or a match of one seat is passed unrated
  }
  mark_ = mark;
  return steps;
}

Expected<std::int64_t> RatingBook::catch_up(Store& store, const TournamentSpec& spec) {
  auto rows = store.results(ladder_, mark_);
  if (!rows) return std::unexpected(rows.error());
  return catch_up(store, spec, *rows);
}

Expected<std::int64_t> RatingBook::catch_up(Store& store, const TournamentSpec& spec,
                                            const std::vector<StoredResult>& rows) {
  RatingBook next = *this;
  std::int64_t mark = mark_;
  const auto steps = next.rate(rows, spec.players.size(), mark);
  if (mark == mark_) return 0;
  std::set<std::int64_t> rated;
  for (const auto& step : steps) rated.insert(step.index);
  const auto unrated = mark - mark_ - static_cast<std::int64_t>(rated.size());
  auto moved = store.record_ratings(ladder_, mark_, mark, steps, unrated);
  if (!moved || !*moved) {
    // Another process rated them first, or the write is in doubt: the store says which.
    auto fresh = load(store, ladder_, params_);
    if (fresh) *this = std::move(*fresh);
    if (!moved) return std::unexpected(moved.error());
    return 0;
  }
  const std::int64_t passed = mark - mark_;
  *this = std::move(next);
  return passed;
}

Expected<std::int64_t> rate_results(Store& store, std::int64_t ladder) {
  auto spec = load_ladder_spec(store, ladder);
  if (!spec) return std::unexpected(spec.error());
  auto params = decode_skill_params(spec->ladder->rating);
  if (!params) return std::unexpected(params.error());
  auto book = RatingBook::load(store, ladder, *params);
  if (!book) return std::unexpected(book.error());
  return book->catch_up(store, *spec);
}

Expected<std::vector<std::string>> verify_ratings(Store& store, std::int64_t ladder) {
  auto spec = load_ladder_spec(store, ladder);
  if (!spec) return std::unexpected(spec.error());
  auto params = decode_skill_params(spec->ladder->rating);
  if (!params) return std::unexpected(params.error());
  auto state = store.ladder_state(ladder);
  if (!state) return std::unexpected(state.error());
  auto rows = store.results(ladder);
  if (!rows) return std::unexpected(rows.error());
  std::erase_if(*rows, [&](const StoredResult& r) { return r.index >= state->mark; });
  RatingBook fresh(ladder, *params);
  std::int64_t mark = 0;
  const auto steps = fresh.rate(*rows, spec->players.size(), mark);
  std::vector<std::string> wrong;
  const auto note = [&](std::string line) {
    if (wrong.size() < 20) wrong.push_back(std::move(line));
  };
  if (mark != state->mark)
    note(fmt::format("the results rate up to match {}, the store's mark is {}", mark, state->mark));
  std::map<std::int64_t, std::vector<RatingStep>> by_entrant;
  for (const RatingStep& s : steps) by_entrant[s.entrant].push_back(s);
  for (std::size_t e = 0; e < spec->players.size(); ++e) {
    const auto entrant = static_cast<std::int64_t>(e);
    auto history = store.rating_history(ladder, entrant);
    if (!history) return std::unexpected(history.error());
    const auto& expected = by_entrant[entrant];
    if (history->size() != expected.size()) {
      note(fmt::format("{}: {} rated matches stored, {} in the results", spec->players[e].name,
                       history->size(), expected.size()));
      continue;
    }
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const RatingStep& a = (*history)[i];
      const RatingStep& b = expected[i];
      if (a.index != b.index || a.mu != b.mu || a.sigma != b.sigma || a.games != b.games ||
          a.place != b.place) {
        note(fmt::format("{} after match {}: stored mu {} sigma {}, recomputed mu {} sigma {}",
                         spec->players[e].name, b.index, a.mu, a.sigma, b.mu, b.sigma));
        break;
      }
    }
  }
  auto now = store.ratings(ladder);
  if (!now) return std::unexpected(now.error());
  for (const RatingStep& r : *now) {
    const Standing s = fresh.standing(r.entrant);
    if (r.mu != s.skill.mu || r.sigma != s.skill.sigma || r.games != s.games)
      note(fmt::format("entrant {}: its current rating is not its last step", r.entrant));
  }
  return wrong;
}

// ---- matchmaking rounds -----------------------------------------------------------------------

std::vector<tournament::JobSpec> plan_round(
    const TournamentSpec& spec, const RatingBook& book,
    const std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>>& pending,
    std::int64_t next_index, std::int64_t round, std::size_t groups) {
  const std::set<std::int64_t> benched(spec.ladder->benched.begin(), spec.ladder->benched.end());
  std::vector<Contender> contenders;
  contenders.reserve(spec.players.size());
  for (std::size_t i = 0; i < spec.players.size(); ++i) {
    const auto e = static_cast<std::int64_t>(i);
    if (benched.contains(e)) continue;
    const Standing s = book.standing(e);
    Contender c{i, s.skill, s.games, s.last_index};
    if (auto it = pending.find(e); it != pending.end()) {
      c.played += it->second.first;
      c.last_index = std::max(c.last_index, it->second.second);
    }
    contenders.push_back(c);
  }
  RoundTerms terms;
  terms.next_index = next_index;
  terms.seats_min = static_cast<std::size_t>(spec.seats);
  terms.seats_max = static_cast<std::size_t>(spec.ladder->seats_max);
  terms.groups = groups;
  terms.placement = spec.ladder->placement;
  terms.seed = seeds::ladder_round(spec.seed, round);
  std::vector<tournament::JobSpec> jobs;
  std::int64_t index = next_index;
  for (const auto& group : match_round(contenders, terms, book.params())) {
    const std::int64_t start = index;
    for (std::size_t r = 0; r < group.size(); ++r) {
      std::vector<std::size_t> seats(group.size());
      for (std::size_t s = 0; s < group.size(); ++s) seats[s] = group[(s + r) % group.size()];
      jobs.push_back(tournament::job(spec, index++, round, seats, start, start));
    }
  }
  return jobs;
}

// ---- the coordinator --------------------------------------------------------------------------

void Doorbell::ring() {
  {
    std::lock_guard lock(mu_);
    rung_ = true;
  }
  cv_.notify_all();
}

void Doorbell::wait(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return rung_; });
  rung_ = false;
}

namespace {

class Coordinator {
 public:
  static constexpr std::chrono::milliseconds kCoalesce{10};

  Coordinator(Store& store, std::int64_t ladder, const CoordinatorOptions& options)
      : store_(store), ladder_(ladder), options_(options), book_(ladder, {}) {}

  Expected<CoordinatorReport> run() {
    if (auto ok = reload(); !ok) return std::unexpected(ok.error());
    auto last_enroll = std::chrono::steady_clock::now() - options_.enroll_every;
    while (options_.stop == nullptr || !options_.stop->load()) {
      const auto passed = std::chrono::steady_clock::now();
      if (std::chrono::steady_clock::now() - last_enroll >= options_.enroll_every) {
        last_enroll = std::chrono::steady_clock::now();
        if (auto ok = enroll_versions(); !ok) return std::unexpected(ok.error());
      }
      if (auto ok = step(); !ok) return std::unexpected(ok.error());
      if (options_.beat) options_.beat();
      // A pass at most every kCoalesce: the results of that time are rated and refilled at once.
      const auto next = passed + kCoalesce;
      if (options_.bell != nullptr)
        options_.bell->wait(options_.poll);
      else
        std::this_thread::sleep_for(options_.poll);
      std::this_thread::sleep_until(next);
    }
    return report_;
  }

 private:
  Expected<void> reload() {
    auto spec = patiently([&] { return load_ladder_spec(store_, ladder_); });
    if (!spec) return std::unexpected(spec.error());
    auto params = decode_skill_params(spec->ladder->rating);
    if (!params) return std::unexpected(params.error());
    spec_ = std::move(*spec);
    auto book = patiently([&] { return RatingBook::load(store_, ladder_, *params); });
    if (!book) return std::unexpected(book.error());
    book_ = std::move(*book);
    return reload_pending();
  }

  // The jobs from the mark on (under way, or played and not rated yet), as the store has them.
  // Jobs are numbered without gaps and the mark passes only stored results, so the last of them
  // (or, without any, the one just below the mark) is the last job there is.
  Expected<void> reload_pending() {
    auto jobs = patiently([&] { return store_.jobs(ladder_, book_.mark()); });
    if (!jobs) return std::unexpected(jobs.error());
    pending_.clear();
    for (const auto& j : *jobs) pending_[j.index] = tournament::seated(j.spec);
    next_index_ = book_.mark();
    next_round_ = 0;
    if (!jobs->empty()) {
      next_index_ = jobs->back().index + 1;
      next_round_ = jobs->back().round + 1;
    } else if (book_.mark() > 0) {
      auto last = patiently([&] { return store_.jobs(ladder_, book_.mark() - 1); });
      if (!last) return std::unexpected(last.error());
      if (!last->empty()) next_round_ = last->back().round + 1;
    }
    return {};
  }

  Expected<void> enroll_versions() {
    auto e = patiently([&] { return enroll(store_, ladder_); });
    if (!e) return std::unexpected(e.error());
    report_.joined += static_cast<std::int64_t>(e->joined.size());
    report_.benched += static_cast<std::int64_t>(e->benched.size());
    if (options_.say) {
      for (const auto& b : e->joined) options_.say(fmt::format("{} joins the ladder", b.substr(4)));
      for (const auto& b : e->benched)
        options_.say(fmt::format("{} stops playing (no longer active)", b.substr(4)));
      for (const auto& b : e->returned) options_.say(fmt::format("{} plays again", b.substr(4)));
    }
    if (e->joined.empty() && e->benched.empty() && e->returned.empty()) return {};
    auto spec = patiently([&] { return load_ladder_spec(store_, ladder_); });
    if (!spec) return std::unexpected(spec.error());
    spec_ = std::move(*spec);
    return {};
  }

  // One pass: rate what arrived, then top the queue up with a round while the ladder runs.
  // Every read is bounded by the queue, not by the matches played so far.
  Expected<void> step() {
    auto rows = patiently([&] { return store_.results(ladder_, book_.mark()); });
    if (!rows) return std::unexpected(rows.error());
    auto passed = patiently([&] { return book_.catch_up(store_, spec_, *rows); });
    if (!passed) return std::unexpected(passed.error());
    report_.rated += *passed;
    pending_.erase(pending_.begin(), pending_.lower_bound(book_.mark()));
    // Jobs this coordinator did not add (another one's), or a result seating an entrant that
    // joined through another process: read everything again.
    auto beyond = patiently([&] { return store_.jobs(ladder_, next_index_); });
    if (!beyond) return std::unexpected(beyond.error());
    if (!beyond->empty() || max_pending_seat() >= spec_.players.size()) {
      if (auto ok = reload(); !ok) return ok;
    }
    auto state = patiently([&] { return store_.ladder_state(ladder_); });
    if (!state) return std::unexpected(state.error());
    if (std::find(std::begin(tournament::kLadderStates), std::end(tournament::kLadderStates),
                  state->state) == std::end(tournament::kLadderStates))
      return fail(
          fmt::format("ladder {}: its stored state \"{}\" is none of running, paused, "
                      "frozen",
                      spec_.name, escape_controls(state->state)));
    if (state->state != "running") return {};
    std::set<std::int64_t> played;
    for (const StoredResult& r : *rows) played.insert(r.index);
    std::int64_t unplayed = 0;
    for (const auto& [index, seats] : pending_) unplayed += played.contains(index) ? 0 : 1;
    // Refilled once half the queue is taken, by a round that fills it: fewer, larger rounds.
    if (unplayed > options_.queue / 2) return {};
    const double seats = static_cast<double>(spec_.seats + spec_.ladder->seats_max) / 2;
    const auto groups =
        static_cast<std::size_t>(std::ceil(static_cast<double>(options_.queue - unplayed) / seats));
    std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> under_way;
    for (const auto& [index, seats_of] : pending_)
      for (std::size_t e : seats_of) {
        auto& [count, last] = under_way[static_cast<std::int64_t>(e)];
        ++count;
        last = std::max(last, index);
      }
    auto jobs = plan_round(spec_, book_, under_way, next_index_, next_round_, groups);
    if (jobs.empty()) return {};
    // A round goes in whole or not at all: another coordinator's round at these indices wins,
    // and this one reads the store again (mixed rounds would split a seed's rotations).
    auto added = patiently([&] { return store_.add_round(ladder_, jobs); });
    if (!added) return std::unexpected(added.error());
    if (!*added) return reload();
    for (const auto& j : jobs) pending_[j.index] = tournament::seated(j.spec);
    next_index_ += static_cast<std::int64_t>(jobs.size());
    ++next_round_;
    ++report_.rounds;
    report_.enqueued += static_cast<std::int64_t>(jobs.size());
    return {};
  }

  std::size_t max_pending_seat() const {
    std::size_t top = 0;
    for (const auto& [index, seats] : pending_)
      for (std::size_t e : seats) top = std::max(top, e);
    return pending_.empty() ? 0 : top;
  }

  Store& store_;
  std::int64_t ladder_;
  const CoordinatorOptions& options_;
  TournamentSpec spec_;
  RatingBook book_;
  std::map<std::int64_t, std::vector<std::size_t>> pending_;  // index -> seats
  std::int64_t next_index_ = 0;
  std::int64_t next_round_ = 0;
  CoordinatorReport report_;
};

}  // namespace

Expected<CoordinatorReport> coordinate(Store& store, std::int64_t ladder,
                                       const CoordinatorOptions& options) {
  Coordinator c(store, ladder, options);
  return c.run();
}

// ---- the leaderboard --------------------------------------------------------------------------

Expected<Leaderboard> leaderboard(Store& store, std::int64_t ladder) {
  auto record = store.find_tournament(ladder);
  if (!record) return std::unexpected(record.error());
  if (!*record) return fail(fmt::format("no ladder {} in the store", ladder));
  auto spec = ladder_spec(**record);
  if (!spec) return std::unexpected(spec.error());
  auto params = decode_skill_params(spec->ladder->rating);
  if (!params) return std::unexpected(params.error());
  auto book = RatingBook::load(store, ladder, *params);
  if (!book) return std::unexpected(book.error());
  auto state = store.ladder_state(ladder);
  if (!state) return std::unexpected(state.error());
  auto progress = store.progress(ladder);
  if (!progress) return std::unexpected(progress.error());
  Leaderboard board;
  board.name = (*record)->name;
  board.game = spec->game;
  board.state = state->state;
  board.mark = state->mark;
  board.rated = state->rated();
  board.played = progress->done;
  board.queued = progress->enqueued - progress->done;
  board.params = *params;
  const std::set<std::int64_t> benched(spec->ladder->benched.begin(), spec->ladder->benched.end());
  for (std::size_t i = 0; i < spec->players.size(); ++i) {
    const auto e = static_cast<std::int64_t>(i);
    LeaderboardRow row;
    row.entrant = e;
    row.name = spec->players[i].name;
    row.bot = spec->players[i].bot;
    row.status = !is_stored_bot(row.bot) ? "anchor" : benched.contains(e) ? "benched" : "active";
    row.standing = book->standing(e);
    row.conservative = conservative(row.standing.skill, *params);
    board.rows.push_back(std::move(row));
  }
  std::stable_sort(board.rows.begin(), board.rows.end(),
                   [](const LeaderboardRow& a, const LeaderboardRow& b) {
                     return a.conservative > b.conservative;
                   });
  return board;
}

Expected<TournamentSpec> draw_finals(Store& store, std::int64_t ladder, const FinalsTerms& terms) {
  auto spec = load_ladder_spec(store, ladder);
  if (!spec) return std::unexpected(spec.error());
  auto state = store.ladder_state(ladder);
  if (!state) return std::unexpected(state.error());
  if (auto ok = store.set_ladder_state(ladder, "frozen"); !ok) return std::unexpected(ok.error());
  const auto thaw = [&] { (void)store.set_ladder_state(ladder, state->state); };
  if (auto rated = rate_results(store, ladder); !rated) {
    thaw();
    return std::unexpected(rated.error());
  }
  auto board = leaderboard(store, ladder);
  if (!board) {
    thaw();
    return std::unexpected(board.error());
  }
  TournamentSpec finals = tournament::new_tournament_spec();
  finals.name = spec->name + "-finals";
  finals.game = spec->game;
  finals.schedule = Schedule::round_robin;
  finals.seats = terms.seats > 0 ? terms.seats : spec->seats;
  finals.rounds = terms.rounds;
  finals.config = spec->config;
  finals.per_call_ms = spec->per_call_ms;
  finals.clock = spec->clock;
  finals.program = spec->program;
  for (const auto& row : board->rows) {
    if (finals.players.size() >= terms.top) break;
    if (row.status == "benched" || (row.status == "anchor" && !terms.anchors)) continue;
    finals.players.push_back(spec->players[static_cast<std::size_t>(row.entrant)]);
  }
  if (terms.seats > 0 && (terms.seats < spec->seats || terms.seats > spec->ladder->seats_max)) {
    thaw();
    return fail(fmt::format("--seats {}: the ladder seats {} to {}", terms.seats, spec->seats,
                            spec->ladder->seats_max));
  }
  if (finals.players.size() < 2 || finals.players.size() < static_cast<std::size_t>(finals.seats)) {
    thaw();
    return fail(fmt::format("ladder {} has {} entrant(s) to take to finals of {} seats", spec->name,
                            finals.players.size(), finals.seats));
  }
  if (auto ok = tournament::validate_spec(finals); !ok) {
    thaw();
    return std::unexpected(ok.error());
  }
  return finals;
}

std::string leaderboard_text(const Leaderboard& board) {
  std::string out =
      fmt::format("ladder {} ({}): {}, {} matches played, {} rated, {} queued\n", board.name,
                  board.game, board.state, board.played, board.rated, board.queued);
  std::size_t width = 4;
  for (const auto& r : board.rows)
    width = std::max(width, r.name.size() + shown_bot(r.bot).size() + 3);
  out += fmt::format("{:>4}  {:<{}}  {:>8}  {:>7}  {:>6}  {:>6}  {}\n", "#", "bot", width,
                     fmt::format("mu-{:g}s", board.params.z), "mu", "sigma", "games", "status");
  int rank = 0;
  for (const auto& r : board.rows) {
    const std::string who = fmt::format("{} ({})", r.name, shown_bot(r.bot));
    out += fmt::format("{:>4}  {:<{}}  {:>8.2f}  {:>7.2f}  {:>6.2f}  {:>6}  {}\n", ++rank, who,
                       width, r.conservative, r.standing.skill.mu, r.standing.skill.sigma,
                       r.standing.games, r.status);
  }
  return out;
}

Json leaderboard_json(const Leaderboard& board) {
  Json rows = Json::array();
  int rank = 0;
  for (const auto& r : board.rows)
    rows.push_back({{"rank", ++rank},
                    {"entrant", r.entrant},
                    {"name", r.name},
                    {"bot", shown_bot(r.bot)},
                    {"status", r.status},
                    {"conservative", r.conservative},
                    {"mu", r.standing.skill.mu},
                    {"sigma", r.standing.skill.sigma},
                    {"games", r.standing.games}});
  return {{"ladder", board.name},
          {"game", board.game},
          {"state", board.state},
          {"played", board.played},
          {"rated", board.rated},
          {"queued", board.queued},
          {"rating", encode_skill_params(board.params)},
          {"rows", rows}};
}

}  // namespace arbiter::league
