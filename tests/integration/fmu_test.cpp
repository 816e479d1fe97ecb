// FMUs in real component processes (docs/fmi.md): kausal models FILE.fmu, an FMU without
// get/set state refused by the optimistic method, an FMU's error and its own log lines in its
// System's log, and a crashing FMU that takes down only its System, which the monitor
// reports as a dead peer while what was committed stays.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "kausal_process.hpp"

namespace kausal::testing {
namespace {

const std::string kFmus = std::string(KAUSAL_BIN_DIR) + "/../fmus/";

// Van der Pol from an FMU of tests/fmus, with one parameter set, for `t_end` seconds.
fs::path van_der_pol(const TempDir& dir, const std::string& fmu, const std::string& parameters,
                     const std::string& t_end = "2.0") {
  dir.write("vdp.toml", "[run]\nt_end = " + t_end +
                            "\noutput_interval = 0.1\n\n[[subsystem]]\nname = \"vdp\"\n"
                            "model = \"fmu\"\nfmu = \"" +
                            kFmus + fmu + ".fmu\"\nparameters = { " + parameters +
                            " }\nintegrator = \"rk4\"\nh = 0.001\n");
  return dir / "vdp.toml";
}

TEST(FmuCli, ModelsDescribesAnFmuAndRefusesWhatIsNotOne) {
  TempDir dir;
  KausalProcess p({"models", kFmus + "bouncing_ball.fmu"}, dir.path());
  ASSERT_EQ(p.wait(std::chrono::seconds(20)).value_or(-1), 0) << p.err();
  const std::string out = p.out();
  EXPECT_NE(out.find("model exchange (bouncing_ball, kind = \"model-exchange\")"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("states   h, v"), std::string::npos) << out;
  EXPECT_NE(out.find("rollback (get, set and serialize FMU state): yes"), std::string::npos);
  EXPECT_NE(out.find("e             parameter, Real, start 0.7, in [0, 1]"), std::string::npos)
      << out;
  EXPECT_NE(out.find("v_min         parameter, Real, start 0.1, in [0, inf]"), std::string::npos)
      << out;
  EXPECT_NE(out.find("default experiment: stop 3 s, step 0.01 s, tolerance 1e-06"),
            std::string::npos)
      << out;
  // An FMU that gives no step is not said to have one of 0 s.
  KausalProcess no_step({"models", kFmus + "feedthrough.fmu"}, dir.path());
  ASSERT_EQ(no_step.wait(std::chrono::seconds(20)).value_or(-1), 0) << no_step.err();
  EXPECT_NE(no_step.out().find("default experiment: stop 1 s, tolerance 1e-06\n"),
            std::string::npos)
      << no_step.out();
  KausalProcess no_state({"models", kFmus + "van_der_pol_no_state.fmu"}, dir.path());
  ASSERT_EQ(no_state.wait(std::chrono::seconds(20)).value_or(-1), 0);
  EXPECT_NE(no_state.out().find("rollback (get, set and serialize FMU state): no — conservative "
                                "and sequential only"),
            std::string::npos)
      << no_state.out();
  std::string err;
  EXPECT_EQ(run_kausal({"models", kFmus + "not_a_zip.fmu"}, dir.path(), &err), 2);
  EXPECT_NE(err.find("not_a_zip.fmu: not a zip archive"), std::string::npos) << err;
}

// docs/fmi.md's route for an FMU written by hand: examples/fmu-by-hand/build.sh compiles the
// C model with the test FMUs' frame and packs decay.fmu; kausal describes it and runs it,
// sequentially and in processes, to x(4) = e^-2 (RK4 at 10 ms: within 1e-10) with one digest.
TEST(FmuCli, TheHandWrittenExampleFmuBuildsAndRunsAsDocumented) {
  TempDir dir;
  const fs::path build = fs::path(KAUSAL_SOURCE_DIR) / "examples" / "fmu-by-hand" / "build.sh";
  const std::string command = build.string() + " " + (dir / "fmu").string() + " > " +
                              (dir / "build.log").string() + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << read_file(dir / "build.log");
  std::string err;
  ASSERT_EQ(run_kausal({"models", (dir / "fmu" / "decay.fmu").string()}, dir.path(), &err), 0)
      << err;
  std::string digest;
  for (const std::string method : {"sequential", "conservative"}) {
    const fs::path out = dir / method;
    ASSERT_EQ(run_kausal({"run", (dir / "fmu" / "decay.toml").string(), "--method", method, "--out",
                          out.string()},
                         dir.path(), &err),
              0)
        << method << ": " << err;
    const std::string csv = read_file(out / "trajectory.csv");
    const std::string last = csv.substr(csv.rfind('\n', csv.size() - 2) + 1);
    ASSERT_EQ(last.rfind("4,", 0), 0u) << last;
    EXPECT_NEAR(std::stod(last.substr(2)), std::exp(-2.0), 1e-10) << method;
    const std::string sha = read_json(out / "summary.json")["trajectory_sha256"];
    if (digest.empty()) digest = sha;
    EXPECT_EQ(sha, digest) << method;
  }
}

// An FMU that asks for fmi2CompletedIntegratorStep is told of every step in its System
// process (System::completed_step), once, under every method and the rollback check: its step
// event after every 8th step resets x, so x(3) = 0 with one digest; the same binary saying
// completedIntegratorStepNotNeeded is not told, and its x rises to 3.
TEST(FmuCli, AStepEventFmuHearsOfEveryStepInItsProcessUnderEveryMethod) {
  TempDir dir;
  const auto scenario = [&](const std::string& fmu) {
    dir.write(fmu + ".toml",
              "[run]\nt_end = 3.0\noutput_interval = 0.125\n[[subsystem]]\n"
              "name = \"saw\"\nmodel = \"fmu\"\nfmu = \"" +
                  kFmus + fmu +
                  ".fmu\"\nintegrator = \"euler\"\nh = 0.125\n"
                  "[[subsystem]]\nname = \"sum\"\nmodel = \"fmu\"\nfmu = \"" +
                  kFmus +
                  "integrator.fmu\"\nintegrator = \"rk4\"\nh = 0.125\n"
                  "[[coupling]]\nfrom = \"saw.x\"\nto = \"sum.u\"\n");
    return dir / (fmu + ".toml");
  };
  const auto last_x = [](const fs::path& out) {
    const std::string csv = read_file(out / "trajectory.csv");
    const std::string last = csv.substr(csv.rfind('\n', csv.size() - 2) + 1);
    EXPECT_EQ(last.rfind("3,", 0), 0u) << last;
    return std::stod(last.substr(2));  // t, then saw.x
  };
  std::string digest;
  for (const std::vector<std::string>& how :
       {std::vector<std::string>{"--method", "sequential"},
        {"--method", "conservative", "--layout", "process"},
        {"--method", "optimistic", "--layout", "process"},
        {"--method", "conservative", "--layout", "process", "--rollback-check"}}) {
    const std::string label = how[1] + (how.size() > 4 ? "-checked" : "");
    const Finished run = run_ok(scenario("sawtooth"), how, dir / label, dir);
    EXPECT_EQ(last_x(dir / label), 0.0) << label;
    const std::string sha = run.summary["trajectory_sha256"];
    if (digest.empty()) digest = sha;
    EXPECT_EQ(sha, digest) << label;
  }
  const Finished unneeded =
      run_ok(scenario("sawtooth_unneeded"), {"--method", "conservative", "--layout", "process"},
             dir / "unneeded", dir);
  EXPECT_EQ(last_x(dir / "unneeded"), 3.0);
  EXPECT_NE(unneeded.summary["trajectory_sha256"], digest);
}

// An FMI 3.0 FMU with Clocks (tests/fmus/sampler.c) in a System process of its own: kausal
// activates its constant Clock every 0.1 s and its countdown Clock whenever the FMU says, in
// model exchange (a tick is a time event at the end of its step) and in co-simulation (the
// step cut at each tick, event mode between), under every method: x at every row follows the
// sampled loop's recurrence, the clocked outputs hold between ticks, and one digest each.
TEST(FmuCli, AClockedFmuTicksAtEveryTickInItsProcessUnderEveryMethod) {
  TempDir dir;
  const auto loop = [](double t) {  // x, u and alarms of the sampled loop at t
    const int ticks = static_cast<int>(std::floor(t / 0.1 + 1e-9));
    double x = 0, u = 2;
    for (int k = 1; k <= ticks; ++k) {
      x = u + (x - u) * std::exp(-0.1);
      u = 2 * (1 - x);
    }
    return std::array<double, 3>{u + (x - u) * std::exp(-(t - 0.1 * ticks)), u,
                                 std::floor(t / 0.35 + 1e-9)};
  };
  for (const bool co_simulation : {false, true}) {
    SCOPED_TRACE(co_simulation ? "co-simulation" : "model exchange");
    const std::string name = co_simulation ? "cs" : "me";
    dir.write(name + ".toml",
              "[run]\nt_end = 1.0\noutput_interval = 0.04\n[[subsystem]]\nname = \"s\"\n"
              "model = \"fmu\"\nfmu = \"" +
                  kFmus + "sampler_3.fmu\"\n" +
                  (co_simulation ? "kind = \"co-simulation\"\nintegrator = \"co-simulation\"\n"
                                   "h = 0.04\n"
                                 : "integrator = \"rk4\"\nh = 0.01\n") +
                  "[[subsystem]]\nname = \"area\"\nmodel = \"fmu\"\nfmu = \"" + kFmus +
                  "integrator.fmu\"\nintegrator = \"rk4\"\nh = 0.04\n"
                  "[[coupling]]\nfrom = \"s.y\"\nto = \"area.u\"\n");
    std::string digest;
    for (const std::vector<std::string>& how :
         {std::vector<std::string>{"--method", "sequential"},
          {"--method", "conservative", "--layout", "process"},
          {"--method", "optimistic", "--layout", "process", "--tolerance", "0"},
          {"--method", "optimistic", "--layout", "single", "--rollback-check"}}) {
      const std::string label = name + "-" + how[1] + "-" + (how.size() > 2 ? how[3] : "");
      const Finished run = run_ok(dir / (name + ".toml"), how, dir / label, dir);
      const std::string sha = run.summary["trajectory_sha256"];
      if (digest.empty()) digest = sha;
      EXPECT_EQ(sha, digest) << label;
      std::ifstream csv(dir / label / "trajectory.csv");
      std::string line;
      std::getline(csv, line);  // t, s.x, area.x   or   t, s.u, s.y, s.alarms, area.x
      int rows = 0;
      for (; std::getline(csv, line) && !line.empty(); ++rows) {
        std::vector<double> v;
        std::stringstream cells(line);
        for (std::string cell; std::getline(cells, cell, ',');) v.push_back(std::stod(cell));
        const auto want = loop(v[0]);
        if (!co_simulation) {
          EXPECT_NEAR(v[1], want[0], 1e-9) << label << " t = " << v[0];
          continue;
        }
        EXPECT_NEAR(v[1], want[1], 1e-9) << label << " t = " << v[0];
        EXPECT_NEAR(v[2], want[0], 1e-9) << label << " t = " << v[0];
        EXPECT_EQ(v[3], want[2]) << label << " t = " << v[0];
      }
      EXPECT_EQ(rows, 26) << label;
    }
  }
}

// A String parameter reaches an FMU in a System process (IDL FmuSetup::strings): the
// staircase goes down; its String output (label) is not coupled and does not stop it.
TEST(FmuCli, AStringParameterReachesTheFmuInItsProcess) {
  TempDir dir;
  dir.write("down.toml",
            "[run]\nt_end = 1.0\noutput_interval = 0.5\n\n[[subsystem]]\n"
            "name = \"steps\"\nmodel = \"fmu\"\nfmu = \"" +
                kFmus +
                "staircase.fmu\"\nparameters = { period = 0.25, direction = "
                "\"down\" }\nintegrator = \"co-simulation\"\nh = 0.05\n");
  const auto out = dir / "out";
  std::string err;
  ASSERT_EQ(run_kausal({"run", (dir / "down.toml").string(), "--method", "conservative", "--out",
                        out.string()},
                       dir.path(), &err),
            0)
      << err;
  std::ifstream csv(out / "trajectory.csv");
  std::string line, last;
  while (std::getline(csv, line))
    if (!line.empty()) last = line;
  // t, steps.signal, steps.level, steps.switched at t = 1: four events down.
  EXPECT_EQ(last, "1,-4,-4,0") << last;
}

// An SSP of three FMUs (tests/fmus/ssp/three_fmus.ssd) in processes: `kausal models` prints
// the scenario it maps to, `kausal compare` runs every method on the archive itself to one
// digest, and that printed scenario, saved beside a copy of the archive, runs optimistically
// in processes to the same digest. The FMUs are unpacked under the test's own cache.
TEST(FmuCli, AnSspOfThreeFmusRunsUnderEveryMethodInProcesses) {
  TempDir dir;
  const std::map<std::string, std::string> cache = {{"XDG_CACHE_HOME", (dir / "cache").string()}};
  const std::string ssp = kFmus + "three_fmus.ssp";
  KausalProcess models({"models", ssp}, dir.path(), cache);
  ASSERT_EQ(models.wait(std::chrono::seconds(20)).value_or(-1), 0) << models.err();
  const std::string scenario = models.out();
  for (const std::string line :
       {"ssp = \"three_fmus.ssp\"", "t_end = 3", "fmu = \"resources/staircase.fmu\"",
        "parameters = { \"period\" = 0.5, \"height\" = 0.25, \"switch_at\" = 1.25, "
        "\"direction\" = \"up\" }",
        "from = \"source.switched\"\nto = \"pass.u_bool\""})
    EXPECT_NE(scenario.find(line), std::string::npos) << line << "\n" << scenario;
  KausalProcess compare({"compare", ssp, "--out", (dir / "compare").string()}, dir.path(), cache);
  ASSERT_EQ(compare.wait(std::chrono::seconds(120)).value_or(-1), 0) << compare.err();
  const std::string digest =
      read_json(dir / "compare" / "sequential" / "summary.json")["trajectory_sha256"];
  for (const std::string method : {"conservative", "optimistic"})
    EXPECT_EQ(read_json(dir / "compare" / method / "summary.json")["trajectory_sha256"], digest)
        << method;
  fs::copy_file(ssp, dir / "three_fmus.ssp");
  dir.write("system.toml", scenario);
  const Finished named =
      run_ok(dir / "system.toml", {"--method", "optimistic", "--layout", "process"}, dir / "named",
             dir, cache);
  EXPECT_EQ(named.summary["trajectory_sha256"], digest);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "cache" / "kausal" / "ssp"),
                          fs::directory_iterator()),
            1)
      << "one archive, one unpacked copy";
}

