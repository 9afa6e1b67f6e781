// zlib at level 1: most of the size gain of higher levels at a fraction of the time.
#include "tournament/log_codec.h"

#include <zlib.h>

#include <cstring>

namespace arbiter::tournament {
namespace {

constexpr char kTag[] = "ZLB1";
constexpr std::size_t kTagSize = 4;
constexpr std::size_t kPiece = std::size_t{1} << 16;

}  // namespace

std::string pack_log(const std::string& log) {
  uLongf size = compressBound(static_cast<uLong>(log.size()));
  std::string out(kTagSize + 8 + size, '\0');
  std::memcpy(out.data(), kTag, kTagSize);
  const std::uint64_t length = log.size();
  std::memcpy(out.data() + kTagSize, &length, 8);
  const int rc = compress2(reinterpret_cast<Bytef*>(out.data() + kTagSize + 8), &size,
                           reinterpret_cast<const Bytef*>(log.data()),
                           static_cast<uLong>(log.size()), 1);
  if (rc != Z_OK) return log;  // only out of memory; the log is then kept as it is
  out.resize(kTagSize + 8 + size);
  return out;
}

Expected<std::string> unpack_log(const std::string& stored) {
  if (stored.size() < kTagSize + 8 || std::memcmp(stored.data(), kTag, kTagSize) != 0)
    return stored;
  std::uint64_t length = 0;
  std::memcpy(&length, stored.data() + kTagSize, 8);
  // zlib inflates at most about 1032 to 1; a length beyond that, or beyond 1 GiB, is a lie
  // (it would be allocated before the bytes could say otherwise).
  const std::uint64_t packed = stored.size() - kTagSize - 8;
  if (length > (std::uint64_t{1} << 30) || length > packed * 1032 + 64)
    return fail("a stored game log is damaged (its length)");
  std::string out(length, '\0');
  uLongf size = static_cast<uLongf>(length);
  const int rc = uncompress(reinterpret_cast<Bytef*>(out.data()), &size,
                            reinterpret_cast<const Bytef*>(stored.data() + kTagSize + 8),
                            static_cast<uLong>(stored.size() - kTagSize - 8));
  if (rc != Z_OK || size != length) return fail("a stored game log is damaged (it does not inflate)");
  return out;
}

Expected<void> inflate_log(const std::string& stored,
                           const std::function<bool(std::string_view)>& sink) {
  if (stored.size() < kTagSize + 8 || std::memcmp(stored.data(), kTag, kTagSize) != 0) {
    for (std::size_t at = 0; at < stored.size(); at += kPiece)
      if (!sink(std::string_view(stored).substr(at, kPiece))) return {};
    return {};
  }
  std::uint64_t length = 0;
  std::memcpy(&length, stored.data() + kTagSize, 8);
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return fail("out of memory inflating a stored game log");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stored.data() + kTagSize + 8));
  z.avail_in = static_cast<uInt>(stored.size() - kTagSize - 8);
  std::string piece(kPiece, '\0');
  std::uint64_t produced = 0;
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(piece.data());
    z.avail_out = static_cast<uInt>(piece.size());
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    const std::size_t n = piece.size() - z.avail_out;
    produced += n;
    if (produced > length) break;
    if (n > 0 && !sink(std::string_view(piece.data(), n))) {
      inflateEnd(&z);
      return {};
    }
    if (n == 0 && rc == Z_OK && z.avail_in == 0) break;  // truncated: no more input, no end
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END || produced != length)
    return fail("a stored game log is damaged (it does not inflate)");
  return {};
}

Expected<Json> decode_stderr_tails(const std::string& stored) {
  auto text = unpack_log(stored);
  if (!text) return std::unexpected(text.error());
  auto tails = parse_json(*text);
  if (!tails) return fail("stored stderr tails: " + tails.error().message);
  if (!tails->is_array()) return fail("stored stderr tails: expected a list");
  for (const Json& t : *tails) {
    if (auto ok = only_keys(t, {"seat", "bytes", "tail"}, "a stored stderr tail"); !ok)
      return std::unexpected(ok.error());
    if (!field_or_null(t, "seat").is_string() || !field_or_null(t, "bytes").is_number_unsigned() ||
        !field_or_null(t, "tail").is_string())
      return fail("a stored stderr tail: expected seat, bytes and tail");
  }
  return tails;
}

}  // namespace arbiter::tournament
