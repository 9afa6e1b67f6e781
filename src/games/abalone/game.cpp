// The lockstep scheduler and the bot API bindings.
#include "games/abalone/game.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "core/rng.h"
#include "games/abalone/gui.h"
#include "lua/sandbox.h"

namespace arbiter::abalone {
namespace {

// What a blocked bot waits for (§3 Waiting).
struct Wait {
  enum Kind { none, any_resolution, enemy_resolution } kind = none;
  std::int64_t after = 0;  // the resolution count (of any team, or of the enemy) it waits past
};

class Match;

// One team: its sandbox, its bots by PID, and what each bot waits for.
struct TeamRuntime {
  Team team;
  std::unique_ptr<lua::Sandbox> sandbox;
  std::map<Pid, std::unique_ptr<lua::Bot>> bots;
  std::map<Pid, Wait> waits;
  ExternalTeam* external = nullptr;  // set for a team played from outside (§8)
  Rng spawn_rng{0};                       // where this team's new pieces appear
  std::string failure;
  std::optional<Ejection> ejection;
};

class Match {
 public:
  Match(const Config& config, const Runtime& runtime, std::uint64_t seed,
        const MatchEvents& events)
      : config_(config),
        runtime_(runtime),
        events_(events),
        world_(World::start(config)) {
    for (Team t : kTeams) {
      lua::SandboxOptions options;
      options.memory_limit = runtime.memory_limit;
      options.seed = Rng::derive(seed, "abalone-lua", team_index(t));
      options.watchdog = runtime.watchdog;
      options.clock = runtime.clock;
      if (runtime.cpu_confirmed_watchdog) options.cpu_time = thread_cpu_time;
      auto& team = teams_[team_index(t)];
      team.team = t;
      // Each team's spawns draw from their own stream: one team's spawning never moves where
      // the other's pieces appear.
      team.spawn_rng = Rng(Rng::derive(seed, "abalone-spawn", team_index(t)));
      team.sandbox = std::make_unique<lua::Sandbox>(options);
      bind_api(team);
    }
  }

  ~Match() {
    for (auto& team : teams_) team.bots.clear();  // bots before their sandboxes
  }

  MatchSummary play(const TeamProgram& black, const TeamProgram& white) {
    log({{"type", "start"}, {"config", encode_config(config_)}, {"black", black.name},
         {"white", white.name}});
    const std::array<const TeamProgram*, 2> programs{&black, &white};
    for (Team t : kTeams) {
      auto& team = teams_[team_index(t)];
      team.external = programs[team_index(t)]->external;
      if (team.external != nullptr) continue;
      auto loaded = team.sandbox->load_team(programs[team_index(t)]->source,
                                            programs[team_index(t)]->name);
      if (!loaded) {
        forfeit(team, Why::exception, "setup", "the team does not load: " + loaded.error());
        continue;
      }
      const Pid first = t == Team::black ? 1 : 2;  // World::start's PIDs
      team.bots.emplace(first, team.sandbox->spawn_main(first));
    }
    for (Team t : kTeams) {
      auto& team = teams_[team_index(t)];
      if (team.external != nullptr && !world_.over()) set_up_external(team);
    }
    if (gui_enabled()) {
      for (const auto& line : gui_full(world_)) gui(line);
      before_ = world_;
      send_frame(0);
    }
    std::int64_t cycle = 0;
    while (!world_.over() && cycle < config_.game_length) {
      for (Team t : kTeams) {
        step_team(teams_[team_index(t)]);
        if (world_.over()) break;
      }
      ++cycle;
      cycle_ = cycle;
      const bool resolved = !world_.over() && cycle % config_.cycles_per_turn == 0 && resolve();
      flush_gui();
      if (resolved) gui(gui_turns(resolutions_));
      send_frame(cycle);
    }
    if (!world_.over()) world_.at_game_end();
    MatchSummary summary;
    summary.result = world_.result();
    summary.cycles = cycle;
    for (Team t : kTeams) {
      summary.scores[team_index(t)] = world_.score(t);
      summary.pieces[team_index(t)] = world_.piece_count(t);
      summary.failure[team_index(t)] = teams_[team_index(t)].failure;
      summary.ejections[team_index(t)] = teams_[team_index(t)].ejection;
    }
    log({{"type", "end"},
         {"cycle", cycle},
         {"reason", end_reason_name(summary.result.reason)},
         {"winner", summary.result.winner ? Json(team_name(*summary.result.winner)) : Json()},
         {"scores", summary.scores},
         {"pieces", summary.pieces},
         {"world", encode_world(world_)}});
    return summary;
  }

