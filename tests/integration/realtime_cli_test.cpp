// Paced runs with real processes: kausal run --realtime and --external-clock, kausal tick
// over the Clock interface, the figures in summary.json, and the options refused.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>

#include <algorithm>

#include "kausal_process.hpp"

namespace kausal::testing {
namespace {

using namespace std::chrono_literals;

std::string thesis_for(const fs::path& dir, const std::string& duration) {
  return scenario_variant("thesis.toml", dir, {{"duration = 20.0", "duration = " + duration}})
      .string();
}

// Waits for the run to serve what `reference` names (OUT/clock.ior, OUT/operator.ior).
bool served(const fs::path& reference, KausalProcess& run) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline && !fs::exists(reference)) {
    if (run.wait(0ms)) return false;
    std::this_thread::sleep_for(20ms);
  }
  return fs::exists(reference);
}

// 10^5 ticks through `kausal tick` release exactly 10^5 steps of a run in component
// processes: the unpaced digest (none skipped, none repeated) and every tick counted.
TEST(RealtimeCli, TicksFromKausalTickReleaseExactlyOneStepEach) {
  TempDir dir;
  const std::string thesis = thesis_for(dir.path(), "100.0");  // 10^5 steps
  std::string err;
  ASSERT_EQ(run_kausal({"run", thesis, "--out", (dir / "free").string()}, dir.path(), &err), 0)
      << err;
  const fs::path out = dir / "ticked";
  KausalProcess run(
      {"run", thesis, "--method", "conservative", "--guarantee", "lookahead", "--layout", "single",
       "--external-clock", "--trace", "off", "--out", out.string()},
      dir.path());
  ASSERT_TRUE(served(out / "clock.ior", run)) << run.err();
  ASSERT_EQ(run_kausal({"tick", out.string(), "--count", "60000"}, dir.path(), &err, 120s), 0)
      << err;
  // The rest until the last step (--all), in a second tick process.
  KausalProcess rest({"tick", out.string(), "--all"}, dir.path());
  ASSERT_EQ(rest.wait(120s), 0) << rest.err();
  EXPECT_NE(rest.out().find("100000 ticks"), std::string::npos) << rest.out();
  ASSERT_EQ(run.wait(120s), 0) << run.err();
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["steps"], 100000);
  EXPECT_EQ(summary["trajectory_sha256"],
            read_json(dir / "free/summary.json")["trajectory_sha256"]);
  EXPECT_EQ(summary["realtime"]["clock"], "external");
  EXPECT_EQ(summary["realtime"]["ticks"], 100000);
  EXPECT_EQ(summary["realtime"]["step_s"]["count"], 100000);
  EXPECT_FALSE(fs::exists(out / "clock.ior"));  // withdrawn with the run
  // A tick for a run that has ended: a clear error, no crash.
  EXPECT_EQ(run_kausal({"tick", out.string()}, dir.path(), &err), 2);
  EXPECT_NE(err.find("clock.ior"), std::string::npos) << err;
}