// FMI 3.0 FMUs in real System processes: a bouncing ball (state events, model exchange), a
// staircase without continuous states (time events; its level an Int16, its height a Float32)
// and an integrator stepping itself (co-simulation) give under every method the digest of
// their FMI 2.0 twins run sequentially, and so does the SSP kausal export-ssp makes of them;
// `kausal models` says which standard and which types.
// (linear_system_3: states, matrix, outputs and indicators as FMI 3.0 arrays, an element of
// the matrix set and an element of the outputs coupled.)
TEST(FmuCli, Fmi3FmusRunInProcessesUnderEveryMethodWithTheirFmi2TwinsDigest) {
  TempDir dir;
  const auto scenario = [&](const std::string& suffix) {
    const std::string name = "system" + suffix + ".toml";
    dir.write(name,
              "[run]\nt_end = 1.5\nhold = 0\noutput_interval = 0.1\n"
              "[[subsystem]]\nname = \"ball\"\nmodel = \"fmu\"\nfmu = \"" +
                  kFmus + "bouncing_ball" + suffix +
                  ".fmu\"\nintegrator = \"rk4\"\nh = 0.001\n"
                  "[[subsystem]]\nname = \"steps\"\nmodel = \"fmu\"\nfmu = \"" +
                  kFmus + "staircase" + suffix +
                  ".fmu\"\nparameters = { period = 0.25, height = 0.5 }\n"
                  "integrator = \"co-simulation\"\nh = 0.1\n"
                  "[[subsystem]]\nname = \"sum\"\nmodel = \"fmu\"\nfmu = \"" +
                  kFmus + "integrator" + suffix +
                  ".fmu\"\nkind = \"co-simulation\"\nintegrator = \"co-simulation\"\n"
                  "h = 0.05\n[[subsystem]]\nname = \"lin\"\nmodel = \"fmu\"\nfmu = \"" +
                  kFmus + "linear_system" + suffix +
                  ".fmu\"\nparameters = { \"A[2,2]\" = -0.6 }\nintegrator = \"rk4\"\n"
                  "h = 0.01\n[[coupling]]\nfrom = \"steps.signal\"\nto = \"lin.u\"\n"
                  "[[coupling]]\nfrom = \"lin.y[1]\"\nto = \"sum.u\"\n");
    return dir / name;
  };
  const Finished two = run_ok(scenario(""), {"--method", "sequential"}, dir / "two", dir);
  const std::string digest = two.summary["trajectory_sha256"];
  KausalProcess compare({"compare", scenario("_3").string(), "--out", (dir / "three").string()},
                        dir.path());
  ASSERT_EQ(compare.wait(std::chrono::seconds(120)).value_or(-1), 0) << compare.err();
  for (const std::string method : {"sequential", "conservative", "optimistic"})
    EXPECT_EQ(read_json(dir / "three" / method / "summary.json")["trajectory_sha256"], digest)
        << method;
  // Exported as an SSP (kausal export-ssp), run from the archive in processes: the same bits.
  std::string err;
  ASSERT_EQ(run_kausal({"export-ssp", scenario("_3").string(), (dir / "three.ssp").string()},
                       dir.path(), &err),
            0)
      << err;
  const Finished from_ssp =
      run_ok(dir / "three.ssp", {"--method", "conservative", "--layout", "process"},
             dir / "from-ssp", dir, {{"XDG_CACHE_HOME", (dir / "cache").string()}});
  EXPECT_EQ(from_ssp.summary["trajectory_sha256"], digest);
  KausalProcess models({"models", kFmus + "staircase_3.fmu"}, dir.path());
  ASSERT_EQ(models.wait(std::chrono::seconds(20)).value_or(-1), 0) << models.err();
  EXPECT_NE(models.out().find("staircase (FMI 3.0, "), std::string::npos) << models.out();
  EXPECT_NE(models.out().find("height        parameter, Float32, start 1"), std::string::npos)
      << models.out();
  // An array on one line, named by its first and last element.
  KausalProcess arrays({"models", kFmus + "linear_system_3.fmu"}, dir.path());
  ASSERT_EQ(arrays.wait(std::chrono::seconds(20)).value_or(-1), 0) << arrays.err();
  EXPECT_NE(arrays.out().find("A[1,1] … A[2,2] parameter, Float64, array 2×2, start 0 1 -4 -0.4"),
            std::string::npos)
      << arrays.out();
  EXPECT_NE(arrays.out().find("states   x[1], x[2]"), std::string::npos) << arrays.out();
}

