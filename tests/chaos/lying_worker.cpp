// A worker that lies, built with the tests only (no release binary can lie): it plays jobs as
// `arbiter worker` does, but for a share of them stores the wrong winner with the honest log,
// and for its first match forges the log itself (the match played with another bot in the
// first seat, so the log replays identically and names the right players, but is not what the
// players would have replied). The checker (tournament/checker.h) must catch both.
//
// Usage: lying-worker --store URL [--tournament ID] [--lie-share 0.1] [--forge N] [--id ID]
// Runs until every tournament (or ID) is finished, or until SIGTERM.
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>

#include "core/rng.h"
#include "tournament/schedule.h"
#include "tournament/worker.h"

using namespace arbiter;
using namespace arbiter::tournament;

namespace {

std::atomic<bool> g_stop{false};

void on_signal(int) {
  g_stop = true;
}

// The result with the winners turned around: the first seat that did not win now did.
Json wrong_winner(Json result, std::size_t seats) {
  Json winners = result.value("winners", Json::array());
  std::size_t pick = 0;
  while (pick < seats && winners.is_array() &&
         std::find(winners.begin(), winners.end(), Json(pick)) != winners.end())
    ++pick;
  result["winners"] = Json::array({pick % seats});
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  std::string url, id = "liar";
  std::int64_t only = 0;
  double share = 0.1;
  int forge = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--store")
      url = value;
    else if (flag == "--tournament")
      only = std::stoll(value);
    else if (flag == "--lie-share")
      share = std::stod(value);
    else if (flag == "--forge")
      forge = std::stoi(value);
    else if (flag == "--id")
      id = value;
    else {
      std::cerr << "lying-worker: unknown flag " << flag << "\n";
      return 2;
    }
  }
  if (url.empty()) {
    std::cerr << "usage: lying-worker --store URL [--tournament ID] [--lie-share S] [--forge N]\n";
    return 2;
  }
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  auto store = open_store(url, OpenMode::existing);
  if (!store) {
    std::cerr << "lying-worker: " << store.error().message << "\n";
    return 1;
  }
  std::atomic<int> forged{0}, lied{0};
  WorkerOptions options;
  options.id = id;
  options.threads = 1;
  options.batch = 1;
  options.only = only;
  options.stop = &g_stop;
  options.lease = std::chrono::milliseconds(10'000);
  options.play = [&](const TournamentSpec& spec, const Job& job, const std::filesystem::path&) {
    const auto seats = seated(job.spec);
    if (forged < forge && seats.size() == 2) {
      ++forged;
      TournamentSpec forged_spec = spec;
      std::string& bot = forged_spec.players[seats[0]].bot;
      bot = bot == "random" ? "hunt" : "random";
      std::cerr << "lying-worker: forging the log of job " << job.id << "\n";
      return play_job(forged_spec, job);
    }
    JobResult result = play_job(spec, job);
    const bool lie =
        !result.result.contains("error") &&
        static_cast<double>(Rng(Rng::derive(42, "lie", job.id)).below(1000)) < share * 1000;
    if (lie) {
      ++lied;
      result.result = wrong_winner(result.result, seats.size());
      std::cerr << "lying-worker: a wrong winner for job " << job.id << "\n";
    }
    return result;
  };
  auto report = run_worker(**store, options);
  std::cout << "lying-worker: played " << (report ? report->played : -1) << ", lied " << lied
            << ", forged " << forged << "\n";
  return report ? 0 : 1;
}