// Paced by the wall clock in component processes: the unpaced digest, no sooner than the
// clock allows, the figures in summary.json, and delays counted as overruns.
TEST(RealtimeCli, WallClockPacingKeepsTheDigestAndCountsDelayedSteps) {
  TempDir dir;
  const std::string thesis = thesis_for(dir.path(), "0.3");  // 300 steps
  std::string err;
  ASSERT_EQ(run_kausal({"run", thesis, "--out", (dir / "free").string()}, dir.path(), &err), 0)
      << err;
  const auto free = read_json(dir / "free/summary.json");
  for (const std::string method : {"conservative", "optimistic"}) {
    const fs::path out = dir / method;
    // 300 steps of 1 ms at factor 0.5: 0.6 s; delays of 3 ms (1.5 periods) at two steps.
    ASSERT_EQ(run_kausal({"run", thesis, "--method", method, "--layout", "pendulum", "--realtime",
                          "0.5", "--skip-feasibility-check", "--delay", "100:0.003", "--delay",
                          "200:0.003", "--out", out.string()},
                         dir.path(), &err),
              0)
        << err;
    const auto summary = read_json(out / "summary.json");
    EXPECT_EQ(summary["trajectory_sha256"], free["trajectory_sha256"]) << method;
    EXPECT_GE(summary["wall_s"].get<double>(), 0.299 * 2) << method;
    const auto& rt = summary["realtime"];
    EXPECT_EQ(rt["clock"], "wall") << method;
    EXPECT_EQ(rt["factor"], 0.5) << method;
    EXPECT_EQ(rt["step_s"]["count"], 300) << method;
    // The two delayed steps at least (a loaded machine may add more).
    EXPECT_GE(rt["overruns"].get<int>(), 2) << method;
    EXPECT_GE(rt["lateness_s"]["max"].get<double>(), 0.0009) << method;
    EXPECT_FALSE(rt["components"].empty()) << method;
  }
}

// The machine taking the CPU away from a paced run (here the whole monitor, stopped for
// 300 ms by SIGSTOP as a host that deschedules a virtual machine would): its stall watch
// sees the stall, and the overruns it caused are counted as the machine's, in summary.json and
// in the printed summary.
TEST(RealtimeCli, OverrunsAStallOfTheMachineCausedAreCountedAsTheMachines) {
  TempDir dir;
  const std::string thesis = thesis_for(dir.path(), "2.0");  // 2,000 steps at factor 1: 2 s
  const fs::path out = dir / "stalled";
  KausalProcess run(
      {"run", thesis, "--method", "conservative", "--guarantee", "lookahead", "--layout", "single",
       "--realtime", "1", "--skip-feasibility-check", "--trace", "off", "--out", out.string()},
      dir.path());
  ASSERT_TRUE(served(out / "operator.ior", run)) << run.err();
  std::this_thread::sleep_for(300ms);
  ASSERT_EQ(kill(run.pid(), SIGSTOP), 0);
  std::this_thread::sleep_for(300ms);
  ASSERT_EQ(kill(run.pid(), SIGCONT), 0);
  ASSERT_EQ(run.wait(60s), 0) << run.err();
  const auto rt = read_json(out / "summary.json")["realtime"];
  const auto& machine = rt["machine"];
  EXPECT_GE(machine["longest_s"].get<double>(), 0.25) << machine;
  EXPECT_GE(machine["stalls"].get<int>(), 1) << machine;
  EXPECT_GT(machine["samples"].get<int>(), 0) << machine;
  EXPECT_GE(rt["overruns"].get<int>(), 1);  // the steps due while it was stopped
  EXPECT_GE(machine["overruns_machine"].get<int>(), 1) << machine;
  EXPECT_LE(machine["overruns_machine"].get<int>(), rt["overruns"].get<int>());
  EXPECT_NE(run.out().find("of them the machine's"), std::string::npos) << run.out();
  EXPECT_NE(run.out().find("machine: "), std::string::npos) << run.out();
}

// The co-simulation master with its partitions in processes, released tick by tick by
// `kausal tick`: every tick counted, and the unpaced digest.
TEST(RealtimeCli, TheMasterInProcessesFollowsTheTicksWithTheUnpacedDigest) {
  TempDir dir;
  const std::string master = (kScenarios / "two-mass-master.toml").string();
  std::string err;
  ASSERT_EQ(run_kausal({"run", master, "--out", (dir / "free").string()}, dir.path(), &err), 0)
      << err;
  const fs::path out = dir / "ticked";
  KausalProcess run(
      {"run", master, "--method", "conservative", "--external-clock", "--out", out.string()},
      dir.path());
  ASSERT_TRUE(served(out / "clock.ior", run)) << run.err();
  KausalProcess ticks({"tick", out.string(), "--all"}, dir.path());
  ASSERT_EQ(ticks.wait(120s), 0) << ticks.err();
  ASSERT_EQ(run.wait(120s), 0) << run.err();
  const auto summary = read_json(out / "summary.json");
  const auto free = read_json(dir / "free/summary.json");
  EXPECT_EQ(summary["trajectory_sha256"], free["trajectory_sha256"]);
  EXPECT_EQ(summary["realtime"]["clock"], "external");
  EXPECT_EQ(summary["realtime"]["ticks"], free["steps"]);
  EXPECT_EQ(summary["realtime"]["step_s"]["count"], free["steps"]);
  EXPECT_EQ(summary["cosimulation"]["macro_steps"], free["cosimulation"]["macro_steps"]);
}