// A co-simulation FMU that interpolates its inputs within a step (tests/fmus/integrator.c built
// as integrator_smooth: FMI 2.0 canInterpolateInputs, FMI 3.0 intermediate update) integrates
// a ramp y = 3 t from another process. With hold = 1 it gets the coupling's linear
// extrapolation over each step, exact for a ramp once two samples exist: x(T) = 1.5 (T² − h²),
// the first step's hold the only error. The same FMU with its inputs held (hold = 0), and the
// plain integrator with hold = 1, integrate the held samples: x(T) = 1.5 (T² − T h). Every
// method gives one digest, FMI 3.0 the same bits as 2.0; under the master, its polynomials.
// trajectory.csv's column `name`, row by row: (t, value).
std::vector<std::pair<double, double>> csv_column(const fs::path& csv, const std::string& name) {
  std::istringstream lines(read_file(csv));
  const auto cells = [](const std::string& line) {
    std::vector<std::string> split;
    std::stringstream in(line);
    for (std::string cell; std::getline(in, cell, ',');) split.push_back(cell);
    return split;
  };
  std::string line;
  std::getline(lines, line);
  const std::vector<std::string> names = cells(line);
  const auto at =
      static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
  EXPECT_LT(at, names.size()) << name << " not in " << line;
  std::vector<std::pair<double, double>> column;
  while (std::getline(lines, line))
    if (!line.empty() && at < names.size())
      column.emplace_back(std::stod(cells(line).at(0)), std::stod(cells(line).at(at)));
  return column;
}

