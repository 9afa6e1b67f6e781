// The players of a turn-based match, the same way for every game's registry entry: "cmd:" and
// "tcp" seats opened by open_remote_seats (arena/seating.h) and played by RemotePlayers, house
// bots made by the game's entry.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "arena/registry.h"
#include "arena/seating.h"
#include "core/rules.h"
#include "referee/turn_based.h"
#include "remote/remote_player.h"

namespace arbiter {

// The players of a roster for a turn-based game G: remote seats as RemotePlayers (or, when they
// could not start, UnstartedPlayers ejected at setup), house bots through `house(seating, seat)`
// (-> Expected<PlayerPtr<G>>; an Error stops the match before it starts).
template <Game G, class House>
Expected<std::vector<PlayerPtr<G>>> seat_players(const PlaySpec& spec, House house) {
  auto remote = open_remote_seats(spec);
  if (!remote) return fail(remote.error().message);
  std::vector<PlayerPtr<G>> players(spec.roster.size());
  for (std::size_t i = 0; i < spec.roster.size(); ++i) {
    const Seating& seat = spec.roster[i];
    if (auto& opened = (*remote)[i]) {
      if (!opened->failure.empty())
        players[i] = std::make_shared<UnstartedPlayer<G>>(seat.name, opened->failure);
      else
        players[i] = std::make_shared<RemotePlayer<G>>(seat.name, std::move(opened->channel),
                                                       std::move(opened->process));
      continue;
    }
    auto bot = house(seat, static_cast<Seat>(i));
    if (!bot) return fail(bot.error().message);
    players[i] = std::move(*bot);
  }
  return players;
}

}  // namespace arbiter
