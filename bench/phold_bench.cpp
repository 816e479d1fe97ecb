// kausal-phold-bench: committed PHOLD events per second of the in-process event engine
// (docs/performance.md, "Issue 15"), in the configurations of docs/benchmarks.md G: 64
// components, one initial event each, lookahead 1, remote 0.1 / 0.5, mean 1 / 2; sequential,
// conservative and optimistic in two groups (one thread each). Every row of one
// configuration must commit the same digest; the table says so. The median of `--repeat`
// runs of `--end` model seconds each. With `--cut-seconds S`, each row is followed by the
// same run cut every S seconds of wall time (docs/events.md, "Checkpoints and --resume"),
// its cuts counted and dropped: what checkpoints cost the engine.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "monitor/sync/event_run.hpp"
#include "system/events/phold.hpp"

using namespace kausal;

namespace {

struct Row {
  EventRunResult run;
  double rate = 0;
  std::size_t cuts = 0;
};

Row median_run(const des::EventModel& model, const EventRunSpec& spec, int repeat) {
  std::vector<Row> rows;
  for (int n = 0; n < repeat; ++n) {
    std::size_t cuts = 0;
    Row row{run_events(model, spec, {}, [&](const EventResumePoint&) { ++cuts; }), 0, cuts};
    row.rate = row.run.committed_per_second();
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.rate < b.rate; });
  return rows[rows.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  double end = 20000;
  int repeat = 3;
  std::uint32_t components = 64;
  double window = 0;  // 0: the engine's default
  std::uint32_t batch = 0, gvt_interval = 0;
  double window_used = 0;
  double cut_seconds = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--end")
      end = std::atof(argv[i + 1]);
    else if (flag == "--repeat")
      repeat = std::atoi(argv[i + 1]);
    else if (flag == "--components")
      components = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
    else if (flag == "--window")
      window = std::atof(argv[i + 1]);
    else if (flag == "--batch")
      batch = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
    else if (flag == "--cut-seconds")
      cut_seconds = std::atof(argv[i + 1]);
    else if (flag == "--gvt-interval")
      gvt_interval = static_cast<std::uint32_t>(std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr,
                   "usage: kausal-phold-bench [--end T] [--repeat N] [--components N] "
                   "[--window W] [--batch N] [--gvt-interval N] [--cut-seconds S]\n");
      return 2;
    }
  }
  std::printf("PHOLD, %u components, 1 event each, lookahead 1, end %.0f, median of %d\n\n",
              components, end, repeat);
  std::printf(
      "| remote | mean | method | groups | committed ev/s | efficiency | rollbacks | "
      "anti-messages | null messages | GVT rounds | digest "
      "|\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const double remote : {0.1, 0.5})
    for (const double mean : {1.0, 2.0}) {
      des::PholdParameters p;
      p.components = components;
      p.population = 1;
      p.remote = remote;
      p.mean = mean;
      p.lookahead = 1.0;
      const des::Phold model(p);
      std::string reference;
      for (const SyncMethod method :
           {SyncMethod::sequential, SyncMethod::conservative, SyncMethod::optimistic}) {
        EventRunSpec spec;
        spec.method = method;
        spec.groups = method == SyncMethod::sequential ? 1 : 2;
        spec.end = end;
        if (window > 0) spec.window = window;
        if (method == SyncMethod::optimistic)
          window_used = spec.window.value_or(default_window(model));
        if (batch > 0) spec.batch = batch;
        if (gvt_interval > 0) spec.gvt_interval = gvt_interval;
        for (const double cuts : {0.0, cut_seconds}) {
          if (cuts == 0 && spec.cut_seconds > 0) break;  // no --cut-seconds: one row
          spec.cut_seconds = cuts;
          const Row row = median_run(model, spec, repeat);
          if (reference.empty()) reference = row.run.digest;
          std::uint64_t nulls = 0, rounds = 0;
          for (const auto& g : row.run.groups) {
            nulls += g.null_messages;
            rounds += g.gvt_rounds;
          }
          const auto total = row.run.total();
          const std::string label =
              std::string(name_of(method)) +
              (cuts > 0 ? ", " + std::to_string(row.cuts) + " cuts" : std::string());
          std::printf(
              "| %.1f | %.0f | %s | %u | %.2f M | %.1f %% | %llu | %llu | %llu | %llu | %s |\n",
              remote, mean, label.c_str(), spec.groups, row.rate / 1e6, 100 * row.run.efficiency(),
              static_cast<unsigned long long>(total.rollbacks),
              static_cast<unsigned long long>(total.anti_messages),
              static_cast<unsigned long long>(nulls), static_cast<unsigned long long>(rounds),
              row.run.digest == reference ? "= sequential" : "DIFFERS");
          if (cut_seconds <= 0) break;
        }
      }
    }
  std::printf("\noptimistic window %.3g (model time)\n", window_used);
  return 0;
}
