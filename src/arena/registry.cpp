#include "arena/registry.h"

#include "arena/abalone.h"
#include "arena/dominosa.h"
#include "arena/speed_scrabble.h"
#include "arena/turn_based_entry.h"
#include "games/battleship/game.h"
#include "games/battleship/spectator.h"
#include "games/q/game.h"
#include "games/q/spectator.h"

namespace arbiter {

// The one list of games: a new game is its folder under src/games and one line here (with its
// entry: turn_based_entry<G>() for a turn-based game, or an entry file of its own in arena/).
const std::vector<GameEntry>& registered_games() {
  static const std::vector<GameEntry> games{
      with_spectator(turn_based_entry<q::Q>(), q::spectator_line),
      with_spectator(turn_based_entry<battleship::Battleship>(), battleship::spectator_line),
      speed_scrabble_entry(),
      dominosa_entry(),
      abalone_entry(),
  };
  return games;
}
GameEntry with_spectator(GameEntry entry, Json (*spectate)(const Json&)) {
  entry.spectate = spectate;
  return entry;
}

const GameEntry* find_game(std::string_view name) {
  for (const auto& g : registered_games())
    if (g.name == name) return &g;
  return nullptr;
}

bool is_house_bot(std::string_view game, std::string_view bot) {
  const GameEntry* entry = find_game(game);
  if (entry == nullptr) return false;
  const auto base = [](std::string_view b) { return b.substr(0, b.find_first_of("+=")); };
  for (const std::string& known : entry->house_bots)
    if (bot == known || base(bot) == base(known)) return true;
  return false;
}

}  // namespace arbiter