// SCHED_FIFO can be had here (root or CAP_SYS_NICE): tried on this process and undone.
bool fifo_allowed() {
  sched_param p{};
  p.sched_priority = 1;
  if (sched_setscheduler(0, SCHED_FIFO, &p) != 0) return false;
  p.sched_priority = 0;
  sched_setscheduler(0, SCHED_OTHER, &p);
  return true;
}

// --rt-priority: the component processes the monitor starts run under SCHED_FIFO at that
// priority while the run lasts, the summary says so, and the digest is the unpaced one.
TEST(RealtimeCli, RtPriorityRunsTheComponentsUnderSchedFifo) {
  if (!fifo_allowed()) GTEST_SKIP() << "SCHED_FIFO needs root or CAP_SYS_NICE";
  TempDir dir;
  const std::string thesis = thesis_for(dir.path(), "3.0");  // 3 s at factor 1: time to look
  std::string err;
  ASSERT_EQ(run_kausal({"run", thesis, "--out", (dir / "free").string()}, dir.path(), &err), 0)
      << err;
  const fs::path out = dir / "fifo";
  KausalProcess run({"run", thesis, "--method", "optimistic", "--layout", "pendulum", "--realtime",
                     "1", "--skip-feasibility-check", "--rt-priority", "7", "--out", out.string()},
                    dir.path());
  const auto integrator = run.component_pid("integrator-2", 20s);
  ASSERT_TRUE(integrator) << run.err();
  sched_param param{};
  const int policy = sched_getscheduler(*integrator);
  ASSERT_EQ(sched_getparam(*integrator, &param), 0);
  ASSERT_EQ(run.wait(60s), 0) << run.err();
  EXPECT_EQ(policy, SCHED_FIFO);
  EXPECT_EQ(param.sched_priority, 7);
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["realtime"]["rt_priority"], 7);
  EXPECT_EQ(summary["trajectory_sha256"],
            read_json(dir / "free/summary.json")["trajectory_sha256"]);
  EXPECT_NE(run.out().find("SCHED_FIFO 7"), std::string::npos) << run.out();
}

TEST(RealtimeCli, PacingOptionsThatDoNotFitAreRefused) {
  TempDir dir;
  const std::string thesis = thesis_for(dir.path(), "0.1");
  std::string err;
  for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--realtime", "1", "--external-clock"}, "exclude each other"},
           {{"--release", "spin"}, "paced runs"},
           {{"--delay", "5:0.1"}, "paced runs"},
           {{"--realtime", "1", "--delay", "five:0.1"}, "STEP:SECONDS"},
           {{"--realtime", "-1"}, "--realtime"},
           {{"--realtime", "nan"}, "--realtime"},
           {{"--rt-priority", "5"}, "paced runs"},
           {{"--realtime", "1", "--rt-priority", "0"}, "--rt-priority"},
           {{"--realtime", "1", "--rt-priority", "100"}, "--rt-priority"}}) {
    std::vector<std::string> command{"run", thesis, "--out", (dir / "refused").string()};
    command.insert(command.end(), args.begin(), args.end());
    EXPECT_EQ(run_kausal(command, dir.path(), &err), 2) << args.front();
    EXPECT_NE(err.find(says), std::string::npos) << args.front() << ": " << err;
  }
  EXPECT_EQ(run_kausal({"tick", (dir / "nothing").string()}, dir.path(), &err), 2);
  EXPECT_NE(err.find("clock.ior"), std::string::npos) << err;
}

