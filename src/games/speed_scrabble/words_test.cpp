// Tests for Speed Scrabble's dictionaries and board validator (docs/games/speed_scrabble.md §1.2).
#include "games/speed_scrabble/words.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace arbiter::speed_scrabble {
namespace {

const Dictionary& small() {
  static const Dictionary d =
      Dictionary::of({"cat", "cats", "at", "to", "ta", "act", "tact", "go", "dog", "god", "OX",
                      "zoo", "quiz", "a", "it's", "naïve", "ANTIDISESTABLISHMENTARIANISM", "as"},
                     "small");
  return d;
}

TEST(Dictionary, KeepsWordsOfTwoOrMoreLettersUpperCased) {
  const Dictionary& d = small();
  EXPECT_TRUE(d.contains("CAT"));
  EXPECT_TRUE(d.contains("OX"));
  EXPECT_TRUE(d.contains("ANTIDISESTABLISHMENTARIANISM"));  // too long to pack
  EXPECT_FALSE(d.contains("ANTIDISESTABLISHMENTARIANIS"));
  EXPECT_FALSE(d.contains("cat"));  // membership is for upper-case words
  EXPECT_FALSE(d.contains("A"));    // one letter
  EXPECT_FALSE(d.contains("CA"));
  EXPECT_FALSE(d.contains("CATS2"));
  EXPECT_FALSE(d.contains(""));
  EXPECT_EQ(d.skipped(), 3u);  // "a", "it's", "naïve"
  EXPECT_EQ(d.name(), "small");
  EXPECT_TRUE(std::is_sorted(d.words().begin(), d.words().end()));
}

TEST(Dictionary, PackedKeysDoNotCollideAcrossLengths) {
  // "ZZ" packs to 26*32+26 and must not answer for anything else.
  const Dictionary d = Dictionary::of({"zz", "aaaaaaaaaaaa", "zzzzzzzzzzzz"});
  EXPECT_TRUE(d.contains("ZZ"));
  EXPECT_TRUE(d.contains("AAAAAAAAAAAA"));
  EXPECT_TRUE(d.contains("ZZZZZZZZZZZZ"));
  EXPECT_FALSE(d.contains("AZZ"));
  EXPECT_FALSE(d.contains("AAAAAAAAAAA"));
  EXPECT_FALSE(d.contains("Z"));
}

TEST(Dictionary, FromAFile) {
  const auto path = std::filesystem::temp_directory_path() / "arbiter_words_test.txt";
  {
    std::ofstream out(path);
    out << "Hello\r\nworld\n\nx\nnot-a-word\n";
  }
  auto d = Dictionary::file(path);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_TRUE(d->contains("HELLO"));
  EXPECT_TRUE(d->contains("WORLD"));
  EXPECT_EQ(d->words().size(), 2u);
  EXPECT_EQ(d->name(), "arbiter_words_test.txt");
  std::filesystem::remove(path);
  EXPECT_FALSE(Dictionary::file(path));
  EXPECT_NE(Dictionary::file(path).error().message.find("arbiter_words_test.txt: No such file"),
            std::string::npos);
}

TEST(Dictionary, ScowlSeventy) {
  auto d = Dictionary::scowl(70);
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ(d->name(), "scowl-70");
  EXPECT_GT(d->words().size(), 100'000u);
  for (const char* w : {"QUIZ", "CAT", "ZEBRA", "COLOUR", "COLOR", "QI"})
    EXPECT_TRUE(d->contains(w)) << w;
  EXPECT_FALSE(d->contains("QXZ"));
  EXPECT_FALSE(Dictionary::scowl(71));
  EXPECT_FALSE(Dictionary::scowl(70, "/nonexistent"));
  EXPECT_NE(Dictionary::scowl(70, "/nonexistent").error().message.find("scowl"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Validation

std::string problem(const Board& b, std::string_view dealt) {
  return board_problem(b, dealt, small());
}

TEST(Validator, AcceptsACrossword) {
  // C A T S
  // . . A .
  // . . C .
  // . . T .
  EXPECT_EQ(problem({"CATS", "..A.", "..C.", "..T."}, "CATSACT"), "");
  EXPECT_EQ(problem({"CATS", "..A.", "..C.", "..T."}, "TCATSAC"), "");  // any order of dealt
  EXPECT_EQ(problem({"..DOG", "....O", "....D"}, "DOGOD"), "");
}

TEST(Validator, ALoneLetterIsABoardOnlyForOneTile) {
  EXPECT_EQ(problem({"Q"}, "Q"), "");
  EXPECT_EQ(problem({"..", ".Q"}, "Q"), "");
}

TEST(Validator, Shape) {
  EXPECT_EQ(problem({}, "A").rfind("shape:", 0), 0u);
  EXPECT_EQ(problem({""}, "A").rfind("shape:", 0), 0u);
  EXPECT_EQ(problem({"CAT", "AT"}, "CATAT").rfind("shape:", 0), 0u);
  EXPECT_EQ(problem({"cat"}, "CAT").rfind("shape:", 0), 0u);
  EXPECT_EQ(problem({"C T"}, "CT").rfind("shape:", 0), 0u);
  EXPECT_EQ(problem({std::string(33, '.')}, "A").rfind("shape:", 0), 0u);  // oversized
  EXPECT_EQ(problem(Board(33, "A"), "A").rfind("shape:", 0), 0u);
  Board max(32, std::string(32, '.'));
  max[31][30] = 'A';
  max[31][31] = 'T';
  EXPECT_EQ(problem(max, "AT"), "");
}

TEST(Validator, WrongOrExtraLetters) {
  EXPECT_EQ(problem({"CAT"}, "CAB"), "letters: missing B");
  EXPECT_EQ(problem({"CATS"}, "CAT"), "letters: extra S");
  EXPECT_EQ(problem({"CAT"}, "CATS"), "letters: missing S");
  EXPECT_EQ(problem({"TACT"}, "TACA"), "letters: missing A");  // counts matter, not just sets
  EXPECT_EQ(problem({"..."}, ""), "letters: the board is empty");
}

TEST(Validator, Disconnected) {
  EXPECT_EQ(problem({"CAT.", "....", "GO.."}, "CATGO").rfind("disconnected:", 0), 0u);
  // Diagonal contact is not a connection.
  EXPECT_EQ(problem({"AT..", "..GO"}, "ATGO").rfind("disconnected:", 0), 0u);
}

TEST(Validator, EveryRunMustBeAWord) {
  EXPECT_EQ(problem({"CAX"}, "CAX"), "word: not a word: CAX (row 0)");
  // A valid row but an invalid column: T over O makes "TO" (fine), A over O makes "AO".
  EXPECT_EQ(problem({"CAT", ".O."}, "CATO"), "word: not a word: AO (column 1, from row 0)");
  // Two words side by side form one run: "AT" + "GO" touching is "ATGO".
  EXPECT_EQ(problem({"ATGO"}, "ATGO"), "word: not a word: ATGO (row 0)");
}

TEST(Validator, GarbageDecodes) {
  EXPECT_FALSE(decode_board(Json("CAT")));
  EXPECT_FALSE(decode_board(Json::array({"CAT", 3})));
  EXPECT_FALSE(decode_board(Json::array({"CAT", "CA"})));
  EXPECT_FALSE(decode_board(Json::array()));
  EXPECT_FALSE(decode_board(Json::array({"ca t"})));
  auto ok = decode_board(Json::array({"CAT", "..."}));
  ASSERT_TRUE(ok);
  EXPECT_EQ(encode_board(*ok), Json::array({"CAT", "..."}));
}

}  // namespace
}  // namespace arbiter::speed_scrabble