 private:
  void log(const Json& event) {
    if (events_.log) events_.log(event);
  }
  bool gui_enabled() const { return static_cast<bool>(events_.frame); }
  void gui(const std::string& line) {
    if (gui_enabled()) pending_gui_.push_back(line);
  }
  void flush_gui() {
    if (!gui_enabled()) return;
    for (const auto& line : gui_changes(before_, world_)) gui(line);
    before_ = world_;
  }
  void send_frame(std::int64_t cycle) {
    if (!gui_enabled() || pending_gui_.empty()) return;
    events_.frame({{"type", "frame"}, {"cycle", cycle}, {"gui", std::move(pending_gui_)}});
    pending_gui_.clear();
  }

  // The team's runtime failed as a whole (§5); the world ignores a forfeit once it is over.
  void forfeit(TeamRuntime& team, Why why, std::string call, std::string detail) {
    team.failure = detail;
    team.ejection = Ejection{static_cast<Seat>(team_index(team.team)), why, call, detail};
    log({{"type", "forfeit"},
         {"team", team_name(team.team)},
         {"why", detail},
         {"verdict", to_string(why)},
         {"call", call},
         {"cycle", cycle_}});
    world_.forfeit(team.team);
    if (team.external != nullptr) team.external->ejected(*team.ejection);
  }

  // §8 setup: the external team says how many pieces to spawn; each appears next to the
  // lowest-PID piece of the team with an empty neighbour.
  void set_up_external(TeamRuntime& team) {
    auto count = team.external->setup(encode_view(world_, team.team, resolutions_, cycle_));
    if (!count) {
      forfeit(team, count.error().why, "setup", count.error().detail);
      return;
    }
    const std::int64_t limit = config_.max_pieces - 1;
    if (*count < 0 || *count > limit) {
      forfeit(team, Why::foul, "setup",
              fmt::format("spawn-count: {} pieces to spawn, allowed 0..{}", *count, limit));
      return;
    }
    for (std::int64_t i = 0; i < *count; ++i) {
      std::optional<Pid> child;
      for (const Piece& p : world_.pieces()) {
        if (p.team != team.team) continue;
        const Pid parent = p.pid;
        child = world_.spawn(parent, team.spawn_rng);
        if (child) {
          log({{"type", "spawn"}, {"pid", *child}, {"parent", parent},
               {"hex", hex_name(world_.find(*child)->hex)}, {"cycle", cycle_}});
          break;
        }
      }
      if (!child) break;  // no room next to any piece
    }
  }

  // §8 take-turn: the external team's commitments, judged and recorded before its resolution.
  // False when the team forfeited instead.
  bool commit_external(TeamRuntime& team) {
    auto answer = team.external->take_turn(encode_view(world_, team.team, resolutions_, cycle_));
    if (!answer) {
      forfeit(team, answer.error().why, "take_turn", answer.error().detail);
      return false;
    }
    if (auto foul = check_commitments(world_, team.team, *answer)) {
      forfeit(team, Why::foul, "take_turn", foul->code + ": " + foul->detail);
      return false;
    }
    for (const Commitment& c : *answer) world_.commit(c.pid, c.dir);
    return true;
  }

  // The bot's piece leaves the board (§3: the enemy scores) and the bot is dropped.
  void end_bot(TeamRuntime& team, Pid pid, std::string_view why, const std::string& detail) {
    Json event{{"type", "end_bot"}, {"pid", pid}, {"team", team_name(team.team)},
               {"why", why}, {"cycle", cycle_}};
    if (!detail.empty()) event["detail"] = detail;
    log(event);
    world_.kill(pid);
    team.bots.erase(pid);
    team.waits.erase(pid);
  }

  bool waiting(TeamRuntime& team, Pid pid) const {
    auto it = team.waits.find(pid);
    if (it == team.waits.end() || it->second.kind == Wait::none) return false;
    const std::int64_t count = it->second.kind == Wait::any_resolution
                                   ? resolutions_
                                   : enemy_resolutions_[team_index(team.team)];
    return count <= it->second.after;
  }

  void step_team(TeamRuntime& team) {
    if (team.bots.empty()) return;
    team.sandbox->start_round();
    // Bots spawned during this pass start next cycle; PID order is the map's order.
    std::vector<Pid> order;
    for (const auto& [pid, bot] : team.bots) order.push_back(pid);
    for (Pid pid : order) {
      auto it = team.bots.find(pid);
      if (it == team.bots.end() || waiting(team, pid)) continue;
      team.waits.erase(pid);
      const lua::StepResult r = it->second->step(runtime_.step_budget);
      switch (r.status) {
        case lua::StepStatus::ran_out:
        case lua::StepStatus::yielded:
          break;
        case lua::StepStatus::blocked:
          break;  // the action recorded the wait
        case lua::StepStatus::finished:
          end_bot(team, pid, "returned", "");
          break;
        case lua::StepStatus::error:
          end_bot(team, pid, "error", r.detail);
          break;
        case lua::StepStatus::overrun:
          end_bot(team, pid, "overrun", r.detail);
          break;
        case lua::StepStatus::out_of_memory:
          forfeit(team, Why::exception, "step", "the team ran out of memory");
          return;
        case lua::StepStatus::watchdog:
          forfeit(team, Why::timeout, "step",
                  fmt::format("bot {} outlasted the step watchdog", pid));
          return;
      }
      if (world_.over()) return;
    }
  }

