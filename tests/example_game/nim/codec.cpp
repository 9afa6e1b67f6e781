#include "codec.h"

#include <fmt/format.h>

namespace arbiter::nim {
namespace {

// Actions are decoded leniently (any integers in this range); the rules judge them.
constexpr int kLimit = 1000000;

Expected<std::vector<int>> decode_heaps(const Json& j, std::string_view what) {
  if (!j.is_array() || j.empty() || j.size() > static_cast<std::size_t>(kMaxHeaps))
    return fail(fmt::format("{}: heaps: expected a list of 1 to {} heap sizes, got {}", what,
                            kMaxHeaps, excerpt(j)));
  std::vector<int> heaps;
  for (const Json& h : j) {
    auto n = to_int(h, fmt::format("{}: heaps", what));
    if (!n) return std::unexpected(n.error());
    if (*n < 0 || *n > kMaxHeap)
      return fail(fmt::format("{}: heaps: {} is not a heap size (0 to {})", what, *n, kMaxHeap));
    heaps.push_back(static_cast<int>(*n));
  }
  return heaps;
}

}  // namespace

Json encode_action(const Action& a) { return Json{{"heap", a.heap}, {"take", a.take}}; }

Json encode_view(const View& v) {
  return Json{{"heaps", v.heaps}, {"max_take", v.max_take}, {"you", v.you}};
}

Json encode_config(const Config& c) { return Json{{"heaps", c.heaps}, {"max_take", c.max_take}}; }

Expected<Action> decode_action(const Json& j) {
  constexpr std::string_view what = "Nim action";
  if (!j.is_object()) return fail(fmt::format("{}: expected an object, got {}", what, excerpt(j)));
  if (auto ok = only_keys(j, {"heap", "take"}, what); !ok) return std::unexpected(ok.error());
  auto heap = int_field(j, "heap", -kLimit, kLimit, what);
  if (!heap) return std::unexpected(heap.error());
  auto take = int_field(j, "take", -kLimit, kLimit, what);
  if (!take) return std::unexpected(take.error());
  return Action{*heap, *take};
}

Expected<View> decode_view(const Json& j) {
  constexpr std::string_view what = "Nim view";
  if (!j.is_object()) return fail(fmt::format("{}: expected an object, got {}", what, excerpt(j)));
  if (auto ok = only_keys(j, {"heaps", "max_take", "you"}, what); !ok)
    return std::unexpected(ok.error());
  auto heaps_field = member(j, "heaps", what);
  if (!heaps_field) return std::unexpected(heaps_field.error());
  auto heaps = decode_heaps(**heaps_field, what);
  if (!heaps) return std::unexpected(heaps.error());
  auto max_take = int_field(j, "max_take", 1, kMaxHeap, what);
  if (!max_take) return std::unexpected(max_take.error());
  auto you = int_field(j, "you", 0, 1, what);
  if (!you) return std::unexpected(you.error());
  return View{std::move(*heaps), *max_take, static_cast<Seat>(*you)};
}

Expected<Config> decode_config(const Json& j) {
  constexpr std::string_view what = "Nim config";
  if (!j.is_object()) return fail(fmt::format("{}: expected an object, got {}", what, excerpt(j)));
  if (auto ok = only_keys(j, {"heaps", "max_take"}, what); !ok) return std::unexpected(ok.error());
  Config c;
  if (j.contains("heaps")) {
    auto heaps = decode_heaps(j["heaps"], what);
    if (!heaps) return std::unexpected(heaps.error());
    c.heaps = std::move(*heaps);
  }
  if (j.contains("max_take")) {
    auto max_take = int_field(j, "max_take", 1, kMaxHeap, what);
    if (!max_take) return std::unexpected(max_take.error());
    c.max_take = *max_take;
  }
  bool any = false;
  for (int h : c.heaps) any = any || h > 0;
  if (!any) return fail(fmt::format("{}: heaps: at least one heap must hold an object", what));
  return c;
}

}  // namespace arbiter::nim
