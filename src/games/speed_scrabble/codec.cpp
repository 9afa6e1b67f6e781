// Speed Scrabble's wire format.
#include <fmt/format.h>

#include "games/speed_scrabble/game.h"

namespace arbiter::speed_scrabble {
namespace {

// ["name", [args...]] with the expected name; the args array.
Expected<const Json*> message_args(const Json& j, std::string_view name, std::size_t count) {
  if (!j.is_array() || j.size() != 2 || !j[0].is_string() || !j[1].is_array())
    return fail(fmt::format("expected [\"{}\", [...]], got {}", name, excerpt(j)));
  if (j[0].get<std::string>() != name)
    return fail(fmt::format("expected a \"{}\" message, got {}", name, excerpt(j[0])));
  if (j[1].size() != count)
    return fail(fmt::format("\"{}\" takes {} argument(s), got {}", name, count, j[1].size()));
  return &j[1];
}

Json letters_json(std::string_view tiles) {
  Json out = Json::array();
  for (char c : tiles) out.push_back(std::string(1, c));
  return out;
}

Expected<Tiles> decode_letters(const Json& j, std::string_view what) {
  if (!j.is_array())
    return fail(fmt::format("{}: expected a list of letters, got {}", what, excerpt(j)));
  Tiles out;
  for (const Json& l : j) {
    if (!l.is_string() || l.get_ref<const std::string&>().size() != 1 ||
        l.get_ref<const std::string&>()[0] < 'A' || l.get_ref<const std::string&>()[0] > 'Z')
      return fail(fmt::format("{}: a letter is one of \"A\"..\"Z\", got {}", what, excerpt(l)));
    out += l.get_ref<const std::string&>()[0];
  }
  return out;
}

}  // namespace

Json encode(const Config& c) {
  return {{"players", c.players},
          {"hand", c.hand},
          {"start", c.start},
          {"bag", c.bag},
          {"dictionary", c.dictionary},
          {"stall_seconds", c.stall_seconds},
          {"max_seconds", c.max_seconds},
          {"max_invalid", c.max_invalid},
          {"max_rate", c.max_rate},
          {"max_bytes", c.max_bytes}};
}

Expected<Config> decode_config(const Json& j) {
  constexpr std::string_view what = "Speed Scrabble config";
  if (auto ok = only_keys(j,
                          {"players", "hand", "start", "bag", "dictionary", "stall_seconds",
                           "max_seconds", "max_invalid", "max_rate", "max_bytes"},
                          what);
      !ok)
    return std::unexpected(ok.error());
  Config c;
  struct IntField {
    const char* key;
    int* slot;
    int lo, hi;
  };
  for (const IntField& f : {IntField{"players", &c.players, kMinPlayers, kMaxPlayers},
                            IntField{"hand", &c.hand, 1, 144}, IntField{"start", &c.start, 1, 144},
                            IntField{"max_invalid", &c.max_invalid, 0, 1'000'000},
                            IntField{"max_rate", &c.max_rate, 1, 1'000'000},
                            IntField{"max_bytes", &c.max_bytes, 64, 1 << 20}}) {
    if (!j.contains(f.key)) continue;
    auto v = int_field(j, f.key, f.lo, f.hi, what);
    if (!v) return std::unexpected(v.error());
    *f.slot = *v;
  }
  for (auto [key, slot] :
       {std::pair{"stall_seconds", &c.stall_seconds}, std::pair{"max_seconds", &c.max_seconds}}) {
    if (!j.contains(key)) continue;
    const Json& v = j[key];
    if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 86400)
      return fail(
          fmt::format("{}: {} must be a number of seconds above 0 and at most 86400, got {}", what,
                      key, excerpt(v)));
    *slot = v.get<double>();
  }
  for (auto [key, slot] : {std::pair{"bag", &c.bag}, std::pair{"dictionary", &c.dictionary}}) {
    if (!j.contains(key)) continue;
    auto v = to_string(j[key], fmt::format("{}: {}", what, key));
    if (!v) return std::unexpected(v.error());
    *slot = *v;
  }
  const std::string bag = bag_letters(c.bag);
  if (bag.empty())
    return fail(fmt::format("{}: bag must be \"bananagrams\" or \"scrabble\", got {}", what,
                            excerpt(Json(c.bag))));
  if (c.start > c.hand)
    return fail(fmt::format("{}: start ({}) is more than hand ({})", what, c.start, c.hand));
  if (static_cast<std::size_t>(c.hand) * c.players > bag.size())
    return fail(fmt::format("{}: {} players x {} tiles need {} tiles, the {} bag has {}", what,
                            c.players, c.hand, c.hand * c.players, c.bag, bag.size()));
  if (c.dictionary.empty()) return fail(fmt::format("{}: dictionary is empty", what));
  return c;
}

Json encode(const Message& board) {
  return Json::array({"submit", Json::array({encode_board(board)})});
}

Expected<Message> decode_message(const Json& j) {
  auto args = message_args(j, "submit", 1);
  if (!args) return std::unexpected(args.error());
  return decode_board((**args)[0]);
}

Json encode(const Notice& n) {
  if (n.kind == Notice::Kind::new_tiles)
    return Json::array({"new-tiles", Json::array({letters_json(n.tiles)})});
  return Json::array({"verdict", Json::array({n.k, n.verdict})});
}

Expected<Notice> decode_notice(const Json& j) {
  Notice n;
  if (j.is_array() && !j.empty() && j[0] == "new-tiles") {
    auto args = message_args(j, "new-tiles", 1);
    if (!args) return std::unexpected(args.error());
    auto tiles = decode_letters((**args)[0], "new-tiles");
    if (!tiles) return std::unexpected(tiles.error());
    n.kind = Notice::Kind::new_tiles;
    n.tiles = std::move(*tiles);
    return n;
  }
  auto args = message_args(j, "verdict", 2);
  if (!args) return std::unexpected(args.error());
  auto k = to_int((**args)[0], "verdict: k");
  if (!k) return std::unexpected(k.error());
  auto text = to_string((**args)[1], "verdict: reason");
  if (!text) return std::unexpected(text.error());
  n.kind = Notice::Kind::verdict;
  n.k = static_cast<int>(*k);
  n.verdict = std::move(*text);
  return n;
}

Json encode_setup(const View& v) {
  return Json::array({"setup", Json::array({encode(v.config), letters_json(v.tiles)})});
}

Expected<View> decode_setup(const Json& j) {
  auto args = message_args(j, "setup", 2);
  if (!args) return std::unexpected(args.error());
  auto config = decode_config((**args)[0]);
  if (!config) return std::unexpected(config.error());
  auto tiles = decode_letters((**args)[1], "setup tiles");
  if (!tiles) return std::unexpected(tiles.error());
  return View{std::move(*config), std::move(*tiles)};
}

}  // namespace arbiter::speed_scrabble
