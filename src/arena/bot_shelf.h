// Seats played by stored bots (league/): "bot:NAME" (the newest active version) or "bot:NAME@V".
// The arena knows only this interface; the league implements it (fetching the version's files
// into a private cache, checked against their hash) and the hosting carries it, so that a
// worker on any machine runs the same files whatever its own disk holds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "remote/program_terms.h"

namespace arbiter {

struct PlaySpec;  // arena/registry.h

inline constexpr std::string_view kStoredBotPrefix = "bot:";

struct StoredBotRef {
  std::string name;
  std::optional<std::int64_t> version;  // none: the newest active one
  std::string text() const;             // "alice" or "alice@3"
};

// "bot:alice" or "bot:alice@3" (the name by core/seat_name.h's rule, the version from 1).
bool is_stored_bot(std::string_view bot);
// A bot as people read it: "alice@3" for "bot:alice@3", anything else as it is.
std::string shown_bot(std::string_view bot);
Expected<StoredBotRef> parse_stored_bot(std::string_view bot);

// What a stored bot's seat runs: its command in its own directory, under its terms.
struct ShelvedProgram {
  std::vector<std::string> argv;
  ProgramTerms terms;    // the organizer's, as the bot's manifest lowers them; dir: its files
  std::string artifact;  // the content hash of the files it runs
  std::string label;     // "alice@3"
};

class BotShelf {
 public:
  virtual ~BotShelf() = default;
  // The program for `ref` under the organizer's `terms`. `artifact`, when not empty, is the
  // hash the version was pinned to (a tournament's): another one is an Error. One-line Errors.
  // Thread-safe.
  virtual Expected<ShelvedProgram> take(const StoredBotRef& ref, const std::string& artifact,
                                        const ProgramTerms& terms) = 0;
};

// `spec` with each "bot:" seat made the "cmd:" seat its hosting's shelf gives (with the
// program's own terms and directory); others as they are. An Error, "player NAME: ...", when a
// seat's bot cannot be had or the hosting has no shelf.
Expected<PlaySpec> take_stored_bots(const PlaySpec& spec);

}  // namespace arbiter