TEST(FmuCli, ACoSimulationFmuTakesItsInputsOverTheStepUnderEveryMethod) {
  TempDir dir;
  constexpr double h = 0.1, T = 1.0;
  const auto scenario = [&](const std::string& name, const std::string& fmu, int hold,
                            const std::string& master = "") {
    dir.write(name + ".toml",
              "[run]\nt_end = 1.0\noutput_interval = 0.1\nhold = " + std::to_string(hold) + "\n" +
                  master + "[[subsystem]]\nname = \"ramp\"\nmodel = \"fmu\"\nfmu = \"" + kFmus +
                  "integrator.fmu\"\ninputs = { u = 1.5 }\nintegrator = \"rk4\"\nh = 0.1\n"
                  "[[subsystem]]\nname = \"sum\"\nmodel = \"fmu\"\nfmu = \"" +
                  kFmus + fmu +
                  ".fmu\"\nkind = \"co-simulation\"\nintegrator = \"co-simulation\"\nh = 0.1\n"
                  "[[coupling]]\nfrom = \"ramp.y\"\nto = \"sum.u\"\n");
    return dir / (name + ".toml");
  };
  const auto sum_x_at_end = [](const fs::path& out) {
    const auto x = csv_column(out / "trajectory.csv", "sum.x");
    EXPECT_FALSE(x.empty());
    if (x.empty()) return 0.0;
    EXPECT_EQ(x.back().first, 1.0);
    return x.back().second;
  };
  const double extrapolated = 1.5 * (T * T - h * h), held = 1.5 * (T * T - T * h);
  std::string digest;
  for (const std::string fmu : {"integrator_smooth", "integrator_smooth_3"}) {
    for (const std::vector<std::string>& how :
         {std::vector<std::string>{"--method", "sequential"},
          {"--method", "conservative", "--layout", "process"},
          {"--method", "optimistic", "--layout", "process"},
          {"--method", "conservative", "--layout", "process", "--rollback-check"}}) {
      const std::string label = fmu + "-" + how[1] + (how.size() > 4 ? "-checked" : "");
      const Finished run = run_ok(scenario(fmu, fmu, 1), how, dir / label, dir);
      EXPECT_NEAR(sum_x_at_end(dir / label), extrapolated, 1e-12) << label;
      const std::string sha = run.summary["trajectory_sha256"];
      if (digest.empty()) digest = sha;
      EXPECT_EQ(sha, digest) << label;
    }
  }
  run_ok(scenario("smooth-held", "integrator_smooth_3", 0), {"--method", "conservative"},
         dir / "smooth-held", dir);
  EXPECT_NEAR(sum_x_at_end(dir / "smooth-held"), held, 1e-12);
  run_ok(scenario("plain", "integrator", 1), {"--method", "conservative"}, dir / "plain", dir);
  EXPECT_NEAR(sum_x_at_end(dir / "plain"), held, 1e-12);
  // The master ships each macro step's input as a polynomial (here through the ramp's last
  // two samples): the same integral.
  run_ok(scenario("master", "integrator_smooth", 1, "[master]\nstep = 0.1\n"),
         {"--method", "conservative", "--layout", "process"}, dir / "master", dir);
  EXPECT_NEAR(sum_x_at_end(dir / "master"), extrapolated, 1e-12);
  for (const auto& [fmu, how] : {std::pair{"integrator_smooth", "input derivatives"},
                                 {"integrator_smooth_3", "intermediate update"},
                                 {"integrator_3", "held"}}) {
    KausalProcess models({"models", kFmus + fmu + ".fmu"}, dir.path());
    ASSERT_EQ(models.wait(std::chrono::seconds(20)).value_or(-1), 0) << models.err();
    EXPECT_NE(models.out().find(std::string("inputs within a step: ") + how), std::string::npos)
        << models.out();
  }
}

