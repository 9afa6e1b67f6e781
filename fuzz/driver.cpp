// A small coverage-guided fuzzing driver for the targets of fuzz/targets (libFuzzer's interface,
// LLVMFuzzerTestOneInput), for GCC, which has no libFuzzer. The code under test is compiled with
// -fsanitize-coverage=trace-pc; __sanitizer_cov_trace_pc below hashes each (previous block,
// block) pair into a bitmap of hit counts, and an input whose run sets a bit no earlier run set
// (a new edge, or an edge taken a new number of times, in AFL's buckets) joins the corpus.
//
//   fuzz_TARGET [--seconds S] [--runs N] [--seed X] [--max-len B] [--timeout S] [--dict FILE]
//               [--crash-dir DIR] [CORPUS_DIR_OR_FILE...]
//
// Deterministic for a given --seed and --runs (time only decides when --seconds ends the run).
// Before every run the input is in memory only; a sanitizer report, an abort (a target's failed
// property), a fatal signal or a run longer than --timeout writes it to
// CRASH_DIR/crash-TARGET-<hash> and ends with a nonzero status. This file is compiled without
// coverage instrumentation (fuzz/CMakeLists.txt), so only the code under test is measured.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" void __sanitizer_set_death_callback(void (*callback)());

namespace {

constexpr std::size_t kMapBits = 18;
constexpr std::size_t kMapSize = std::size_t{1} << kMapBits;

// Written by the instrumented code, read between runs. Plain globals: the targets are
// single-threaded, and a racing thread would only blur the counts.
std::uint8_t g_hits[kMapSize];
std::uint32_t g_touched[kMapSize];
std::size_t g_touched_count = 0;
std::uintptr_t g_previous = 0;
bool g_collecting = false;

// Per map slot, the hit-count buckets any run has reached (one bit per bucket).
std::uint8_t g_seen[kMapSize];
std::size_t g_edges = 0;  // slots with any bucket seen

// What a dying process writes: the input being run.
const std::uint8_t* g_current = nullptr;
std::size_t g_current_size = 0;
std::string g_crash_dir = ".";
std::string g_target = "target";

}  // namespace

extern "C" void __sanitizer_cov_trace_pc() {
  if (!g_collecting) return;
  const auto pc = reinterpret_cast<std::uintptr_t>(__builtin_return_address(0));
  const std::size_t slot = ((pc * 0x9E3779B97F4A7C15ull) ^ (g_previous >> 1)) >> (64 - kMapBits);
  g_previous = pc * 0x9E3779B97F4A7C15ull;
  if (g_hits[slot] == 0) g_touched[g_touched_count++] = static_cast<std::uint32_t>(slot);
  if (g_hits[slot] != 255) ++g_hits[slot];
}

// UBSan's report does not reach the death callback; made to abort, it reaches on_signal.
extern "C" const char* __ubsan_default_options() {
  return "abort_on_error=1:print_stacktrace=1";
}

namespace {

std::uint8_t bucket(std::uint8_t hits) {
  if (hits <= 3) return static_cast<std::uint8_t>(1u << (hits - 1));  // 1, 2, 3
  if (hits <= 7) return 8;
  if (hits <= 15) return 16;
  if (hits <= 31) return 32;
  if (hits <= 127) return 64;
  return 128;
}

std::uint64_t fnv1a(const std::uint8_t* data, std::size_t size) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 1099511628211ull;
  return h;
}

// Async-signal-safe enough for a dying process: open/write/close only, no allocation.
void write_current_input(const char* why) {
  char path[4096];
  const unsigned long long h =
      g_current != nullptr ? fnv1a(g_current, g_current_size) : 0ull;
  std::snprintf(path, sizeof path, "%s/crash-%s-%016llx", g_crash_dir.c_str(), g_target.c_str(),
                h);
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  bool ok = fd >= 0;
  std::size_t done = 0;
  while (ok && done < g_current_size) {
    const ssize_t n = ::write(fd, g_current + done, g_current_size - done);
    if (n <= 0) ok = false;
    else done += static_cast<std::size_t>(n);
  }
  if (fd >= 0 && ::close(fd) != 0) ok = false;
  char line[4400];
  const int len = std::snprintf(line, sizeof line, "fuzz: %s; %s %s (%zu bytes)\n", why,
                                ok ? "input written to" : "could not write the input to", path,
                                g_current_size);
  if (len > 0) (void)!::write(2, line, static_cast<std::size_t>(len));
}

