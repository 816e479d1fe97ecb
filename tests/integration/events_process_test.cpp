// Discrete-event groups as processes (docs/events.md, "Process layout"): real
// kausal-event-group processes started by `kausal run --layout process`, events peer to peer
// between them. Every shipped event scenario commits the sequential digest under both
// methods; a deadlock across processes names its cycle; a killed or hung group ends the run
// with exit 3 naming it, and no process is left; hostile calls to a group are refused.
#include <gtest/gtest.h>
#include <signal.h>

#include <cmath>

#include "component_client.hpp"
#include "idl/event_convert.hpp"
#include "kausal_process.hpp"
#include "monitor/deploy/event_group_deployment.hpp"

namespace kausal::testing {
namespace {

using namespace std::chrono_literals;

TEST(EventsProcess, EveryShippedScenarioCommitsTheSequentialDigestInProcesses) {
  TempDir dir;
  for (const char* name :
       {"phold", "queueing-network", "three-components", "phold-zero-lookahead"}) {
    const std::string file = (kScenarios / (std::string(name) + ".toml")).string();
    const auto reference =
        run_ok(file, {"--method", "sequential"}, dir / name / "seq", dir).summary;
    const std::string digest = reference["trajectory_sha256"];
    for (const char* method : {"conservative", "optimistic"}) {
      const auto s =
          run_ok(file, {"--method", method, "--layout", "process"}, dir / name / method, dir)
              .summary;
      EXPECT_EQ(s["trajectory_sha256"], digest) << name << " " << method;
      EXPECT_EQ(s["layout"], "process");
      EXPECT_EQ(s["events"]["committed"], reference["events"]["committed"]) << name << method;
      // Each group ran in a process of its own, not in the monitor.
      ASSERT_GE(s["components"].size(), 2u);
      std::set<long> pids;
      for (const auto& c : s["components"]) {
        EXPECT_EQ(c["role"], "event-group");
        pids.insert(c["pid"].get<long>());
      }
      EXPECT_EQ(pids.size(), s["components"].size()) << s["components"].dump();
    }
  }
}

TEST(EventsProcess, ADeadlockAcrossProcessesNamesItsCycle) {
  TempDir dir;
  write_file(dir / "zero.toml",
             "name = \"z\"\n[events]\nmodel = \"phold\"\nend = 40.0\ngroups = 2\n"
             "[parameters]\ncomponents = 8\npopulation = 2\nremote = 0.5\nmean = 1.0\n"
             "lookahead = 0.0\n");
  std::string err;
  EXPECT_EQ(run_kausal({"run", (dir / "zero.toml").string(), "--method", "conservative", "--layout",
                        "process", "--out", (dir / "z").string()},
                       dir.path(), &err),
            1)
      << err;
  EXPECT_NE(err.find("deadlock at t = "), std::string::npos) << err;
  EXPECT_NE(err.find("Cycle: group-"), std::string::npos) << err;
  const auto failed = read_json(dir / "z" / "summary.json");
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["events"]["deadlocks"], 1);
}

// A long optimistic PHOLD run in processes, and one group's process stopped or killed.
void lose_a_group_and_expect_exit_3(int signal) {
  TempDir dir;
  write_file(dir / "long.toml",
             "name = \"long\"\n[events]\nmodel = \"phold\"\nend = 1e7\ngroups = 3\n"
             "[parameters]\ncomponents = 24\npopulation = 1\nremote = 0.5\n");
  KausalProcess run({"run", (dir / "long.toml").string(), "--method", "optimistic", "--layout",
                     "process", "--call-timeout", "1000", "--out", (dir / "o").string()},
                    dir.path());
  const auto victim = run.component_pid("event-group-1");
  ASSERT_TRUE(victim) << run.err();
  // Every group's process, each waited for: the first can be known while the last is starting.
  std::vector<pid_t> pids;
  for (des::GroupId g = 0; g < 3; ++g)
    if (const auto pid = run.component_pid(event_group_process(g))) pids.push_back(*pid);
  EXPECT_EQ(pids.size(), 3u);
  EXPECT_EQ(children_of(run.pid()).size(), 3u);
  std::this_thread::sleep_for(500ms);  // running
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(kill(*victim, signal), 0);
  const auto code = run.wait(20s);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (signal == SIGSTOP) kill(*victim, SIGKILL);  // if the run left it, end it ourselves
  ASSERT_TRUE(code) << "the run did not end within 20 s";
  EXPECT_EQ(*code, 3) << run.err();
  EXPECT_NE(run.err().find("event-group-1"), std::string::npos) << run.err();
  std::printf("group lost (signal %d), run ended after %.2f s\n", signal, took);
  // At once for a dead process; for a hung one the bound of every component kind (it once
  // took 6 s with a call timeout of 1 s: groups had no heartbeat).
  EXPECT_LT(took, liveness_bound_s(1.0));
  const auto summary = read_json(dir / "o" / "summary.json");
  EXPECT_EQ(summary["status"], "failed");
  // The lost group's components are unknown: no digest is claimed for the run.
  EXPECT_TRUE(!summary.contains("trajectory_sha256") || summary["trajectory_sha256"] == "")
      << summary.dump();
  for (pid_t pid : pids) EXPECT_FALSE(process_exists(pid)) << "process " << pid << " left behind";
}

TEST(EventsProcess, AKilledGroupEndsTheRunWithExitThreeNamingIt) {
  lose_a_group_and_expect_exit_3(SIGKILL);
}

TEST(EventsProcess, AHungGroupIsFoundWithinTheCallTimeout) {
  lose_a_group_and_expect_exit_3(SIGSTOP);
}

// ---- hostile calls to one kausal-event-group process ----

struct WireGroup {
  TempDir dir;
  ChildProcess process{"event-group-w",
                       fs::path(KAUSAL_BIN_DIR) / "kausal-event-group",
                       {"--name", "event-group-w", "--call-timeout-ms", "1000"},
                       dir / "group.log"};
  idl::EventGroup_var group = start_component<idl::EventGroup>(process);