  // Resolves the next team's commitments; false when its external team forfeited instead.
  bool resolve() {
    const Team t = resolving_team(resolutions_);
    auto& resolving = teams_[team_index(t)];
    if (resolving.external != nullptr && !commit_external(resolving)) return false;
    const Resolution r = world_.resolve(t);
    ++resolutions_;
    ++enemy_resolutions_[team_index(enemy_of(t))];
    Json event = encode_resolution(r);
    event["type"] = "resolution";
    event["cycle"] = cycle_;
    log(event);
    for (Pid dead : r.killed()) {
      auto& victims = teams_[team_index(enemy_of(t))];
      log({{"type", "end_bot"}, {"pid", dead}, {"team", team_name(victims.team)},
           {"why", "pushed off"}, {"cycle", cycle_}});
      victims.bots.erase(dead);
      victims.waits.erase(dead);
    }
    return true;
  }

  // ---- The bot API of §4 ----

  void bind_api(TeamRuntime& team) {
    lua::Sandbox& box = *team.sandbox;
    const Team own = team.team;
    // Every action: charge its cost and find the calling piece (none during the chunk's load).
    auto caller = [this](lua_State* L) -> Pid {
      lua::Bot* bot = lua::Sandbox::current_bot(L);
      if (bot == nullptr) luaL_error(L, "bot actions are for bots, not the team chunk");
      lua::Sandbox::charge(L, runtime_.action_cost);
      return bot->pid();
    };
    box.define("mystat", [this, caller](lua_State* L) {
      const MyStat s = world_.mystat(caller(L));
      lua_pushinteger(L, s.r);
      lua_pushinteger(L, s.d);
      lua_pushinteger(L, s.dir);
      return 3;
    });
    box.define("teamstat", [this, caller, own](lua_State* L) {
      caller(L);
      for (Team t : {own, enemy_of(own)}) {
        const TeamStat s = world_.teamstat(t);
        lua_pushinteger(L, s.pieces);
        lua_pushinteger(L, s.score);
        lua_pushinteger(L, s.spawns_left);
      }
      return 6;
    });
    box.define("gamestat", [this, caller, own](lua_State* L) {
      caller(L);
      // Cycles until this team's next resolution.
      const std::int64_t per = config_.cycles_per_turn;
      std::int64_t next = resolutions_;
      while (resolving_team(next) != own) ++next;
      const std::int64_t at_cycle = (next + 1) * per;
      lua_pushinteger(L, resolutions_);
      lua_pushinteger(L, at_cycle - cycle_);
      return 2;
    });
    box.define("inspect", [this, caller, own](lua_State* L) {
      const lua_Integer r = luaL_checkinteger(L, 1);
      const lua_Integer d = luaL_checkinteger(L, 2);
      caller(L);
      lua_pushinteger(L, static_cast<int>(world_.inspect(own, r, d)));
      return 1;
    });
    box.define("look", [this, caller](lua_State* L) {
      const lua_Integer dir = luaL_checkinteger(L, 1);
      if (dir < 1 || dir > 6) luaL_error(L, "look: a direction is 1..6");
      const Pid pid = caller(L);
      const auto codes = world_.look(pid, dir);
      lua_createtable(L, static_cast<int>(codes.size()), 0);
      for (std::size_t i = 0; i < codes.size(); ++i) {
        lua_pushinteger(L, static_cast<int>(codes[i]));
        lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
      }
      return 1;
    });
    box.define("scan", [this, caller](lua_State* L) {
      const auto codes = world_.scan(caller(L));
      lua_createtable(L, 6, 0);
      for (std::size_t i = 0; i < codes.size(); ++i) {
        lua_pushinteger(L, static_cast<int>(codes[i]));
        lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
      }
      return 1;
    });
    box.define("commit", [this, caller](lua_State* L) {
      const lua_Integer dir = luaL_checkinteger(L, 1);
      if (dir < 0 || dir > 6) luaL_error(L, "commit: a direction is 0..6");
      world_.commit(caller(L), dir);
      return 0;
    });
    // The wait is recorded only where block() will yield rather than raise (it raises where the
    // bot cannot yield, e.g. inside a sort comparator); block() itself does not return.
    box.define("wait_turn", [this, caller, &team](lua_State* L) {
      const Pid pid = caller(L);
      if (lua_isyieldable(L)) team.waits[pid] = Wait{Wait::any_resolution, resolutions_};
      return lua::Sandbox::block(L, "wait_turn");
    });
    box.define("wait_my_turn", [this, caller, &team, own](lua_State* L) {
      const Pid pid = caller(L);
      if (lua_isyieldable(L))
        team.waits[pid] = Wait{Wait::enemy_resolution, enemy_resolutions_[team_index(own)]};
      return lua::Sandbox::block(L, "wait_my_turn");
    });
    box.define("talk", [this, caller, own](lua_State* L) {
      std::size_t size = 0;
      const char* text = luaL_checklstring(L, 1, &size);
      const Pid pid = caller(L);
      const std::string said = sanitize_say(std::string_view(text, size));
      // Speech costs an instruction per byte shown, so a bot's talk per cycle is bounded by its
      // budget and a chatty team cannot flood the log or the viewer.
      lua::Sandbox::charge(L, static_cast<int>(said.size()));
      log({{"type", "talk"}, {"pid", pid}, {"text", said}, {"cycle", cycle_}});
      gui(gui_say(own, said));
      return 0;
    });
    box.define("spawn", [this, caller, &team](lua_State* L) {
      luaL_checktype(L, 1, LUA_TFUNCTION);
      const Pid parent = caller(L);
      const std::optional<Pid> child = world_.spawn(parent, team.spawn_rng);
      if (child) {
        team.bots.emplace(*child, team.sandbox->spawn_function(L, 1, *child));
        log({{"type", "spawn"}, {"pid", *child}, {"parent", parent},
             {"hex", hex_name(world_.find(*child)->hex)}, {"cycle", cycle_}});
      }
      lua_pushboolean(L, child.has_value());
      return 1;
    });
  }