// Inputs from a table (input_table, docs/scenarios.md): a model-exchange FMU integrates a
// piecewise-linear input exactly (RK4, corners on its step grid), a co-simulation FMU takes
// the table's value at each step's start, its discrete input held between rows and stepping
// where a time is given twice, and one that takes its inputs over the step (FMI 3.0
// intermediate update) the slope as well; one digest under every method, and the master.
// A String output coupled to a String input across processes (docs/fmi.md, "String
// ports"): the staircase's label ("level 3") drives the text reader (FMI 2.0 and 3.0), which
// integrates the number in it, beside the integrator driven by the level as a number. Every
// method and layout, the rollback check and the master give one digest; the text reader's
// area is the integrator's x bit for bit; an SSP export keeps the String connection as one.
TEST(FmuCli, AStringCoupledBetweenFmusRunsUnderEveryMethodAndLayout) {
  TempDir dir;
  const auto scenario = [&](const std::string& name, const std::string& master) {
    std::string text = "[run]\nt_end = 2.0\noutput_interval = 0.1\nhold = 1\n" + master;
    for (const auto& [sub, fmu, kind] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"stairs", "staircase", "kind = \"co-simulation\"\nparameters = { period = 0.5 }\n"},
             {"reader", "text_reader", ""},
             {"reader3", "text_reader_3", ""},
             {"sum", "integrator", "kind = \"co-simulation\"\n"}})
      text += "[[subsystem]]\nname = \"" + sub + "\"\nmodel = \"fmu\"\nfmu = \"" + kFmus + fmu +
              ".fmu\"\n" + kind + "integrator = \"co-simulation\"\nh = 0.1\n";
    text +=
        "[[coupling]]\nfrom = \"stairs.label\"\nto = \"reader.text\"\n"
        "[[coupling]]\nfrom = \"stairs.label\"\nto = \"reader3.text\"\n"
        "[[coupling]]\nfrom = \"stairs.level\"\nto = \"sum.u\"\nhold = 0\n";
    dir.write(name + ".toml", text);
    return dir / (name + ".toml");
  };
  std::string digest;
  for (const auto& [label, how, master] :
       std::vector<std::tuple<std::string, std::vector<std::string>, std::string>>{
           {"sequential", {"--method", "sequential"}, ""},
           {"conservative", {"--method", "conservative", "--layout", "process"}, ""},
           {"optimistic", {"--method", "optimistic", "--layout", "process"}, ""},
           {"single", {"--method", "optimistic", "--layout", "single"}, ""},
           {"checked", {"--method", "optimistic", "--layout", "single", "--rollback-check"}, ""},
           {"master", {"--method", "conservative"}, "[master]\nstep = 0.1\n"}}) {
    SCOPED_TRACE(label);
    const Finished run = run_ok(scenario(label, master), how, dir / label, dir);
    const fs::path csv = dir / label / "trajectory.csv";
    const auto area = csv_column(csv, "reader.area"), area3 = csv_column(csv, "reader3.area");
    const auto x = csv_column(csv, "sum.x"), level = csv_column(csv, "stairs.level");
    const auto number = csv_column(csv, "reader.number"), length = csv_column(csv, "reader.length");
    ASSERT_EQ(area.size(), 21u);
    ASSERT_EQ(x.size(), 21u);
    for (std::size_t k = 1; k < area.size(); ++k) {
      EXPECT_EQ(area[k].second, x[k].second) << "t = " << area[k].first;
      EXPECT_EQ(area3[k].second, area[k].second) << "t = " << area[k].first;
      EXPECT_EQ(number[k].second, level[k - 1].second) << "t = " << area[k].first;
      EXPECT_EQ(length[k].second, 7.0);  // "level k"
    }
    EXPECT_NEAR(area.back().second, 3.0, 1e-12);  // 0.5 s at each of the levels 1, 2 and 3
    const std::string sha = run.summary["trajectory_sha256"];
    if (digest.empty()) digest = sha;
    EXPECT_EQ(sha, digest);
  }
  // As an SSP: one String connection, run from the archive to the same bits.
  KausalProcess exported({"export-ssp", scenario("ssp", "").string(), (dir / "t.ssp").string()},
                         dir.path());
  ASSERT_EQ(exported.wait(std::chrono::seconds(20)).value_or(-1), 0) << exported.err();
  EXPECT_NE(exported.out().find("3 connections"), std::string::npos) << exported.out();
  EXPECT_EQ(run_ok(dir / "t.ssp", {"--method", "sequential"}, dir / "from-ssp", dir,
                   {{"XDG_CACHE_HOME", (dir / "cache").string()}})
                .summary["trajectory_sha256"],
            digest);
  KausalProcess models({"models", kFmus + "text_reader.fmu"}, dir.path());
  ASSERT_EQ(models.wait(std::chrono::seconds(20)).value_or(-1), 0) << models.err();
  EXPECT_NE(models.out().find("Strings  text (ports when a [[coupling]] names them"),
            std::string::npos)
      << models.out();
}

