#include "arena/bot_shelf.h"

#include <charconv>

#include <fmt/format.h>

#include "arena/registry.h"
#include "core/printable.h"
#include "core/seat_name.h"
#include "core/shell_words.h"

namespace arbiter {

std::string StoredBotRef::text() const {
  return version ? fmt::format("{}@{}", name, *version) : name;
}

bool is_stored_bot(std::string_view bot) {
  return bot.starts_with(kStoredBotPrefix);
}

std::string shown_bot(std::string_view bot) {
  return std::string(is_stored_bot(bot) ? bot.substr(kStoredBotPrefix.size()) : bot);
}

Expected<StoredBotRef> parse_stored_bot(std::string_view bot) {
  if (!is_stored_bot(bot)) return fail("not a stored bot (bot:NAME or bot:NAME@VERSION)");
  std::string_view rest = bot.substr(kStoredBotPrefix.size());
  StoredBotRef ref;
  const auto at = rest.find('@');
  ref.name = std::string(rest.substr(0, at));
  if (!valid_seat_name(ref.name))
    return fail(
        fmt::format("bot:\"{}\": a stored bot's {}", printable_line(ref.name), kSeatNameRule));
  if (at != std::string_view::npos) {
    const std::string_view v = rest.substr(at + 1);
    std::int64_t version = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), version);
    if (ec != std::errc() || end != v.data() + v.size() || version < 1)
      return fail(
          fmt::format("bot:{}: \"{}\" is not a version (1, 2, ...)", ref.name, printable_line(v)));
    ref.version = version;
  }
  return ref;
}

Expected<PlaySpec> take_stored_bots(const PlaySpec& spec) {
  PlaySpec out = spec;
  for (Seating& seat : out.roster) {
    if (!is_stored_bot(seat.bot)) continue;
    const auto refuse = [&](const std::string& why) {
      return fail(fmt::format("player {}: {}", seat.name, why));
    };
    auto ref = parse_stored_bot(seat.bot);
    if (!ref) return refuse(ref.error().message);
    if (spec.hosting.shelf == nullptr)
      return refuse(
          fmt::format("{} is a stored bot; give the store that holds it (--store)", seat.bot));
    auto program = spec.hosting.shelf->take(*ref, seat.artifact,
                                            seat.program ? *seat.program : spec.hosting.program);
    if (!program) return refuse(program.error().message);
    seat.bot = "cmd:" + join_shell_words(program->argv);
    seat.program = program->terms;
    seat.artifact = program->artifact;
  }
  return out;
}

}  // namespace arbiter
