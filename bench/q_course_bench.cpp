// q_course_bench: how many times a second arbiter plays one course game (milestone 7 or 8 input:
// a JState and the actors), warm, in one process. A plain program, not Google Benchmark: its
// unit is a whole course input, and it can run a reference implementation side by side.
//
//   q_course_bench SECONDS [--harness xgames|xgames-with-observer] < N-in.json
//     one JSON line: {"games":N,"seconds":S,"games_per_s":R,"result":RESULT}
//   q_course_bench SECONDS --reference "CMD" < N-in.json
//     also runs `CMD --bench SECONDS < N-in.json` (any program that prints the line above) and
//     prints one JSON line with both and the ratio
//   q_course_bench SECONDS --folder DIR [--reference "CMD"]
//     every N-in.json under DIR (each for SECONDS), as a table, with whether the result is the
//     one in N-out.json
//
// `q_course_bench --bench SECONDS < FILE` is the same as `q_course_bench SECONDS < FILE`, so it can
// serve as its own reference.
//
// Every game's result is compared with the first game's: a speed-up that changes the answer
// stops the run (exit 1). Exit 2 for bad usage or an input the harness rejects.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "apps/q_course/harness.h"
#include "core/json.h"

namespace {

using namespace arbiter;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
namespace harness = arbiter::q::harness;

struct Measured {
  long long games = 0;
  double seconds = 0;
  Json result;