  static des::GroupSetup setup() {
    des::GroupSetup s;
    s.model = "phold";
    s.parameters = {{"components", 4}};
    s.owner = {0, 0, 1, 1};
    s.settings.end = 10;
    return s;
  }
};

// Events far ahead of a group's clock used to be kept without bound (5.7 M events in 20 s:
// 517 MB and growing). Now a group holds at most its share of the memory budget: the flood
// ends the group with an error naming the budget, and what still arrives is refused.
TEST(EventsProcess, AFloodOfEventsFarAheadEndsWithinTheMemoryBudget) {
  WireGroup w;
  des::GroupSetup setup = WireGroup::setup();
  setup.owner = {0, 0, 0, 0};  // one group: it runs on its own, connected to nobody
  setup.settings.end = 1e12;
  w.group->set_up(to_idl(setup));
  idl::EventGroupSeq peers;
  peers.length(1);
  w.group->connect(peers);
  w.group->start();
  constexpr std::uint64_t per_call = 100'000;
  std::vector<des::GroupMessage> batch(per_call);
  std::string refused;
  std::string failure;
  std::uint64_t sent = 0;
  for (int call = 0; call < 300 && refused.empty() && failure.empty(); ++call) {
    for (std::uint64_t k = 0; k < per_call; ++k) {
      des::GroupMessage& m = batch[k];
      m.kind = des::MessageKind::event;
      m.event.key = {1e9 + static_cast<double>(sent + k), 3, sent + k};
      m.event.destination = static_cast<des::ComponentId>(k % 4);
    }
    refused = reason_of<idl::ProtocolViolation>([&] { w.group->deliver(to_idl(batch)); });
    if (refused.empty()) sent += per_call;
    idl::EventGroupStatus_var status = w.group->status();
    failure = status->failure_reason.in();
  }
  for (int k = 0; k < 100 && failure.empty(); ++k) {  // the group's thread may lag behind
    std::this_thread::sleep_for(50ms);
    idl::EventGroupStatus_var status = w.group->status();
    failure = status->failure_reason.in();
  }
  EXPECT_NE((failure + refused).find("(the memory budget)"), std::string::npos)
      << "failure: " << failure << "; refused: " << refused;
  EXPECT_GT(sent, 500'000u);
  EXPECT_LT(resident_mib(w.process.pid()), 1000.0);
  w.group->ping();
  EXPECT_TRUE(w.process.running());
}

// Hostile calls: EventGroup::set_up EventGroup::connect EventGroup::start EventGroup::deliver
// Hostile calls: EventGroup::status EventGroup::permit EventGroup::result
TEST(EventsProcess, HostileCallsToAGroupAreRefusedAndItStaysUp) {
  WireGroup w;
  using V = idl::ProtocolViolation;
  const idl::EventGroupStatus_var unset = w.group->status();
  EXPECT_FALSE(unset->started);
  const idl::EventKey nan_key{std::nan(""), 0, 0};
  EXPECT_NE(reason_of<V>([&] { w.group->permit(nan_key); }).find("before set_up"),
            std::string::npos);
  EXPECT_NE(reason_of<V>([&] { w.group->start(); }).find("before set_up"), std::string::npos);
  idl::GroupMessageSeq none;
  EXPECT_NE(reason_of<V>([&] { w.group->deliver(none); }).find("before set_up"), std::string::npos);
  EXPECT_THROW(w.group->result(), V);

  des::GroupSetup bad = WireGroup::setup();
  bad.model = "no-such-model";
  EXPECT_NE(reason_of<V>([&] { w.group->set_up(to_idl(bad)); }).find("no-such-model"),
            std::string::npos);
  bad = WireGroup::setup();
  bad.owner = {0, 0, 1};
  EXPECT_NE(reason_of<V>([&] { w.group->set_up(to_idl(bad)); }).find("3 components"),
            std::string::npos);
  // A group number beyond the components: it once wrapped the group count to 0 (4294967295
  // + 1) and indexed past the groups (SIGSEGV), or sized 10^9 groups.
  for (const des::GroupId beyond : {4'294'967'295u, 1'000'000'000u, 4u}) {
    bad = WireGroup::setup();
    bad.owner[3] = beyond;
    EXPECT_NE(reason_of<V>([&] {
                w.group->set_up(to_idl(bad));
              }).find("group " + std::to_string(beyond) + ", beyond the 4 groups"),
              std::string::npos)
        << beyond;
  }
  bad = WireGroup::setup();
  bad.group = 7;
  EXPECT_NE(reason_of<V>([&] { w.group->set_up(to_idl(bad)); }).find("group 7"), std::string::npos);
  bad = WireGroup::setup();
  bad.settings.end = std::nan("");
  EXPECT_NE(reason_of<V>([&] { w.group->set_up(to_idl(bad)); }).find("end"), std::string::npos);
  bad = WireGroup::setup();
  bad.parameters["components"] = 1e12;  // beyond the model's bound
  EXPECT_THROW(w.group->set_up(to_idl(bad)), idl::ModelFailure);

  w.group->set_up(to_idl(WireGroup::setup()));
  EXPECT_NE(reason_of<V>([&] { w.group->start(); }).find("before connect"), std::string::npos);
  EXPECT_NE(reason_of<V>([&] { w.group->permit(nan_key); }), "") << "a permit at t = NaN";
  idl::EventGroupSeq peers;
  peers.length(3);
  EXPECT_NE(reason_of<V>([&] { w.group->connect(peers); }).find("3 groups"), std::string::npos);

  // Messages that name what this run does not have.
  const auto message = [](des::MessageKind kind) {
    des::GroupMessage m;
    m.kind = kind;
    m.from = 1;
    m.event.key = {1.0, 2, 0};
    m.event.destination = 0;
    return m;
  };
  const auto deliver = [&](const idl::GroupMessage& m) {
    idl::GroupMessageSeq batch;
    batch.length(1);
    batch[0] = m;
    return reason_of<V>([&] { w.group->deliver(batch); });
  };
  idl::GroupMessage m = to_idl(message(des::MessageKind::event));
  m.kind = 99;
  EXPECT_NE(deliver(m).find("unknown kind 99"), std::string::npos);
  m = to_idl(message(des::MessageKind::event));
  m.destination = 2;  // group 1's
  EXPECT_NE(deliver(m).find("does not run"), std::string::npos);
  m.destination = 4'000'000'000u;
  EXPECT_NE(deliver(m).find("does not run"), std::string::npos);
  m = to_idl(message(des::MessageKind::event));
  m.from = 9;
  EXPECT_NE(deliver(m).find("2 groups"), std::string::npos);
  m = to_idl(message(des::MessageKind::event));
  m.key.time = std::nan("");
  EXPECT_NE(deliver(m).find("an event at t"), std::string::npos);
  m = to_idl(message(des::MessageKind::gvt_token));
  EXPECT_NE(deliver(m).find("GVT token"), std::string::npos);
  m.token.length(1);
  m.token[0].round = 1;
  m.token[0].in_transit.length(1000);  // not one per group
  EXPECT_NE(deliver(m).find("malformed GVT token"), std::string::npos);
  m = to_idl(message(des::MessageKind::guarantee));
  m.time = std::nan("");
  EXPECT_NE(deliver(m).find("not a number"), std::string::npos);

  w.group->ping();  // still up
  EXPECT_TRUE(w.process.running());
}

}  // namespace
}  // namespace kausal::testing
