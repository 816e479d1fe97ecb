// kausal run / compare with real component processes: equivalence and bad input.
#include <gtest/gtest.h>

#include <sstream>

#include "common/text_table.hpp"
#include "kausal_process.hpp"

namespace kausal::testing {
namespace {

std::size_t csv_rows(const fs::path& csv) {
  std::ifstream in(csv);
  std::size_t rows = 0;
  std::string line;
  while (std::getline(in, line)) ++rows;
  return rows > 0 ? rows - 1 : 0;  // minus the header
}

// The shipped scenario's first 4 s (impacts from the first second on; the pinned digests
// cover whole runs in every layout).
void expect_same_run_by_processes(const std::string& name, const std::string& pin) {
  TempDir dir;
  const std::string file = scenario_variant(name, dir.path(),
                                            {{"duration = 20.0", "duration = 4.0"},
                                             {"duration = 10.0", "duration = 4.0"}})
                               .string();
  std::string err;
  ASSERT_EQ(run_kausal({"run", file, "--method", "sequential", "--out", (dir / "seq").string()},
                       dir.path(), &err),
            0)
      << err;
  ASSERT_EQ(run_kausal({"run", file, "--method", "conservative", "--pin", pin, "--out",
                        (dir / "con").string()},
                       dir.path(), &err),
            0)
      << err;
  const auto seq = read_json(dir / "seq/summary.json");
  const auto con = read_json(dir / "con/summary.json");
  EXPECT_EQ(con["status"], "completed");
  EXPECT_EQ(con["placement"], pin);
  EXPECT_EQ(con["trajectory_sha256"], seq["trajectory_sha256"]);
  EXPECT_EQ(con["trajectory_sha256"].get<std::string>().size(), 64u);
  EXPECT_EQ(con["collisions"], seq["collisions"]);
  EXPECT_GT(con["collisions"].get<int>(), 5);
  EXPECT_EQ(con["calc_calls"], seq["calc_calls"]);
  EXPECT_EQ(con["steps"], seq["steps"]);
  // Every component is listed with its timing; Systems did every Calc.
  const auto pendulums = con["pendulums"].get<std::size_t>();
  std::size_t systems = 0, integrators = 0, calcs = 0;
  for (const auto& c : con["components"]) {
    EXPECT_TRUE(c["reachable"].get<bool>()) << c["name"];
    EXPECT_GE(c["busy_s"].get<double>(), 0.0);
    EXPECT_GE(c["idle_s"].get<double>(), 0.0);
    EXPECT_GT(c["pid"].get<long>(), 0);
    if (c["role"] == "system") {
      ++systems;
      calcs += c["calc_calls"].get<std::size_t>();
    }
    integrators += c["role"] == "integrator";
  }
  EXPECT_EQ(systems, pendulums);
  EXPECT_EQ(integrators, pendulums);
  EXPECT_EQ(calcs, con["calc_calls"].get<std::size_t>());
  // Both trajectories have the same rows, and byte-identical files.
  EXPECT_GT(csv_rows(dir / "con/trajectory.csv"), 100u);
  EXPECT_EQ(read_file(dir / "con/trajectory.csv"), read_file(dir / "seq/trajectory.csv"));
}

// `kausal capabilities` prints the table that docs/capabilities.md holds (a unit test holds
// the page to the table in the code), and `run --help` says where to find it.
TEST(Cli, CapabilitiesPrintsTheTableOfTheDocs) {
  TempDir dir;
  KausalProcess table({"capabilities"}, dir.path());
  ASSERT_EQ(table.wait(std::chrono::seconds(30)), 0) << table.err();
  const std::string doc = read_file(fs::path(KAUSAL_SOURCE_DIR) / "docs/capabilities.md");
  EXPECT_NE(table.out().find("master: "), std::string::npos) << table.out();
  EXPECT_NE(doc.find("```text\n" + table.out() + "```"), std::string::npos)
      << "docs/capabilities.md differs from `kausal capabilities`:\n"
      << table.out();
  KausalProcess help({"run", "--help"}, dir.path(), {{"COLUMNS", "200"}});  // (unwrapped)
  ASSERT_EQ(help.wait(std::chrono::seconds(30)), 0);
  EXPECT_NE(help.out().find("kausal capabilities"), std::string::npos) << help.out();
}

TEST(Cli, ThesisConservativeProcessesEqualSequential) {
  expect_same_run_by_processes("thesis.toml", "cores");
}

TEST(Cli, CradleConservativeProcessesEqualSequential) {
  expect_same_run_by_processes("cradle.toml", "none");
}

TEST(Cli, CompareRunsEveryMethodAndAgrees) {
  TempDir dir;
  const auto short_run =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 3.0"}});
  KausalProcess p({"compare", short_run.string(), "--out", (dir / "cmp").string()}, dir.path());
  ASSERT_EQ(p.wait(std::chrono::seconds(100)), 0) << p.err();
  const std::string out = p.out();
  EXPECT_EQ(out.find("DIFFERS"), std::string::npos) << out;
  const auto reference = read_json(dir / "cmp/sequential/summary.json");
  for (const char* run : {"conservative-step", "conservative-lookahead", "optimistic"}) {
    const auto summary = read_json(dir / "cmp" / run / "summary.json");
    EXPECT_EQ(summary["trajectory_sha256"], reference["trajectory_sha256"]) << run;
    EXPECT_EQ(summary["status"], "completed") << run;
    const std::string label = std::string(run) == "optimistic"          ? "optimistic"
                              : std::string(run) == "conservative-step" ? "conservative/step"
                                                                        : "conservative/lookahead";
    EXPECT_NE(out.find(label), std::string::npos) << label << " missing from\n" << out;
  }
  EXPECT_GT(read_json(dir / "cmp/optimistic/summary.json")["rollbacks"].get<int>(), 0);
  EXPECT_LT(read_json(dir / "cmp/conservative-lookahead/summary.json")["rounds"].get<int>(),
            read_json(dir / "cmp/conservative-step/summary.json")["rounds"].get<int>());
}

// --methods: the methods named (sequential first in any case, the reference); a name the
// model kind does not have is exit 2 with its methods, before any directory is made.
TEST(Cli, CompareRunsTheMethodsNamed) {
  TempDir dir;
  const auto short_run =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 1.0"}});
  KausalProcess p({"compare", short_run.string(), "--methods", "optimistic,conservative/lookahead",
                   "--layout", "single", "--out", (dir / "cmp").string()},
                  dir.path());
  ASSERT_EQ(p.wait(std::chrono::seconds(100)), 0) << p.err();
  const auto rows = read_json(dir / "cmp" / "comparison.json")["rows"];
  ASSERT_EQ(rows.size(), 3u) << rows.dump();
  EXPECT_EQ(rows[0]["label"], "sequential");
  EXPECT_EQ(rows[1]["label"], "conservative/lookahead");
  EXPECT_EQ(rows[2]["label"], "optimistic");
  EXPECT_FALSE(fs::exists(dir / "cmp" / "conservative-step"));
  std::string err;
  EXPECT_EQ(run_kausal({"compare", short_run.string(), "--methods", "conservative/cheap", "--out",
                        (dir / "bad").string()},
                       dir.path(), &err),
            2);
  EXPECT_NE(err.find("--methods: 'conservative/cheap' is not a method of a chain model (its "
                     "methods: sequential, conservative/step, conservative/lookahead, "
                     "optimistic)"),
            std::string::npos)
      << err;
  EXPECT_FALSE(fs::exists(dir / "bad"));
}

struct BadScenario {
  const char* label;
  std::map<std::string, std::string> edit;  // on thesis.toml
  const char* expected;                     // "file:LINE: ..." after the path
};

TEST(Cli, BadScenariosExitTwoNamingFileAndLine) {
  const std::vector<BadScenario> cases = {
      {"missing field", {{"length = 0.95\n", ""}}, ":25: missing field pendulum[2].length"},
      {"negative length",
       {{"length = 0.95", "length = -0.95"}},
       ":27: pendulum[2].length must be > 0"},
      {"overlapping bobs",
       {{"pivot_x = 0.20", "pivot_x = 0.10"}},
       ":25: pendulum[2]: bob overlaps pendulum[1] at rest"},
      {"unknown key",
       {{"restitution = 0.9", "restitution = 0.9\nrestitushun = 1"}},
       ":17: unknown key 'model.restitushun'"},
      {"not TOML", {{"[model]", "[model"}}, ":13: not valid TOML"},
  };
  for (const auto& c : cases) {
    TempDir dir;
    const auto file = scenario_variant("thesis.toml", dir.path(), c.edit);
    std::string err;
    EXPECT_EQ(run_kausal({"run", file.string(), "--method", "conservative", "--out",
                          (dir / "out").string()},
                         dir.path(), &err),
              2)
        << c.label;
    EXPECT_NE(err.find(file.string() + c.expected), std::string::npos) << c.label << ": " << err;
    EXPECT_TRUE(children_of(getpid()).empty());
  }
}

TEST(Cli, CommandLineMistakesExitTwo) {
  TempDir dir;
  std::string err;
  EXPECT_EQ(
      run_kausal({"run", scenario("thesis.toml"), "--method", "telepathic"}, dir.path(), &err), 2);
  EXPECT_NE(err.find("telepathic"), std::string::npos) << err;
  EXPECT_EQ(run_kausal({"run", (dir / "missing.toml").string()}, dir.path(), &err), 2);
  EXPECT_NE(err.find("cannot open scenario file"), std::string::npos) << err;
  EXPECT_EQ(run_kausal({"frobnicate"}, dir.path(), &err), 2);
  // An option of another method is a mistake, not something to ignore.
  const std::string thesis = scenario("thesis.toml");
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"--method", "optimistic", "--guarantee", "lookahead"},
                                             {"--method", "conservative", "--check-guarantees"},
                                             {"--method", "conservative", "--window", "64"},
                                             {"--method", "sequential", "--rollback-check"}}) {
    std::vector<std::string> full = {"run", thesis, "--out", (dir / "never").string()};
    full.insert(full.end(), args.begin(), args.end());
    EXPECT_EQ(run_kausal(full, dir.path(), &err), 2) << args[1] << " " << args[2];
    EXPECT_NE(err.find("command line: --"), std::string::npos) << err;
  }
  EXPECT_FALSE(fs::exists(dir / "never"));
}