TEST(FmuCli, InputsFromATableDriveFmusUnderEveryMethod) {
  TempDir dir;
  dir.write("ramp.csv",
            "# u: up to 2 at t = 1, down to 0 at t = 2, up to 1 at t = 3\n"
            "time,u\n0,0\n1,2\n2,0\n3,1\n");
  dir.write("levels.csv", "time,u_real,u_int\n0,0,1\n1,2,1\n1,2,3\n2,-1,3\n");
  const auto scenario = [&](const std::string& name, const std::string& master) {
    dir.write(name + ".toml",
              "[run]\nt_end = 3.0\noutput_interval = 0.25\n" + master +
                  "[[subsystem]]\nname = \"me\"\nmodel = \"fmu\"\nfmu = \"" + kFmus +
                  "integrator.fmu\"\nkind = \"model-exchange\"\ninput_table = \"ramp.csv\"\n"
                  "integrator = \"rk4\"\nh = 0.125\n"
                  "[[subsystem]]\nname = \"cs\"\nmodel = \"fmu\"\nfmu = \"" +
                  kFmus +
                  "feedthrough.fmu\"\nkind = \"co-simulation\"\ninput_table = \"levels.csv\"\n"
                  "inputs = { u_bool = 1 }\nintegrator = \"co-simulation\"\nh = 0.25\n"
                  "[[subsystem]]\nname = \"smooth\"\nmodel = \"fmu\"\nfmu = \"" +
                  kFmus +
                  "integrator_smooth_3.fmu\"\ninput_table = \"ramp.csv\"\n"
                  "integrator = \"co-simulation\"\nh = 0.125\n");
    return dir / (name + ".toml");
  };
  // x = ∫ u: t² up to t = 1, then 1 + 2(t − 1) − (t − 1)² up to 2, then 2 + (t − 2)² / 2.
  const auto exact_x = [](double t) {
    if (t <= 1) return t * t;
    if (t <= 2) return 1 + 2 * (t - 1) - (t - 1) * (t - 1);
    return 2 + 0.5 * (t - 2) * (t - 2);
  };
  const auto levels = [](double t) {  // the table at t: (u_real, u_int)
    if (t < 1) return std::pair{2 * t, 1.0};
    if (t < 2) return std::pair{2 - 3 * (t - 1), 3.0};
    return std::pair{-1.0, 3.0};
  };
  std::string digest;
  for (const auto& [label, how, master] :
       std::vector<std::tuple<std::string, std::vector<std::string>, std::string>>{
           {"sequential", {"--method", "sequential"}, ""},
           {"conservative", {"--method", "conservative", "--layout", "process"}, ""},
           {"optimistic", {"--method", "optimistic", "--layout", "process"}, ""},
           {"checked", {"--method", "optimistic", "--layout", "single", "--rollback-check"}, ""},
           {"master", {"--method", "conservative"}, "[master]\nstep = 0.25\n"}}) {
    SCOPED_TRACE(label);
    const Finished run = run_ok(scenario(label, master), how, dir / label, dir);
    const fs::path csv = dir / label / "trajectory.csv";
    const auto x = csv_column(csv, "me.x");
    ASSERT_EQ(x.size(), 13u);
    for (const auto& [t, value] : x) EXPECT_NEAR(value, exact_x(t), 1e-12) << "t = " << t;
    // A co-simulation FMU that takes its inputs over the step gets the table's slope too:
    // exact, the corners on its steps' starts.
    for (const auto& [t, value] : csv_column(csv, "smooth.x"))
      EXPECT_NEAR(value, exact_x(t), 1e-12) << "smooth, t = " << t;
    // A co-simulation FMU's outputs at t come from the step that ends there: its inputs are
    // the table at the step's start (the t = 0 row: the table's first row).
    const auto y_real = csv_column(csv, "cs.y_real"), y_int = csv_column(csv, "cs.y_int");
    ASSERT_EQ(y_real.size(), 13u);
    for (std::size_t k = 0; k < y_real.size(); ++k) {
      const double t = y_real[k].first, start = std::max(0.0, t - 0.25);
      EXPECT_NEAR(y_real[k].second, levels(start).first, 1e-12) << "t = " << t;
      EXPECT_EQ(y_int[k].second, levels(start).second) << "t = " << t;
    }
    const std::string sha = run.summary["trajectory_sha256"];
    if (label == "master") continue;  // its own grid of macro steps: the same values, checked above
    if (digest.empty()) digest = sha;
    EXPECT_EQ(sha, digest);
  }
  // kausal models says how an FMU's inputs can be fed.
  KausalProcess models({"models", kFmus + "feedthrough.fmu"}, dir.path());
  ASSERT_EQ(models.wait(std::chrono::seconds(20)).value_or(-1), 0) << models.err();
  EXPECT_NE(models.out().find("inputs   u_real, u_int, u_bool (each coupled, held by inputs = { "
                              "NAME = VALUE } or a column of an input_table)"),
            std::string::npos)
      << models.out();
}

