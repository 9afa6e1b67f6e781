// SHA-256 against the FIPS 180-4 examples and the padding edges (55, 56 and 64 bytes), checked
// with coreutils' sha256sum.
#include "core/sha256.h"

#include "core/entropy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace arbiter {
namespace {

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1'000'000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// RFC 4231's test cases 1, 2 and 6 (a key longer than a block).
TEST(Sha256, HmacKnownDigests) {
  const auto hex = [](const std::array<std::uint8_t, 32>& d) {
    return to_hex(std::string_view(reinterpret_cast<const char*>(d.data()), d.size()));
  };
  EXPECT_EQ(hex(hmac_sha256(std::string(20, '\x0b'), "Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(hex(hmac_sha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(hex(hmac_sha256(std::string(131, '\xaa'),
                            "Test Using Larger Than Block-Size Key - Hash Key First")),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(Entropy, HexRoundTripsAndDrawsDiffer) {
  EXPECT_EQ(to_hex(std::string("\x00\xff\x10", 3)), "00ff10");
  EXPECT_EQ(*from_hex("00FF10"), std::string("\x00\xff\x10", 3));
  EXPECT_FALSE(from_hex("abc"));
  EXPECT_FALSE(from_hex("zz"));
  EXPECT_EQ(unguessable_bytes(16).size(), 16u);
  EXPECT_NE(unguessable_bytes(16), unguessable_bytes(16));
  EXPECT_NE(unguessable_seed(), unguessable_seed());
}

TEST(Sha256, PaddingEdges) {
  EXPECT_EQ(sha256_hex(std::string(55, 'x')),
            "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072");
  EXPECT_EQ(sha256_hex(std::string(56, 'x')),
            "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e");
  EXPECT_EQ(sha256_hex(std::string(64, 'x')),
            "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c");
}

// Property: any split of the data into pieces gives the one-shot digest.
TEST(Sha256, PiecesGiveTheDigestOfTheWhole) {
  std::string data;
  for (int i = 0; i < 1000; ++i) data += static_cast<char>((i * 131 + 7) % 251);
  const std::string whole = sha256_hex(data);
  std::uint32_t state = 12345;
  for (int round = 0; round < 200; ++round) {
    Sha256 s;
    for (std::size_t at = 0; at < data.size();) {
      state = state * 1103515245u + 12345u;
      const std::size_t take = std::min<std::size_t>(data.size() - at, (state >> 16) % 150);
      s.update(std::string_view(data).substr(at, take));
      at += take;
    }
    EXPECT_EQ(s.hex(), whole) << "round " << round;
  }
}

TEST(Sha256, OneBitChangesTheDigest) {
  std::string a(200, 'q');
  std::string b = a;
  b[100] ^= 1;
  EXPECT_NE(sha256(a), sha256(b));
  EXPECT_EQ(sha256(a), sha256(a));
}

}  // namespace
}  // namespace arbiter