void on_sanitizer_death() { write_current_input("sanitizer report"); }

void on_signal(int sig) {
  write_current_input(sig == SIGALRM ? "timeout" : strsignal(sig));
  ::signal(sig, SIG_DFL);
  if (sig == SIGALRM) ::_exit(3);
  ::raise(sig);
}

using Input = std::vector<std::uint8_t>;

struct Options {
  double seconds = 10;
  std::uint64_t runs = 0;  // 0: until --seconds
  std::uint64_t seed = 1;
  std::size_t max_len = 4096;
  unsigned timeout = 10;
  std::string dict;
  std::vector<std::string> corpus;
};

[[noreturn]] void usage(const char* argv0, const char* what) {
  std::fprintf(stderr,
               "%s: %s\nusage: %s [--seconds S] [--runs N] [--seed X] [--max-len B] "
               "[--timeout S] [--dict FILE] [--crash-dir DIR] [CORPUS_DIR_OR_FILE...]\n",
               argv0, what, argv0);
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(argv[0], (a + " needs a value").c_str());
      return argv[++i];
    };
    try {
      if (a == "--seconds") o.seconds = std::stod(value());
      else if (a == "--runs") o.runs = std::stoull(value());
      else if (a == "--seed") o.seed = std::stoull(value());
      else if (a == "--max-len") o.max_len = std::stoull(value());
      else if (a == "--timeout") o.timeout = static_cast<unsigned>(std::stoul(value()));
      else if (a == "--dict") o.dict = value();
      else if (a == "--crash-dir") g_crash_dir = value();
      else if (a.starts_with("--")) usage(argv[0], ("unknown option " + a).c_str());
      else o.corpus.push_back(a);
    } catch (const std::exception&) {
      usage(argv[0], ("bad value for " + a).c_str());
    }
  }
  if (!(o.seconds > 0) || o.max_len == 0) usage(argv[0], "--seconds and --max-len must be > 0");
  return o;
}

// libFuzzer's dictionary format: one "token" per line (optionally name="token"), with \\, \"
// and \xNN escapes; '#' starts a comment line.
std::vector<Input> read_dictionary(const std::string& path) {
  std::vector<Input> tokens;
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "fuzz: cannot read the dictionary %s\n", path.c_str());
    std::exit(2);
  }
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto open = line.find('"');
    const auto close = line.rfind('"');
    if (open == std::string::npos || close <= open) {
      std::fprintf(stderr, "fuzz: %s:%d: expected a quoted token\n", path.c_str(), number);
      std::exit(2);
    }
    Input token;
    for (std::size_t k = open + 1; k < close; ++k) {
      if (line[k] != '\\' || k + 1 >= close) {
        token.push_back(static_cast<std::uint8_t>(line[k]));
      } else if (line[k + 1] == 'x' && k + 3 < close) {
        token.push_back(static_cast<std::uint8_t>(std::stoi(line.substr(k + 2, 2), nullptr, 16)));
        k += 3;
      } else {
        token.push_back(static_cast<std::uint8_t>(line[++k]));
      }
    }
    tokens.push_back(std::move(token));
  }
  return tokens;
}

