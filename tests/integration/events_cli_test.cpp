// Discrete-event models through the command line (docs/events.md): `kausal compare` runs
// sequential, conservative and optimistic event groups and reports their figures; a
// deadlock names its cycle; bad scenarios and options get file:line and exit 2.
#include <gtest/gtest.h>

#include "kausal_process.hpp"

namespace kausal::testing {
namespace {

std::string phold_text(const std::string& events, const std::string& parameters) {
  return "name = \"t\"\n[events]\nmodel = \"phold\"\nend = 40.0\n" + events +
         "\n[parameters]\ncomponents = 8\npopulation = 2\nremote = 0.5\n" + parameters + "\n";
}

TEST(EventsCli, CompareRunsEveryMethodWithTheSequentialDigestAndItsFigures) {
  TempDir dir;
  const fs::path out = dir / "cmp";
  KausalProcess p({"compare", (kScenarios / "phold.toml").string(), "--out", out.string()},
                  dir.path());
  ASSERT_EQ(p.wait(std::chrono::seconds(120)).value_or(-1), 0) << p.err();
  for (const char* column :
       {"committed/s", "efficiency", "anti-messages", "null messages", "blocked s"})
    EXPECT_NE(p.out().find(column), std::string::npos) << column << "\n" << p.out();
  const auto rows = read_json(out / "comparison.json")["rows"];
  ASSERT_EQ(rows.size(), 3u);
  const auto committed = rows[0]["events"]["committed"].get<std::uint64_t>();
  EXPECT_GT(committed, 100'000u);
  for (const auto& row : rows) {
    EXPECT_TRUE(row["digest_equal"].get<bool>()) << row.dump();
    EXPECT_EQ(row["events"]["committed"].get<std::uint64_t>(), committed) << row.dump();
    EXPECT_LE(row["events"]["efficiency"].get<double>(), 1.0);
  }
  EXPECT_EQ(rows[0]["label"], "sequential");
  EXPECT_GT(rows[1]["events"]["null_messages"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(rows[1]["events"]["rollbacks"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(rows[2]["events"]["null_messages"].get<std::uint64_t>(), 0u);
  // report.html shows the events' figures, the same as comparison.json (it once showed 0
  // rollbacks and 0 Calc calls for every method).
  const std::string report = read_file(out / "report.html");
  EXPECT_EQ(report.find("Calc calls"), std::string::npos);
  for (const char* key : {"committed", "rollbacks", "anti_messages", "null_messages"}) {
    const std::string shown = "data-key=\"" + std::string(key) + "\" data-value=\"" +
                              rows[2]["events"][key].dump() + "\"";
    EXPECT_NE(report.find(shown), std::string::npos) << shown;
  }
  const auto summary = read_json(out / "optimistic" / "summary.json");
  EXPECT_EQ(summary["layout"], "single");
  EXPECT_EQ(summary["events"]["groups"], 2);
  // Every component's totals, as docs/events.md promises, adding up to the run's.
  const auto& per_component = summary["events"]["components"];
  ASSERT_TRUE(per_component.is_array()) << summary["events"].dump();
  ASSERT_EQ(per_component.size(), summary["events"]["component_count"].get<std::size_t>());
  std::uint64_t committed_sum = 0;
  for (const auto& c : per_component) committed_sum += c["committed"].get<std::uint64_t>();
  EXPECT_EQ(committed_sum, summary["events"]["committed"].get<std::uint64_t>());
  EXPECT_GT(summary["events"]["gvt_rounds"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(summary["events"]["processed"].get<std::uint64_t>() -
                summary["events"]["committed"].get<std::uint64_t>(),
            summary["events"]["rolled_back"].get<std::uint64_t>());
  ASSERT_EQ(summary["components"].size(), 2u);
  EXPECT_EQ(summary["components"][0]["role"], "event-group");
}

TEST(EventsCli, ZeroLookaheadDeadlocksWithTheCycleNamedOrRecovers) {
  TempDir dir;
  write_file(dir / "fail.toml", phold_text("groups = 2", "mean = 1.0\nlookahead = 0.0"));
  std::string err;
  EXPECT_EQ(run_kausal({"run", (dir / "fail.toml").string(), "--method", "conservative", "--out",
                        (dir / "fail").string()},
                       dir.path(), &err),
            1)
      << err;
  EXPECT_NE(err.find("deadlock at t = "), std::string::npos) << err;
  EXPECT_NE(err.find("component-0"), std::string::npos) << err;
  EXPECT_NE(err.find("deadlock = \"recover\""), std::string::npos) << err;
  const auto failed = read_json(dir / "fail" / "summary.json");
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["events"]["deadlocks"], 1);

  write_file(dir / "recover.toml",
             phold_text("groups = 2\ndeadlock = \"recover\"", "mean = 1.0\nlookahead = 0.0"));
  for (const char* method : {"sequential", "conservative"}) {
    const fs::path out = dir / method;
    ASSERT_EQ(run_kausal({"run", (dir / "recover.toml").string(), "--method", method, "--out",
                          out.string()},
                         dir.path(), &err),
              0)
        << err;
  }
  const auto sequential = read_json(dir / "sequential" / "summary.json");
  const auto recovered = read_json(dir / "conservative" / "summary.json");
  EXPECT_EQ(recovered["trajectory_sha256"], sequential["trajectory_sha256"]);
  EXPECT_GT(recovered["events"]["deadlocks"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(recovered["events"]["permits"], recovered["events"]["deadlocks"]);
}

// --rollback-check on event groups, threads and processes: every event handled again from
// its restored state, the sequential digest.
TEST(EventsCli, TheRollbackCheckRunsInEveryMethodAndLayout) {
  TempDir dir;
  write_file(dir / "phold.toml", phold_text("", ""));
  const auto summary = [&](std::vector<std::string> extra, const std::string& name) {
    std::vector<std::string> args{"run", (dir / "phold.toml").string(), "--out",
                                  (dir / name).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    std::string err;
    EXPECT_EQ(run_kausal(args, dir.path(), &err, std::chrono::seconds(120)), 0) << name << err;
    return read_json(dir / name / "summary.json");
  };
  const auto seq = summary({}, "seq");
  for (const char* method : {"conservative", "optimistic"})
    for (const char* layout : {"single", "process"}) {
      const std::string name = std::string(method) + "-" + layout;
      const auto r = summary({"--method", method, "--layout", layout, "--rollback-check"}, name);
      EXPECT_EQ(r["status"], "completed") << name;
      EXPECT_EQ(r["trajectory_sha256"], seq["trajectory_sha256"]) << name;
    }
}

TEST(EventsCli, BadScenariosAndOptionsAreRefusedWithTheirPlace) {
  TempDir dir;
  const auto refused = [&](const std::string& text, std::vector<std::string> extra,
                           const std::string& expected) {
    write_file(dir / "bad.toml", text);
    std::vector<std::string> args{"run", (dir / "bad.toml").string(), "--out",
                                  (dir / "out").string(), "--force"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::string err;
    EXPECT_EQ(run_kausal(args, dir.path(), &err), 2) << text << err;
    EXPECT_NE(err.find(expected), std::string::npos) << "expected '" << expected << "' in\n" << err;
  };
  refused(phold_text("", "speed = 3.0"), {},
          "bad.toml:10: unknown parameter 'speed' of model phold");
  refused(phold_text("", "seed = 2.0\nmean = 1.0\nlookahead = 2.0"), {}, "bad.toml:6: phold:");
  refused(phold_text("", "mean = 0.5\nlookahead = 1.0"), {}, "mean must be finite and at least");
  refused(phold_text("", "seed = 2.5"), {}, "bad.toml:10: parameters.seed must be a whole number");
  refused(phold_text("", "seed = 1e300"), {}, "parameters.seed must be at most 9007199254740992");
  refused("[events]\nmodel = \"phold\"\nend = 1.0\n[parameters]\ncomponents = 5000\n", {},
          "parameters.components must be at most 4096");
  refused(phold_text("groups = 20", ""), {}, "events.groups is more than the model's 8 components");
  refused(phold_text("windw = 2.0", ""), {}, "unknown key 'events.windw'");
  refused("[events]\nmodel = \"phold2\"\nend = 1.0\n", {},
          "'phold2' is not an event model (known: phold, queueing-network, three-components, "
          "level-switch, floor, repair-crew)");
  refused("[events]\nmodel = \"phold\"\n", {}, "missing field events.end");
  refused(phold_text("", ""), {"--method", "optimistic", "--layout", "pendulum"},
          "event groups have neither");
  refused(phold_text("", ""), {"--method", "optimistic", "--groups", "9"},
          "--groups 9 is more than the model's 8 components");
  refused(phold_text("", ""), {"--method", "optimistic", "--window", "5"},
          "--window with the events model, optimistic in the single layout: a discrete-event "
          "model's settings are in its scenario's [events] table");
  std::string err;
  EXPECT_EQ(run_kausal({"run", (kScenarios / "cradle.toml").string(), "--groups", "2", "--out",
                        (dir / "chain").string()},
                       dir.path(), &err),
            2);
  EXPECT_NE(err.find("--groups with the chain model, sequential: --groups splits discrete-event"),
            std::string::npos)
      << err;
}

}  // namespace
}  // namespace kausal::testing