// ---- influence while running: kausal inject, a controller in the loop, --replay ----

// A kausal command to its end, in a directory of its own (each process writes its stdout to
// PROGRAM.out there): its exit code and what it printed on stdout and stderr.
struct Said {
  int code = -1;
  std::string text;
};
Said kausal_says(const std::vector<std::string>& args, const fs::path& dir,
                 const std::string& program = "kausal") {
  fs::create_directories(dir);
  KausalProcess p(args, dir, {}, program);
  Said s;
  s.code = p.wait(60s).value_or(-1);
  s.text = p.out() + p.err();
  return s;
}

// The summary of `scenario` run unpaced into DIR/free: what a paced run of it must give.
nlohmann::json unpaced_summary(const std::string& scenario, const fs::path& dir) {
  std::string err;
  EXPECT_EQ(run_kausal({"run", scenario, "--out", (dir / "free").string()}, dir, &err), 0) << err;
  return read_json(dir / "free/summary.json");
}

// A discrete-event run with its groups in processes, paced by `kausal tick` in thousandths of
// its end: a push or set is refused (the run goes on), a stop ends it (exit 130) at the
// thousandth it names, and the resume completes it to the unpaced digest.
TEST(RealtimeCli, AnEventRunInProcessesIsTickedStoppedAndResumedToTheUnpacedDigest) {
  TempDir dir;
  const std::string phold = (kScenarios / "phold.toml").string();
  std::string err;
  const auto free = unpaced_summary(phold, dir.path());
  const fs::path out = dir / "ticked";
  fs::create_directories(dir / "run");
  KausalProcess run({"run", phold, "--method", "conservative", "--layout", "process",
                     "--external-clock", "--out", out.string()},
                    dir / "run");
  ASSERT_TRUE(served(out / "clock.ior", run) && served(out / "operator.ior", run)) << run.err();
  ASSERT_EQ(run_kausal({"tick", out.string(), "--count", "200"}, dir.path(), &err, 60s), 0) << err;
  const Said push = kausal_says({"inject", out.string(), "push", "1", "0.1"}, dir / "push");
  EXPECT_EQ(push.code, 2) << push.text;
  EXPECT_NE(push.text.find("no pushes or sets"), std::string::npos) << push.text;
  const Said stop = kausal_says({"inject", out.string(), "stop"}, dir / "stop");
  ASSERT_EQ(stop.code, 0) << stop.text;
  const std::string at = "takes effect at step ";
  ASSERT_NE(stop.text.find(at), std::string::npos) << stop.text;
  const double thousandth = std::stod(stop.text.substr(stop.text.find(at) + at.size()));
  // The release the stop holds back, when the run has taken all the others (else it has
  // ended already, and the tick finds no clock).
  run_kausal({"tick", out.string()}, dir.path(), &err);
  ASSERT_EQ(run.wait(60s), 130) << run.err();
  const auto stopped = read_json(out / "summary.json");
  EXPECT_EQ(stopped["status"], "interrupted");
  EXPECT_DOUBLE_EQ(stopped["events"]["committed_to"].get<double>(),
                   free["events"]["end"].get<double>() * thousandth / 1000);
  ASSERT_EQ(run_kausal({"run", "--resume", out.string()}, dir.path(), &err), 0) << err;
  EXPECT_EQ(read_json(out / "summary.json")["trajectory_sha256"], free["trajectory_sha256"]);
}