// Tokens every target gets: JSON's punctuation and awkward numbers and strings.
std::vector<Input> builtin_tokens() {
  std::vector<Input> tokens;
  for (const char* t :
       {"{", "}", "[", "]", ",", ":", "\"", "\\", "\\\"", "\\u0000", "\\ud800", "\n", "\r\n",
        " ", "null", "true", "false", "-1", "0", "1", "2", "-0", "0.5", "1e308", "-1e309",
        "2147483647", "2147483648", "-2147483649", "4294967296", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "18446744073709551616", "1e-400",
        "\"\"", "[]", "{}", "[[]]", "{\"\":0}"})
    tokens.emplace_back(t, t + std::strlen(t));
  tokens.push_back(Input{0});
  tokens.push_back(Input{0xC3, 0xA9});        // é
  tokens.push_back(Input{0xF0, 0x9F, 0x98});  // a cut UTF-8 sequence
  tokens.push_back(Input(300, 'a'));
  return tokens;
}

void add_file(const std::filesystem::path& p, std::size_t max_len, std::vector<Input>& out) {
  std::ifstream in(p, std::ios::binary);
  Input data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.size() > max_len) data.resize(max_len);
  out.push_back(std::move(data));
}

std::vector<Input> read_seeds(const std::vector<std::string>& paths, std::size_t max_len) {
  std::vector<Input> seeds;
  for (const auto& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::directory_iterator(p, ec))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());  // the order of directory listings is not stable
      for (const auto& f : files) add_file(f, max_len, seeds);
    } else if (std::filesystem::is_regular_file(p, ec)) {
      add_file(p, max_len, seeds);
    } else {
      std::fprintf(stderr, "fuzz: no such corpus file or directory: %s\n", p.c_str());
      std::exit(2);
    }
  }
  return seeds;
}

class Fuzzer {
 public:
  Fuzzer(const Options& o, std::vector<Input> dictionary)
      : options_(o), rng_(o.seed), dictionary_(std::move(dictionary)) {}

  // Runs `input` under coverage; true when it reached something new (and so joins the corpus).
  bool run(const Input& input) {
    g_current = input.data();
    g_current_size = input.size();
    g_previous = 0;
    g_collecting = true;
    // A copy of exactly the input's size, so that ASan sees any read past its end.
    auto* copy = new std::uint8_t[input.size() + (input.empty() ? 1 : 0)];
    if (!input.empty()) std::memcpy(copy, input.data(), input.size());
    LLVMFuzzerTestOneInput(copy, input.size());
    g_collecting = false;
    delete[] copy;
    ++executions_;
    bool fresh = false;
    for (std::size_t k = 0; k < g_touched_count; ++k) {
      const std::uint32_t slot = g_touched[k];
      const std::uint8_t b = bucket(g_hits[slot]);
      if ((g_seen[slot] & b) == 0) {
        if (g_seen[slot] == 0) ++g_edges;
        g_seen[slot] |= b;
        fresh = true;
      }
      g_hits[slot] = 0;
    }
    g_touched_count = 0;
    if (fresh) corpus_.push_back(input);
    return fresh;
  }

  Input mutate() {
    Input x = corpus_.empty() ? Input{} : corpus_[pick(corpus_.size())];
    const int rounds = 1 + static_cast<int>(pick(4));
    for (int r = 0; r < rounds; ++r) mutate_once(x);
    if (x.size() > options_.max_len) x.resize(options_.max_len);
    return x;
  }

  std::uint64_t executions() const { return executions_; }
  std::size_t corpus_size() const { return corpus_.size(); }

 private:
  std::size_t pick(std::size_t n) { return n == 0 ? 0 : rng_() % n; }