  Config config_;
  Runtime runtime_;
  const MatchEvents& events_;
  World world_;
  World before_ = world_;  // the world the GUI last saw
  std::vector<std::string> pending_gui_;  // the commands of the frame being drawn
  std::array<TeamRuntime, 2> teams_;
  std::int64_t cycle_ = 0;
  std::int64_t resolutions_ = 0;
  std::array<std::int64_t, 2> enemy_resolutions_{0, 0};  // per team: its enemy's resolutions
};

}  // namespace

Json encode_commitments(const std::vector<Commitment>& commitments) {
  Json out = Json::array();
  for (const Commitment& c : commitments) out.push_back({{"pid", c.pid}, {"dir", c.dir}});
  return out;
}

Expected<std::vector<Commitment>> decode_commitments(const Json& j) {
  if (!j.is_array()) return fail("commitments: expected an array, got " + excerpt(j));
  std::vector<Commitment> out;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const Json& item = j[i];
    const std::string where = fmt::format("commitment {}", i);
    if (!item.is_object() || item.size() != 2 || !item.contains("pid") || !item.contains("dir"))
      return fail(fmt::format("{}: expected {{\"pid\": P, \"dir\": D}}, got {}", where,
                              excerpt(item)));
    auto pid = to_int(item["pid"], where + " pid");
    if (!pid) return std::unexpected(pid.error());
    auto dir = to_int(item["dir"], where + " dir");
    if (!dir) return std::unexpected(dir.error());
    if (*pid < 1 || *pid > 1'000'000'000)
      return fail(fmt::format("{}: pid {} is not a PID", where, *pid));
    if (*dir < 0 || *dir > kDirCount)
      return fail(fmt::format("{}: dir {} is not 0..6", where, *dir));
    out.push_back({static_cast<Pid>(*pid), static_cast<Dir>(*dir)});
  }
  return out;
}

std::optional<Foul> check_commitments(const World& w, Team team,
                                      const std::vector<Commitment>& commitments) {
  std::vector<Pid> seen;
  for (const Commitment& c : commitments) {
    const Piece* p = w.find(c.pid);
    if (p == nullptr || p->team != team)
      return Foul{"not-own-piece", fmt::format("PID {} is not a live {} piece", c.pid,
                                               team_name(team))};
    if (std::find(seen.begin(), seen.end(), c.pid) != seen.end())
      return Foul{"repeated-piece", fmt::format("PID {} is committed twice", c.pid)};
    seen.push_back(c.pid);
  }
  return std::nullopt;
}

Json encode_view(const World& w, Team team, std::int64_t turn, std::int64_t cycle) {
  Json view = encode_world(w);
  view["team"] = team_name(team);
  view["turn"] = turn;
  view["cycle"] = cycle;
  return view;
}

MatchSummary play_match(const Config& config, const Runtime& runtime, std::uint64_t seed,
                        const TeamProgram& black, const TeamProgram& white,
                        const MatchEvents& events) {
  Match match(config, runtime, seed, events);
  return match.play(black, white);
}

}  // namespace arbiter::abalone