// An operator sends events into a discrete-event run (kausal inject send): each is pending
// for its component at its thousandth's time, committed like any other, recorded, and the
// replay under another method and layout gives the live run's digest; what the model does not
// know is refused (exit 2, the run goes on).
TEST(RealtimeCli, EventsSentIntoAnEventRunAreCommittedAndReplayedToItsDigest) {
  TempDir dir;
  const std::string queues = (kScenarios / "queueing-network.toml").string();
  std::string err;
  const auto free = unpaced_summary(queues, dir.path());
  const fs::path out = dir / "live";
  fs::create_directories(dir / "run");
  KausalProcess run(
      {"run", queues, "--method", "optimistic", "--external-clock", "--out", out.string()},
      dir / "run");
  ASSERT_TRUE(served(out / "clock.ior", run) && served(out / "operator.ior", run)) << run.err();
  ASSERT_EQ(run_kausal({"tick", out.string(), "--count", "100"}, dir.path(), &err, 60s), 0) << err;
  for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"send", "server-99.arrival"}, "no component 'server-99'"},
           {{"send", "server-2.landing"}, "has no event kind 'landing' (it has arrival"},
           {{"push", "1", "0.1"}, "takes events (send one)"}}) {
    std::vector<std::string> command{"inject", out.string()};
    command.insert(command.end(), args.begin(), args.end());
    const Said bad = kausal_says(command, dir / ("bad-" + args.front() + args.back()));
    EXPECT_EQ(bad.code, 2) << bad.text;
    EXPECT_NE(bad.text.find(says), std::string::npos) << bad.text;
  }
  for (const char* target : {"server-2.arrival", "server-5.arrival"}) {
    const Said sent = kausal_says({"inject", out.string(), "send", target}, dir / target);
    ASSERT_EQ(sent.code, 0) << sent.text;
    EXPECT_NE(sent.text.find("send takes effect at step"), std::string::npos) << sent.text;
  }
  ASSERT_EQ(run_kausal({"tick", out.string(), "--count", "900"}, dir.path(), &err, 60s), 0) << err;
  ASSERT_EQ(run.wait(60s), 0) << run.err();
  const auto live = read_json(out / "summary.json");
  EXPECT_EQ(live["status"], "completed");
  EXPECT_NE(live["trajectory_sha256"], free["trajectory_sha256"]);  // two more jobs
  EXPECT_GT(live["events"]["committed"].get<std::uint64_t>(),
            free["events"]["committed"].get<std::uint64_t>());
  const std::string recorded = read_file(out / "injections.jsonl");
  EXPECT_EQ(std::count(recorded.begin(), recorded.end(), '\n'), 2) << recorded;
  const Said replay = kausal_says(
      {"run", "--replay", out.string(), "--method", "conservative", "--layout", "process"},
      dir / "replay");
  EXPECT_EQ(replay.code, 0) << replay.text;
  EXPECT_NE(replay.text.find("the same digest"), std::string::npos) << replay.text;
}

// kausal inject over the Operator of a run in component processes: a push takes effect at a
// step, a read answers with the newest committed values, what the run cannot take is refused
// (exit 2, the run goes on), a stop ends the run (exit 130, resumable); every accepted action
// is recorded, and kausal run --replay gives the run's digest under another method. After
// the run, no operator is left to call.
// A paced run's monitor flooded with 3,000 connections (half silent, half a GIOP header
// without its body; docs/tls.md, "What a run without TLS trusts"): the run goes on over its
// own connections, and an operator who connects for the first time meanwhile (kausal
// inject) is answered; the run ends with the unpaced digest.
TEST(RealtimeCli, AFloodedMonitorStillServesItsRunAndANewOperator) {
  TempDir dir;
  const std::string thesis = thesis_for(dir.path(), "4.0");
  const fs::path out = dir / "flooded";
  fs::create_directories(dir / "run");
  KausalProcess run({"run", thesis, "--method", "conservative", "--layout", "pendulum",
                     "--realtime", "1", "--skip-feasibility-check", "--out", out.string()},
                    dir / "run");
  ASSERT_TRUE(served(out / "operator.ior", run)) << run.err();
  const int port = listening_port(run.pid());
  ASSERT_GT(port, 0) << "no listening socket of the monitor found";
  ConnectionFlood flood(port, 3000);
  if (!flood.possible()) GTEST_SKIP() << "this test process may not open 3,000 files";
  EXPECT_GE(flood.size(), 1500u);
  std::this_thread::sleep_for(500ms);  // the monitor takes up what got in
  const Said read = kausal_says({"inject", out.string(), "read", "phi_1"}, dir / "read");
  EXPECT_EQ(read.code, 0) << read.text;
  EXPECT_NE(read.text.find("phi_1 "), std::string::npos) << read.text;
  EXPECT_LT(resident_mib(run.pid()), 512.0) << "MiB resident in the flooded monitor";
  ASSERT_EQ(run.wait(60s), std::optional<int>(0)) << run.err();
  flood.end();
  EXPECT_EQ(read_json(out / "summary.json")["trajectory_sha256"],
            unpaced_summary(thesis, dir.path())["trajectory_sha256"]);
}