// What is wrong with an input table is refused (exit 2) naming the scenario's line or the
// table's, before any process starts.
TEST(FmuCli, ABadInputTableIsRefusedNamingItsLine) {
  TempDir dir;
  const auto refused = [&](const std::string& table, const std::string& extra,
                           const std::string& expected) {
    SCOPED_TRACE(expected);
    dir.write("in.csv", table);
    dir.write("s.toml",
              "[run]\nt_end = 1.0\n[[subsystem]]\nname = \"me\"\nmodel = \"fmu\"\n"
              "fmu = \"" +
                  kFmus + "integrator.fmu\"\ninput_table = \"in.csv\"\n" + extra +
                  "integrator = \"rk4\"\nh = 0.1\n");
    std::string err;
    EXPECT_EQ(run_kausal({"run", (dir / "s.toml").string(), "--out", (dir / "out").string()},
                         dir.path(), &err),
              2);
    EXPECT_NE(err.find(expected), std::string::npos) << err;
  };
  refused("time,u\n0,1\n1,2,3\n", "", "in.csv:3: 3 fields, where the header (line 1) has 2");
  refused("time,u\n0,1\n1,x\n", "", "in.csv:3: 'x' in column 2 is not a finite number");
  refused("time,u\n1,1\n0,2\n", "", "in.csv:3: the time 0 goes back");
  refused("time,u\n", "", "in.csv:1: no rows after the header");
  refused("time,v\n0,1\n", "", "column 'v' is not an input of subsystem 'me' (inputs: u)");
  refused("time,u\n0,1\n", "inputs = { u = 2 }\n", "column 'u' is also given in inputs");
  refused("time,u\n0,1\n", "input_interpolation = \"cubic\"\n", "input_interpolation");
  dir.write("s.toml",
            "[run]\nt_end = 1.0\n[[subsystem]]\nname = \"me\"\nmodel = \"fmu\"\n"
            "fmu = \"" +
                kFmus +
                "integrator.fmu\"\ninput_table = \"nowhere.csv\"\n"
                "integrator = \"rk4\"\nh = 0.1\n");
  std::string err;
  EXPECT_EQ(run_kausal({"run", (dir / "s.toml").string()}, dir.path(), &err), 2);
  EXPECT_NE(err.find("s.toml:7: subsystem[1].input_table"), std::string::npos) << err;
}

