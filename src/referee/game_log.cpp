#include "referee/game_log.h"

#include <algorithm>
#include <cassert>
#include <iterator>

#include <fmt/format.h>

namespace arbiter {

void GameLog::write(const Json& given) {
  Json with_hosting;
  const bool add = !hosting_.is_null() && given.is_object() && given.value("type", "") == "match";
  if (add) {
    with_hosting = given;
    with_hosting["hosting"] = hosting_;
  }
  const Json& line = add ? with_hosting : given;
  emit(wants_text() ? dump(line) : std::string(), &line);
}

void GameLog::write_text(std::string text) {
  if (!wants_lines()) {
    emit(text, nullptr);
  } else {
    auto line = parse_json(text);
    assert(line && "a record's text is JSON");
    emit(text, line ? &*line : nullptr);
  }
  spare_ = std::move(text);
}

bool GameLog::wants_text() const {
  return out_ != nullptr || file_ != nullptr ||
         std::any_of(observers_.begin(), observers_.end(),
                     [](const MatchObserver* o) { return o->wants_text(); });
}

bool GameLog::wants_lines() const {
  return keep_ || std::any_of(observers_.begin(), observers_.end(),
                              [](const MatchObserver* o) { return !o->wants_text(); });
}

void GameLog::emit(const std::string& text, const Json* line) {
  if (out_ != nullptr) {
    // One line per record, flushed, so a crash of the referee loses at most the record being
    // written.
    *out_ << text << '\n';
    out_->flush();
  }
  if (file_ != nullptr) file_->write(text + '\n');
  if (keep_ && line != nullptr) lines_.push_back(*line);
  for (MatchObserver* observer : observers_) {
    if (observer->wants_text())
      observer->on_text(text);
    else if (line != nullptr)
      observer->on_line(*line);
  }
}

void GameLog::watch(MatchObserver& observer) {
  observers_.push_back(&observer);
  frames_wanted_ = frames_wanted_ || observer.wants_frames();
}

void GameLog::unwatch(MatchObserver& observer) {
  std::erase(observers_, &observer);
  frames_wanted_ = false;
  for (MatchObserver* o : observers_) frames_wanted_ = frames_wanted_ || o->wants_frames();
}

void GameLog::show(const Json& frame) {
  for (MatchObserver* observer : observers_)
    if (observer->wants_frames()) observer->on_frame(frame);
}

Expected<std::vector<Json>> read_game_log(std::string_view all) {
  std::vector<Json> lines;
  int number = 0;
  while (!all.empty()) {
    ++number;
    const auto end = all.find('\n');
    const std::string_view text = all.substr(0, end);
    all.remove_prefix(end == std::string_view::npos ? all.size() : end + 1);
    if (text.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto j = parse_json(text);
    if (!j) return fail(fmt::format("line {}: {}", number, j.error().message));
    if (!j->is_object() || !j->contains("type") || !(*j)["type"].is_string())
      return fail(
          fmt::format("line {}: not a game-log record (an object with a \"type\")", number));
    lines.push_back(std::move(*j));
  }
  if (lines.empty()) return fail("the log is empty");
  return lines;
}

Expected<std::vector<Json>> read_game_log(std::istream& in) {
  std::string text(std::istreambuf_iterator<char>(in), {});
  if (in.bad()) return fail("cannot read the log");
  return read_game_log(std::string_view(text));
}

namespace {

bool is_timing(const std::string& key) {
  return key == "elapsed_us" || key == "cpu_us" || key == "clock_us" || key == "hosting";
}

}  // namespace

bool same_without_timing(const Json& a, const Json& b) {
  if (!a.is_object() || !b.is_object()) return a == b;
  // Both key orders are sorted: walk them side by side, skipping timing, comparing in place.
  auto i = a.begin(), j = b.begin();
  for (;;) {
    while (i != a.end() && is_timing(i.key())) ++i;
    while (j != b.end() && is_timing(j.key())) ++j;
    if (i == a.end() || j == b.end()) return i == a.end() && j == b.end();
    if (i.key() != j.key() || *i != *j) return false;
    ++i;
    ++j;
  }
}

Json without_timing(const Json& line) {
  Json copy = line;
  if (copy.is_object()) {
    copy.erase("elapsed_us");
    copy.erase("cpu_us");
    copy.erase("clock_us");
    copy.erase("hosting");
  }
  return copy;
}

std::optional<std::string> first_difference(const std::vector<Json>& expected,
                                            const std::vector<Json>& actual) {
  const std::size_t n = std::min(expected.size(), actual.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (same_without_timing(expected[i], actual[i])) continue;
    return fmt::format("line {} differs: recorded {} but replayed {}", i + 1,
                       excerpt(without_timing(expected[i]), 300),
                       excerpt(without_timing(actual[i]), 300));
  }
  if (expected.size() != actual.size())
    return fmt::format("the recorded log has {} lines, the replay {}", expected.size(),
                       actual.size());
  return std::nullopt;
}

}  // namespace arbiter