TEST(RealtimeCli, InjectPushesReadsAndStopsARunAndItsReplayGivesItsDigest) {
  TempDir dir;
  const std::string thesis = thesis_for(dir.path(), "30.0");  // ends by the stop, not by itself
  const fs::path out = dir / "live";
  fs::create_directories(dir / "run");
  KausalProcess run({"run", thesis, "--method", "optimistic", "--layout", "pendulum", "--realtime",
                     "1", "--skip-feasibility-check", "--out", out.string()},
                    dir / "run");
  ASSERT_TRUE(served(out / "operator.ior", run)) << run.err();
  const Said push = kausal_says({"inject", out.string(), "push", "3", "0.05"}, dir / "push");
  ASSERT_EQ(push.code, 0) << push.text;
  EXPECT_NE(push.text.find("push takes effect at step"), std::string::npos) << push.text;
  const Said read = kausal_says({"inject", out.string(), "read", "phi_3", "omega_3"}, dir / "read");
  ASSERT_EQ(read.code, 0) << read.text;
  EXPECT_NE(read.text.find("omega_3 "), std::string::npos) << read.text;
  for (const auto& [args, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"push", "99", "0.1"}, "refused"},
           // Once accepted and recorded, then the run failed (and so did its replay).
           {{"push", "3", "1e308"}, "rad per step"},
           {{"set", "upper.inflow", "0.1"}, "refused"},
           {{"read", "nothing_9"}, "refused"}}) {
    std::vector<std::string> command{"inject", out.string()};
    command.insert(command.end(), args.begin(), args.end());
    const Said bad = kausal_says(command, dir / ("bad-" + args.front()));
    EXPECT_EQ(bad.code, 2) << args.front() << ": " << bad.text;
    EXPECT_NE(bad.text.find(says), std::string::npos) << args.front() << ": " << bad.text;
  }
  const Said stop = kausal_says({"inject", out.string(), "stop"}, dir / "stop");
  ASSERT_EQ(stop.code, 0) << stop.text;
  ASSERT_EQ(run.wait(30s), std::optional<int>(130)) << run.err();
  EXPECT_EQ(read_json(out / "summary.json")["status"], "interrupted");
  EXPECT_FALSE(fs::exists(out / "operator.ior"));  // withdrawn with the run
  const std::string recorded = read_file(out / "injections.jsonl");
  EXPECT_EQ(std::count(recorded.begin(), recorded.end(), '\n'), 2) << recorded;  // push, stop
  const Said gone = kausal_says({"inject", out.string(), "read", "phi_1"}, dir / "gone");
  EXPECT_EQ(gone.code, 2) << gone.text;
  EXPECT_NE(gone.text.find("operator.ior"), std::string::npos) << gone.text;
  const Said replay =
      kausal_says({"run", "--replay", out.string(), "--method", "conservative"}, dir / "replay");
  EXPECT_EQ(replay.code, 0) << replay.text;
  EXPECT_NE(replay.text.find("the same digest"), std::string::npos) << replay.text;
}