// kausal export-ssp refuses what an SSP cannot carry (exit 2, naming it) and writes nothing.
TEST(FmuCli, ExportSspRefusesWhatAnSspCannotCarryAndWritesNothing) {
  TempDir dir;
  const std::string scenarios = std::string(KAUSAL_SOURCE_DIR) + "/scenarios/";
  for (const auto& [scenario, why] : std::vector<std::pair<std::string, std::string>>{
           {"fmu-coupled.toml", "subsystem 'tank' is kausal's model 'water_tank'"},
           {"fmu-cosim-switch.toml", "[events]: a hybrid model's discrete side"},
           {"thesis.toml", "not a partitioned model"}}) {
    std::string err;
    EXPECT_EQ(run_kausal({"export-ssp", scenarios + scenario, (dir / "out.ssp").string()},
                         dir.path(), &err),
              2)
        << scenario;
    EXPECT_NE(err.find(why), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(dir / "out.ssp")) << scenario;
  }
}

TEST(FmuCli, OptimisticRefusesAnFmuWithoutGetSetStateAndConservativeRunsIt) {
  TempDir dir;
  const fs::path s = van_der_pol(dir, "van_der_pol_no_state", "mu = 1.0");
  std::string err;
  EXPECT_EQ(
      run_kausal({"run", s.string(), "--method", "optimistic", "--out", (dir / "opt").string()},
                 dir.path(), &err),
      2);
  EXPECT_NE(err.find("cannot save and restore its state"), std::string::npos) << err;
  EXPECT_EQ(
      run_kausal({"run", s.string(), "--method", "conservative", "--out", (dir / "cons").string()},
                 dir.path(), &err),
      0)
      << err;
}

TEST(FmuCli, AnFmuErrorFailsTheRunAndItsLogLinesAreInItsSystemsLog) {
  TempDir dir;
  const fs::path s = van_der_pol(dir, "fails_at", "fail_time = 0.5");
  std::string err;
  EXPECT_EQ(
      run_kausal({"run", s.string(), "--method", "conservative", "--out", (dir / "out").string()},
                 dir.path(), &err),
      1);
  EXPECT_NE(err.find("system-vdp"), std::string::npos) << err;
  EXPECT_NE(err.find("fmi2GetDerivatives returned fmi2Error at t = 0.5"), std::string::npos) << err;
  const std::string log = read_file(dir / "out/logs/system-vdp.log");
  EXPECT_NE(log.find("subsystem 'vdp' (fails_at.fmu): [fmi2Error] logError: fails_at: giving up "
                     "at t=0.5"),
            std::string::npos)
      << log;
}

TEST(FmuCli, ACrashingFmuTakesDownOnlyItsSystemAndTheCommittedStepsStay) {
  TempDir dir;
  const fs::path s = van_der_pol(dir, "crashes_at", "crash_time = 1.0");
  std::string err;
  EXPECT_EQ(
      run_kausal({"run", s.string(), "--method", "conservative", "--out", (dir / "out").string()},
                 dir.path(), &err),
      3);
  EXPECT_NE(err.find("system-vdp"), std::string::npos) << err;
  const auto summary = read_json(dir / "out/summary.json");
  EXPECT_EQ(summary["status"], "failed");
  // Steps before the crash were committed and written.
  const std::string csv = read_file(dir / "out/trajectory.csv");
  EXPECT_NE(csv.find("\n0.9"), std::string::npos) << csv;
}

}  // namespace
}  // namespace kausal::testing