  void mutate_once(Input& x) {
    switch (pick(9)) {
      case 0:  // flip a bit
        if (!x.empty()) x[pick(x.size())] ^= static_cast<std::uint8_t>(1u << pick(8));
        break;
      case 1:  // set a byte
        if (!x.empty()) x[pick(x.size())] = static_cast<std::uint8_t>(rng_());
        break;
      case 2: {  // delete a range
        if (x.empty()) break;
        const std::size_t at = pick(x.size());
        const std::size_t n = 1 + pick(std::min<std::size_t>(x.size() - at, 16));
        x.erase(x.begin() + static_cast<long>(at), x.begin() + static_cast<long>(at + n));
        break;
      }
      case 3: {  // duplicate a range
        if (x.empty()) break;
        const std::size_t at = pick(x.size());
        const std::size_t n = 1 + pick(std::min<std::size_t>(x.size() - at, 64));
        const Input part(x.begin() + static_cast<long>(at), x.begin() + static_cast<long>(at + n));
        x.insert(x.begin() + static_cast<long>(pick(x.size() + 1)), part.begin(), part.end());
        break;
      }
      case 4: {  // insert random bytes
        const std::size_t n = 1 + pick(8);
        Input part(n);
        for (auto& b : part) b = static_cast<std::uint8_t>(rng_());
        x.insert(x.begin() + static_cast<long>(pick(x.size() + 1)), part.begin(), part.end());
        break;
      }
      case 5:
      case 6: {  // insert or overwrite with a dictionary token
        const Input& token = dictionary_[pick(dictionary_.size())];
        const std::size_t at = pick(x.size() + 1);
        if (pick(2) == 0 || at + token.size() > x.size()) {
          x.insert(x.begin() + static_cast<long>(at), token.begin(), token.end());
        } else {
          std::copy(token.begin(), token.end(), x.begin() + static_cast<long>(at));
        }
        break;
      }
      case 7: {  // splice: our head, another entry's tail
        if (corpus_.empty()) break;
        const Input& other = corpus_[pick(corpus_.size())];
        const std::size_t head = pick(x.size() + 1);
        const std::size_t from = pick(other.size() + 1);
        x.resize(head);
        x.insert(x.end(), other.begin() + static_cast<long>(from), other.end());
        break;
      }
      case 8: {  // nudge a digit or a small number
        for (std::size_t tries = 0; tries < 8 && !x.empty(); ++tries) {
          const std::size_t at = pick(x.size());
          if (x[at] >= '0' && x[at] <= '9') {
            x[at] = static_cast<std::uint8_t>('0' + pick(10));
            break;
          }
        }
        break;
      }
    }
  }

  const Options& options_;
  std::mt19937_64 rng_;
  std::vector<Input> dictionary_;
  std::vector<Input> corpus_;
  std::uint64_t executions_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  g_target = std::filesystem::path(argv[0]).filename().string();
  if (g_target.starts_with("fuzz_")) g_target = g_target.substr(5);

  __sanitizer_set_death_callback(on_sanitizer_death);
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGALRM}) ::signal(sig, on_signal);

  std::vector<Input> dictionary = builtin_tokens();
  if (!options.dict.empty())
    for (auto& t : read_dictionary(options.dict)) dictionary.push_back(std::move(t));

  Fuzzer fuzzer(options, std::move(dictionary));
  fuzzer.run(Input{});
  for (const Input& seed : read_seeds(options.corpus, options.max_len)) {
    ::alarm(options.timeout);
    fuzzer.run(seed);
  }
  const std::size_t seeded = fuzzer.corpus_size();

  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  double last_report = 0;
  for (std::uint64_t i = 0; options.runs == 0 || i < options.runs; ++i) {
    // The clock is read every 64 runs: the runs are short, and a run count stays deterministic.
    if (i % 64 == 0) {
      const double t = elapsed();
      if (options.runs == 0 && t >= options.seconds) break;
      if (t - last_report >= 30) {
        last_report = t;
        std::fprintf(stderr, "fuzz: %s: %.0f s, %llu executions, corpus %zu, coverage %zu\n",
                     g_target.c_str(), t,
                     static_cast<unsigned long long>(fuzzer.executions()), fuzzer.corpus_size(),
                     g_edges);
      }
    }
    const Input input = fuzzer.mutate();
    ::alarm(options.timeout);
    fuzzer.run(input);
  }
  ::alarm(0);
  std::printf(
      "%s: %llu executions in %.1f s (%.0f/s), corpus %zu (%zu from seeds), coverage %zu edges, "
      "crashes 0\n",
      g_target.c_str(), static_cast<unsigned long long>(fuzzer.executions()), elapsed(),
      static_cast<double>(fuzzer.executions()) / std::max(elapsed(), 1e-9), fuzzer.corpus_size(),
      seeded, g_edges);
  return 0;
}