// A set that makes a partition unstable (mass2's spring 10^5 times stiffer: RK4 at 1 ms
// needs ω below 2,830/s) runs the stability check of the start again: a run paced by the wall
// clock with the feasibility check refuses it, naming the partition and the limit; one
// without the check takes it and warns on its terminal.
// The checked run is paced at 50 ms a step (its first 0.1 s in 5 s): the feasibility check
// that must let it start takes the p99 of a step's time, which a busy neighbour's time slice
// (several ms) can stretch past a 1 ms budget (it did, beside the other tests).
TEST(RealtimeCli, ASetThatMakesAPartitionUnstableIsRefusedOrWarnedAbout) {
  TempDir dir;
  const fs::path file =
      scenario_variant("two-mass.toml", dir.path(), {{"t_end = 5.0", "t_end = 0.1"}});
  for (const bool checked : {true, false}) {
    const std::string name = checked ? "checked" : "unchecked";
    const fs::path out = dir / name;
    fs::create_directories(dir / (name + "-run"));
    std::vector<std::string> args = {"run",        file.string(), "--method",
                                     "sequential", "--out",       out.string()};
    for (const char* option :
         checked ? std::vector<const char*>{"--realtime", "0.02"}
                 : std::vector<const char*>{"--external-clock", "--skip-feasibility-check"})
      args.push_back(option);
    KausalProcess run(args, dir / (name + "-run"));
    ASSERT_TRUE(served(out / "operator.ior", run)) << run.err();
    const Said stiff =
        kausal_says({"inject", out.string(), "set", "mass2.k", "1e8"}, dir / (name + "-set"));
    const Said soft =
        kausal_says({"inject", out.string(), "set", "mass2.k", "2000"}, dir / (name + "-soft"));
    EXPECT_EQ(soft.code, 0) << soft.text;
    // The second leaves the model stable to its end (5 s on the wall clock, or ticked now).
    if (!checked) {
      EXPECT_EQ(kausal_says({"tick", out.string(), "--all"}, dir / (name + "-tick")).code, 0);
    }
    ASSERT_EQ(run.wait(30s), std::optional<int>(0)) << run.err();
    if (checked) {
      EXPECT_EQ(stiff.code, 2) << stiff.text;
      EXPECT_NE(stiff.text.find("mass2: h = 0.001 s exceeds the rk4 stability limit"),
                std::string::npos)
          << stiff.text;
      EXPECT_EQ(run.err().find("warning"), std::string::npos) << run.err();
    } else {
      EXPECT_EQ(stiff.code, 0) << stiff.text;
      EXPECT_NE(run.err().find("warning: set mass2.k = 1e+08: mass2: h = 0.001 s exceeds the "
                               "rk4 stability limit"),
                std::string::npos)
          << run.err();
    }
  }
}