TEST(Cli, HelpAnswersTheUsualQuestions) {
  TempDir dir;
  KausalProcess p({"run", "--help"}, dir.path());
  ASSERT_EQ(p.wait(std::chrono::seconds(10)), 0);
  const std::string help = p.out();
  for (const char* word : {"--method", "sequential", "conservative", "--out", "--call-timeout",
                           "Exit codes", "3 peer or transport failure"})
    EXPECT_NE(help.find(word), std::string::npos) << word << " missing from:\n" << help;
}

// A run refused before its first step (here: more processes than --max-processes) says why
// once, on stderr, prints no summary and leaves no directory it made.
TEST(Cli, ARunRefusedBeforeItStartsSaysWhyOnceAndLeavesNothing) {
  TempDir dir;
  KausalProcess p({"run", scenario("thesis.toml"), "--method", "conservative", "--max-processes",
                   "1", "--out", (dir / "out").string()},
                  dir.path());
  ASSERT_EQ(p.wait(std::chrono::seconds(30)), 2) << p.err();
  const std::string err = p.err();
  const std::string why = "more than the limit of 1";
  ASSERT_NE(err.find(why), std::string::npos) << err;
  EXPECT_EQ(err.find(why, err.find(why) + 1), std::string::npos) << "said twice:\n" << err;
  EXPECT_EQ(p.out().find("status"), std::string::npos) << "a summary:\n" << p.out();
  EXPECT_FALSE(fs::exists(dir / "out"));
}

