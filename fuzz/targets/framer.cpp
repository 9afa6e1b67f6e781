// The framer (core/framer.h): the first two bytes choose the framing and the size cap, the
// rest is the byte stream, fed once whole and once in pieces whose sizes come from the input.
// Properties: a returned message's text is never longer than the cap; with lines framing the
// messages are exactly the model's (one per non-blank line, parsed alone); pieces change
// nothing before the first oversized message (from there the stream may be given up); after
// a fault for size the framer either goes on or fails for good; and what it returns, written
// back with Framer::encode, frames to the same messages.
#include <algorithm>
#include <vector>

#include "fuzz_support.h"
#include "core/framer.h"

using namespace arbiter;

namespace {

struct Item {
  bool ok = false;
  Json message;
  std::string fault;
  friend bool operator==(const Item&, const Item&) = default;
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool oversized(const Item& i) { return !i.ok && i.fault.starts_with("message larger than"); }

// Drains the framer; `text_lengths` gets each returned value's text length where it can be
// measured (the stream fed whole, values framing).
void drain(Framer& f, std::vector<Item>& out, std::string_view whole, std::size_t& pos,
           std::vector<std::size_t>* text_lengths) {
  for (int guard = 0; guard < 100000; ++guard) {
    std::size_t begin = pos;
    while (begin < whole.size() && is_space(whole[begin])) ++begin;
    auto r = f.next();
    pos = whole.size() - f.buffered();
    if (r && !*r) return;
    if (text_lengths != nullptr && (r || !oversized({false, {}, r.error().detail})) && pos > begin)
      text_lengths->push_back(pos - begin);
    if (r) {
      out.push_back({true, std::move(**r), {}});
    } else {
      FUZZ_CHECK(r.error().why == Why::malformed, "a framer fault that is not malformed");
      fuzz::check_error(Error{r.error().detail}, "framer fault");
      out.push_back({false, {}, r.error().detail});
      if (out.size() >= 2 && !out[out.size() - 2].ok && out.back() == out[out.size() - 2] &&
          oversized(out.back()))
        return;  // given up for good: every later call says the same
    }
  }
  FUZZ_CHECK(false, "next() neither ends nor gives up");
}

// Lines framing as the contract states it, for a stream fed whole.
std::vector<Item> model_lines(std::string_view s, std::size_t cap) {
  std::vector<Item> out;
  std::size_t start = 0;
  for (;;) {
    const auto nl = s.find('\n', start);
    if (nl == s.npos) {
      if (s.size() - start > cap) out.push_back({false, {}, "larger"});
      return out;
    }
    const std::string_view line = s.substr(start, nl - start);
    start = nl + 1;
    bool blank = true;
    for (char c : line) blank = blank && is_space(c);
    if (blank) continue;
    if (line.size() > cap) {
      out.push_back({false, {}, "larger"});
      continue;
    }
    auto j = parse_json(line);
    out.push_back(j ? Item{true, std::move(*j), {}} : Item{false, {}, "malformed"});
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const Framing framing = (data[0] & 1) != 0 ? Framing::values : Framing::lines;
  ChannelLimits limits;
  limits.max_message = 1 + data[1] % 64;
  const std::string_view stream = fuzz::text_of(data + 2, size - 2);

  Framer whole(framing, limits);
  whole.append(stream);
  std::vector<Item> at_once;
  std::vector<std::size_t> lengths;
  std::size_t pos = 0;
  drain(whole, at_once, stream, pos, framing == Framing::values ? &lengths : nullptr);
  for (std::size_t n : lengths)
    FUZZ_CHECK(n <= limits.max_message,
               "a value of " + std::to_string(n) + " bytes under a cap of " +
                   std::to_string(limits.max_message));

  if (framing == Framing::lines) {
    const auto model = model_lines(stream, limits.max_message);
    std::size_t k = 0;
    for (; k < model.size() && k < at_once.size(); ++k) {
      if (oversized(at_once[k]) || model[k].fault == "larger") {
        FUZZ_CHECK(oversized(at_once[k]) && model[k].fault == "larger",
                   "line " + std::to_string(k) + ": the framer and the model disagree on size");
      } else {
        FUZZ_CHECK(at_once[k].ok == model[k].ok && at_once[k].message == model[k].message,
                   "message " + std::to_string(k) + " differs from its line parsed alone");
      }
    }
  }

  // The same bytes in pieces: sizes from the stream's own bytes.
  Framer pieces(framing, limits);
  std::vector<Item> in_pieces;
  std::size_t fed = 0;
  for (std::size_t i = 0; fed < stream.size(); ++i) {
    const std::size_t n = std::min<std::size_t>(
        stream.size() - fed, 1 + static_cast<unsigned char>(stream[(i * 7) % stream.size()]) % 9);
    pieces.append(stream.substr(fed, n));
    fed += n;
    std::size_t unused = 0;
    drain(pieces, in_pieces, stream.substr(0, fed), unused, nullptr);
  }
  for (std::size_t k = 0; k < at_once.size() && k < in_pieces.size(); ++k) {
    if (oversized(at_once[k]) || oversized(in_pieces[k])) break;
    FUZZ_CHECK(at_once[k] == in_pieces[k],
               "message " + std::to_string(k) + " differs when the stream comes in pieces");
  }
  if (std::none_of(at_once.begin(), at_once.end(), oversized) &&
      std::none_of(in_pieces.begin(), in_pieces.end(), oversized))
    FUZZ_CHECK(at_once.size() == in_pieces.size(), "pieces change the number of messages");

  // What came out, written back: the same messages (under a cap that fits them).
  std::string again;
  std::vector<Json> messages;
  for (const Item& i : at_once)
    if (i.ok) {
      again += Framer::encode(i.message);
      messages.push_back(i.message);
    }
  Framer reframed(Framing::lines, ChannelLimits{});
  reframed.append(again);
  for (const Json& m : messages) {
    auto r = reframed.next();
    FUZZ_CHECK(r && *r && **r == m, "an encoded message does not frame back: " + dump(m));
  }
  auto rest = reframed.next();
  FUZZ_CHECK(rest && !*rest && !reframed.partial(), "Framer::encode leaves bytes behind");
  return 0;
}