// A resumed run applies what was injected into it and its checkpoint does not hold: a set
// (the checkpoint holds states, not what an operator set) and a push recorded after the last
// checkpoint (the monitor killed before it took effect or was checkpointed). Its digest is
// the replay's: the uninterrupted run with the same injections. An unpaced resume releases
// its steps as fast as it goes, as a replay does, so that they wait at their steps. (A resume
// once started from the checkpoint without them: a set was lost, a push after it too.)
TEST(RealtimeCli, AResumedRunAppliesTheInjectionsItsCheckpointDoesNotHold) {
  TempDir dir;
  struct Case {
    std::string name;
    std::vector<std::string> run;
    std::vector<std::string> injection;
    int signal;
  };
  const std::string tanks = (fs::path(KAUSAL_SOURCE_DIR) / "scenarios/two-tanks.toml").string();
  const std::vector<Case> cases = {
      {"tanks",
       {tanks, "--method", "conservative", "--realtime", "60"},
       {"set", "upper.inflow", "0.1"},
       SIGINT},
      {"chain",
       {thesis_for(dir.path(), "30.0"), "--realtime", "1"},
       {"push", "3", "0.05"},
       SIGKILL},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const fs::path out = dir / c.name;
    std::vector<std::string> args{"run"};
    args.insert(args.end(), c.run.begin(), c.run.end());
    args.insert(args.end(), {"--skip-feasibility-check", "--out", out.string()});
    fs::create_directories(dir / (c.name + "-run"));
    KausalProcess run(args, dir / (c.name + "-run"));
    ASSERT_TRUE(served(out / "operator.ior", run)) << run.err();
    std::vector<std::string> inject{"inject", out.string()};
    inject.insert(inject.end(), c.injection.begin(), c.injection.end());
    const Said injected = kausal_says(inject, dir / (c.name + "-inject"));
    ASSERT_EQ(injected.code, 0) << injected.text;
    if (c.signal == SIGINT) std::this_thread::sleep_for(1s);  // the set taken and checkpointed
    ASSERT_EQ(kill(run.pid(), c.signal), 0);
    run.wait(30s);
    const Said resumed = kausal_says({"run", "--resume", out.string()}, dir / (c.name + "-resume"));
    ASSERT_EQ(resumed.code, 0) << resumed.text;
    const Said replay = kausal_says({"run", "--replay", out.string()}, dir / (c.name + "-replay"));
    EXPECT_EQ(replay.code, 0) << replay.text;
    EXPECT_NE(replay.text.find("the same digest"), std::string::npos) << replay.text;
    const std::string recorded = read_file(out / "injections.jsonl");
    EXPECT_EQ(std::count(recorded.begin(), recorded.end(), '\n'), 1) << recorded;  // not twice
  }
}

// The example controller (examples/level_controller.cpp) in the loop of the two tanks paced at
// 120 simulated seconds per wall second: it reads the lower level and writes the upper inflow
// over the Operator every 20 ms, reports its cycles and deadline misses, and holds the level
// near its setpoint (without it the tank settles at 0.09 m); its writes are recorded, and the
// replay reproduces the closed-loop run without it.
TEST(RealtimeCli, ALevelControllerClosesTheLoopAndTheReplayGivesItsDigest) {
  TempDir dir;
  const fs::path tanks = fs::path(KAUSAL_SOURCE_DIR) / "scenarios/two-tanks.toml";
  const fs::path out = dir / "loop";
  fs::create_directories(dir / "run");
  KausalProcess run({"run", tanks.string(), "--method", "conservative", "--realtime", "120",
                     "--skip-feasibility-check", "--out", out.string()},
                    dir / "run");
  ASSERT_TRUE(served(out / "operator.ior", run)) << run.err();
  const Said controller = kausal_says({out.string(), "--setpoint", "0.15", "--cycle", "0.02"},
                                      dir / "controller", "kausal-level-controller");
  ASSERT_EQ(run.wait(30s), std::optional<int>(0)) << run.err();
  ASSERT_EQ(controller.code, 0) << controller.text;
  EXPECT_NE(controller.text.find("deadline misses"), std::string::npos) << controller.text;
  // The lower tank's level in the last row of trajectory.csv.
  const std::string csv = read_file(out / "trajectory.csv");
  const std::string header = csv.substr(0, csv.find('\n'));
  std::size_t column = 0;
  for (std::size_t at = 0; at < header.find("lower.level"); at = header.find(',', at) + 1) ++column;
  std::string last = csv.substr(csv.rfind('\n', csv.size() - 2) + 1);
  for (std::size_t k = 0; k < column; ++k) last = last.substr(last.find(',') + 1);
  EXPECT_NEAR(std::stod(last), 0.15, 0.01) << header << "\n" << last;
  const Said replay = kausal_says({"run", "--replay", out.string()}, dir / "replay");
  EXPECT_EQ(replay.code, 0) << replay.text;
  EXPECT_NE(replay.text.find("the same digest"), std::string::npos) << replay.text;
}

}  // namespace
}  // namespace kausal::testing