// Every help fits the terminal ($COLUMNS when stdout is not one): descriptions wrapped at
// spaces, indented under their column; nothing lost.
TEST(Cli, HelpIsWrappedToTheTerminal) {
  TempDir dir;
  for (const int columns : {80, 100}) {
    for (const std::string command : {"", "run", "compare", "inject", "node", "certs"}) {
      std::vector<std::string> args;
      if (!command.empty()) args.push_back(command);
      args.push_back("--help");
      KausalProcess p(args, dir.path(), {{"COLUMNS", std::to_string(columns)}});
      ASSERT_EQ(p.wait(std::chrono::seconds(10)), 0) << command;
      std::istringstream lines(p.out());
      std::size_t count = 0;
      for (std::string line; std::getline(lines, line); ++count)
        EXPECT_LE(display_width(line), static_cast<std::size_t>(columns))
            << "kausal " << command << " --help, COLUMNS=" << columns << ": " << line;
      EXPECT_GT(count, 5u) << command;
    }
  }
  // The other executables' --help too (the one formatter of common/help_formatter.hpp).
  for (const std::string program : {"kausal-animation", "kausal-system"}) {
    KausalProcess p({"--help"}, dir.path(), {{"COLUMNS", "100"}}, program);
    ASSERT_EQ(p.wait(std::chrono::seconds(10)), 0) << program;
    std::istringstream lines(p.out());
    for (std::string line; std::getline(lines, line);)
      EXPECT_LE(display_width(line), 100u) << program << " --help: " << line;
  }
  KausalProcess run({"run", "--help"}, dir.path(), {{"COLUMNS", "100"}});
  ASSERT_EQ(run.wait(std::chrono::seconds(10)), 0);
  EXPECT_NE(run.out().find("                              uninterrupted run. The scenario, method"),
            std::string::npos)
      << "a description's lines continue under its column:\n"
      << run.out();
}

}  // namespace
}  // namespace kausal::testing