  double rate() const { return seconds > 0 ? static_cast<double>(games) / seconds : 0; }
  Json line() const {
    return {{"games", games}, {"seconds", seconds}, {"games_per_s", rate()}, {"result", result}};
  }
};

// The harness for `name`; "auto" is xgames, or xgames-with-observer when xgames rejects the
// input (an M8 actor such as a cheat).
Expected<Json> play_once(const std::string& name, const std::vector<Json>& in) {
  const harness::GameOptions options;
  if (name == "xgames-with-observer") return harness::xgames_with_observer(in, options);
  auto r = harness::xgames(in, options);
  if (!r && name == "auto") return harness::xgames_with_observer(in, options);
  return r;
}

// Plays `in` again and again for `seconds` (at least once).
Expected<Measured> measure(const std::string& harness_name, const std::vector<Json>& in,
                           double seconds) {
  Measured m;
  const auto start = Clock::now();
  const auto until = start + std::chrono::duration<double>(seconds);
  do {
    auto r = play_once(harness_name, in);
    if (!r) return std::unexpected(r.error());
    if (m.games == 0)
      m.result = std::move(*r);
    else if (*r != m.result)
      return fail(fmt::format("game {} gave {}, the first gave {}", m.games + 1, dump(*r),
                              dump(m.result)));
    ++m.games;
  } while (Clock::now() < until);
  m.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return m;
}

// Runs `command --bench SECONDS < input` through /bin/sh and reads its JSON line.
Expected<Measured> run_reference(const std::string& command, const fs::path& input,
                                 double seconds) {
  const std::string quoted = "'" + [&] {
    std::string s;
    for (char c : input.string()) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return s;
  }() + "'";
  const std::string line = fmt::format("{} --bench {} < {}", command, seconds, quoted);
  FILE* pipe = ::popen(line.c_str(), "r");
  if (pipe == nullptr) return fail(fmt::format("cannot run the reference: {}", line));
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  const int status = ::pclose(pipe);
  if (status != 0)
    return fail(fmt::format("the reference exited with status {}: {}", WEXITSTATUS(status), line));
  const auto last = out.find_last_not_of(" \n\r\t");
  const auto begin = out.rfind('\n', last);
  auto j = parse_json(out.substr(begin == std::string::npos ? 0 : begin + 1));
  if (!j || !j->is_object())
    return fail(fmt::format("the reference printed no JSON line: {}", excerpt(Json(out))));
  Measured m;
  m.games = int_or(*j, "games", 0);
  m.seconds = j->contains("seconds") && (*j)["seconds"].is_number() ? (*j)["seconds"].get<double>() : 0;
  m.result = field_or_null(*j, "result");
  if (m.games <= 0 || m.seconds <= 0)
    return fail(fmt::format("the reference's line has no games and seconds: {}", excerpt(*j)));
  return m;
}

Expected<std::vector<Json>> read_input(std::istream& in, const std::string& what) {
  auto values = read_json_values(in);
  if (!values) return fail(fmt::format("{}: {}", what, values.error().message));
  return values;
}

int bad_usage(const std::string& message) {
  std::fprintf(stderr, "q_course_bench: %s\n", message.c_str());
  std::fprintf(stderr,
               "usage: q_course_bench SECONDS [--harness NAME] [--reference CMD] < N-in.json\n"
               "       q_course_bench SECONDS --folder DIR [--harness NAME] [--reference CMD]\n");
  return 2;
}

int one(const std::string& harness_name, double seconds, const std::string& reference) {
  std::string text{std::istreambuf_iterator<char>(std::cin), {}};
  std::istringstream stream(text);
  auto in = read_input(stream, "stdin");
  if (!in) return bad_usage(in.error().message);
  auto ours = measure(harness_name, *in, seconds);
  if (!ours) {
    std::fprintf(stderr, "q_course_bench: %s\n", ours.error().message.c_str());
    return 1;
  }
  if (reference.empty()) {
    std::printf("%s\n", dump(ours->line()).c_str());
    return 0;
  }
  // The reference reads the same bytes from a file of its own.
  const fs::path copy = fs::temp_directory_path() / fmt::format("q_course_bench-{}.json", ::getpid());
  {
    std::ofstream out(copy, std::ios::binary);
    out << text;
    if (!out.flush()) return bad_usage(fmt::format("cannot write {}", copy.string()));
  }
  auto theirs = run_reference(reference, copy, seconds);
  std::error_code ignored;  // a temporary file left behind is no reason to fail the run
  fs::remove(copy, ignored);
  if (!theirs) {
    std::fprintf(stderr, "q_course_bench: %s\n", theirs.error().message.c_str());
    return 1;
  }
  std::printf("%s\n", dump(Json{{"arbiter", ours->line()},
                                {"reference", theirs->line()},
                                {"ratio", ours->rate() / theirs->rate()},
                                {"same_result", ours->result == theirs->result}})
                          .c_str());
  return 0;
}

int folder(const std::string& harness_name, double seconds, const std::string& reference,
           const fs::path& dir) {
  std::vector<fs::path> inputs;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec))
    if (it->is_regular_file() && it->path().filename().string().ends_with("-in.json"))
      inputs.push_back(it->path());
  if (ec) return bad_usage(fmt::format("{}: {}", dir.string(), ec.message()));
  if (inputs.empty()) return bad_usage(fmt::format("{}: no N-in.json files", dir.string()));
  std::sort(inputs.begin(), inputs.end());
  std::printf("| input | games/s |%s expected result |\n|---|---|%s---|\n",
              reference.empty() ? "" : " reference games/s | ratio |",
              reference.empty() ? "" : "---|---|");
  int wrong = 0;
  for (const fs::path& path : inputs) {
    std::ifstream file(path, std::ios::binary);
    auto in = read_input(file, path.string());
    const std::string name = fs::relative(path, dir).string();
    auto ours = in ? measure(harness_name, *in, seconds) : Expected<Measured>(std::unexpected(in.error()));
    if (!ours) {
      std::printf("| %s | error: %s |\n", name.c_str(), ours.error().message.c_str());
      ++wrong;
      continue;
    }
    fs::path expected_path = path;
    expected_path.replace_filename(path.filename().string().replace(
        path.filename().string().size() - 7, 2, "out"));
    std::ifstream expected_file(expected_path, std::ios::binary);
    auto expected = read_input(expected_file, expected_path.string());
    const char* verdict = !expected || expected->size() != 1 ? "no N-out.json"
                          : (*expected)[0] == ours->result   ? "yes"
                                                              : "NO";
    if (std::string(verdict) == "NO") ++wrong;
    std::string other;
    if (!reference.empty()) {
      auto theirs = run_reference(reference, path, seconds);
      other = theirs ? fmt::format(" {:.1f} | {:.1f}x |", theirs->rate(), ours->rate() / theirs->rate())
                     : fmt::format(" error: {} | |", theirs.error().message);
    }
    std::printf("| %s | %.1f |%s %s |\n", name.c_str(), ours->rate(), other.c_str(), verdict);
    std::fflush(stdout);
  }
  return wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // `--bench SECONDS` is the reference's calling convention; accepting it lets this program be
  // its own reference (a ratio near 1 checks the comparison itself).
  if (!args.empty() && args[0] == "--bench") args.erase(args.begin());
  if (args.empty() || args[0] == "--help" || args[0] == "-h")
    return bad_usage("plays a course game (M7/M8 input) again and again and reports games per second");
  double seconds = 0;
  try {
    std::size_t used = 0;
    seconds = std::stod(args[0], &used);
    if (used != args[0].size() || !(seconds > 0) || seconds > 3600) throw std::invalid_argument("");
  } catch (const std::exception&) {
    return bad_usage(fmt::format("SECONDS must be a number in (0, 3600], not {}", args[0]));
  }
  std::string harness_name = "auto", reference, dir;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const auto value = [&](const char* flag) -> const std::string* {
      return args[i] == flag && i + 1 < args.size() ? &args[++i] : nullptr;
    };
    if (const auto* v = value("--harness")) harness_name = *v;
    else if (const auto* v = value("--reference")) reference = *v;
    else if (const auto* v = value("--folder")) dir = *v;
    else return bad_usage(fmt::format("unknown or incomplete argument {}", args[i]));
  }
  if (harness_name != "auto" && harness_name != "xgames" && harness_name != "xgames-with-observer")
    return bad_usage(fmt::format("--harness must be xgames or xgames-with-observer, not {}", harness_name));
  if (!dir.empty()) return folder(harness_name, seconds, reference, dir);
  return one(harness_name, seconds, reference);
}