namespace kausal::testing {
namespace {

TEST(Cli, ProgressBarOnlyOnATerminal) {
  TempDir dir;
  // Paced to two seconds (the bar appears after one), sleeping between steps: little CPU.
  // Without the feasibility check, which on a loaded machine may find the pace out of reach
  // (exit 2): this test is about the bar.
  const std::vector<std::string> paced = {"run",
                                          scenario("thesis.toml"),
                                          "--method",
                                          "sequential",
                                          "--realtime",
                                          "10",
                                          "--release",
                                          "sleep",
                                          "--skip-feasibility-check",
                                          "--out"};
  // Not a terminal: nothing but the summary, no carriage-return animation.
  std::vector<std::string> plain = paced;
  plain.push_back((dir / "plain").string());
  std::string err;
  ASSERT_EQ(run_kausal(plain, dir.path(), &err), 0) << err;
  EXPECT_EQ(err.find('\r'), std::string::npos) << err;
  // A terminal (a pty from util-linux `script`): the bar is drawn while the run lasts.
  std::string command = std::string(KAUSAL_BIN_DIR) + "/kausal";
  for (const std::string& arg : paced) command += " " + arg;
  command += " " + (dir / "tty").string();
  const fs::path typescript = dir / "typescript.txt";
  ASSERT_EQ(std::system(
                ("script -qec '" + command + "' " + typescript.string() + " > /dev/null").c_str()),
            0);
  const std::string screen = read_file(typescript);
  EXPECT_NE(screen.find("sequential ["), std::string::npos) << screen;
  EXPECT_NE(screen.find("step "), std::string::npos) << screen;
  EXPECT_NE(screen.find("eta "), std::string::npos) << screen;
}

}  // namespace
}  // namespace kausal::testing
