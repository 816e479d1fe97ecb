// What the parsers do with hostile or careless input: numbers that would cast out of range,
// runs whose output cannot be stored, files that are not files, TOML nested past any use.
// Every case is an InputError "file:line: ..." (exit 2), never a crash, a hang or a run of
// zero steps.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>

#include "common/errors.hpp"
#include "monitor/record/checkpoint.hpp"
#include "monitor/scenario/deploy_file.hpp"
#include "monitor/scenario/input_file.hpp"
#include "monitor/scenario/partitioned_scenario.hpp"
#include "monitor/scenario/scenario.hpp"
#include "tests/temp_dir.hpp"

namespace kausal {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

// Two pendulums; `simulation` is the body of [simulation] (line 2 on).
std::string chain(const std::string& simulation) {
  return "[simulation]\n" + simulation +
         "\n[model]\ntype = \"pendulum-chain\"\nrestitution = 0.9\n"
         "[[pendulum]]\npivot_x = 0.0\nlength = 1.0\nmass = 1.0\nradius = 0.1\nangle = -1.0\n"
         "[[pendulum]]\npivot_x = 0.2\nlength = 1.0\nmass = 1.0\nradius = 0.1\nangle = 0.0\n";
}

// Two tanks, the upper one (line 5) with step `h_upper`; run.t_end and output_interval given.
std::string tanks(const std::string& h_upper, const std::string& t_end = "600.0",
                  const std::string& output = "output_interval = 10.0") {
  return "[run]\nt_end = " + t_end + "\n" + output +
         "\n[[subsystem]]\nname = \"upper\"\nmodel = \"water_tank\"\n"
         "parameters = { area = 1.0, orifice = 0.01 }\ninputs = { inflow = 0.02 }\n"
         "integrator = \"rk4\"\nh = " +
         h_upper +
         "\n[[subsystem]]\nname = \"lower\"\nmodel = \"water_tank\"\n"
         "parameters = { area = 2.0, orifice = 0.015 }\nintegrator = \"rk4\"\nh = 0.5\n"
         "[[coupling]]\nfrom = \"upper.outflow\"\nto = \"lower.inflow\"\n";
}

template <typename Parse>
std::string input_error_of(Parse parse) {
  try {
    parse();
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

std::string chain_error(const std::string& simulation, const ScenarioLimits& limits = {}) {
  return input_error_of([&] { parse_scenario(chain(simulation), "c.toml", limits); });
}

std::string tanks_error(const std::string& text) {
  return input_error_of([&] { parse_partitioned_scenario(text, "t.toml"); });
}

// ---- numbers that used to cast to a zero integer (SIGFPE) or to zero steps ----

TEST(InputLimits, OutputIntervalFarBeyondTheRunIsRefusedNotZero) {
  EXPECT_EQ(chain_error("step = 0.001\nduration = 1.0\noutput_interval = 1e30"),
            "c.toml:4: simulation.output_interval must be a whole multiple (>= 1, at most 1e+10 "
            "steps) of simulation.step");
}

// toml++ gives no double for an integer that no double holds exactly; such a value used to
// end the parser with std::bad_optional_access (found by the fuzzer).
TEST(InputLimits, AnIntegerNoDoubleHoldsIsReadAsANumber) {
  EXPECT_NE(chain_error("step = 0.001\nduration = 9223372036854775807")
                .find("c.toml:3: simulation.duration is more than 1e+10 steps"),
            std::string::npos);
  std::string text = tanks("1.0");
  text.replace(text.find("area = 1.0"), 10, "area = 9223372036854775807");
  EXPECT_EQ(tanks_error(text), "accepted");
}

TEST(InputLimits, StepsBeyondTheLimitAreRefusedNamingTheField) {
  EXPECT_EQ(chain_error("step = 1e-300\nduration = 1.0"),
            "c.toml:3: simulation.duration is more than 1e+10 steps (the limit) of "
            "simulation.step = 1e-300 s");
  for (const char* huge : {"1e19", "1e100", "1e308"})
    EXPECT_NE(chain_error(std::string("step = 0.001\nduration = ") + huge)
                  .find("c.toml:3: simulation.duration is more than 1e+10 steps"),
              std::string::npos)
        << huge;
  EXPECT_EQ(chain_error("step = 0.001\nsteps = 10000000001"),
            "c.toml:3: simulation.steps is more than 1e+10 (the limit)");
}

TEST(InputLimits, ASlowHostCannotAskForEndlessWork) {
  std::string text = chain("step = 0.001\nsteps = 10");
  text.replace(text.find("restitution = 0.9"), 17, "restitution = 0.9\ncalc_work = 1000");
  text.replace(text.find("angle = 0.0"), 11, "angle = 0.0\nspeed = 1e-300");
  EXPECT_EQ(input_error_of([&] { parse_scenario(text, "c.toml"); }),
            "c.toml:20: pendulum[2].speed makes model.calc_work / speed more than 1e8 units (a "
            "Calc of over 0.3 s)");
}

TEST(InputLimits, ATinyDurationRoundsUpToOneStep) {
  const Scenario s = parse_scenario(chain("step = 0.001\nduration = 1e-300"), "c.toml");
  EXPECT_EQ(s.steps, 1u);
  // A hair of rounding still adds no step.
  EXPECT_EQ(parse_scenario(chain("step = 0.1\nduration = 0.3"), "c.toml").steps, 3u);
}

TEST(InputLimits, PartitionStepsTicksAndIntervalsAreRangeChecked) {
  EXPECT_EQ(tanks_error(tanks("1e-30")),
            "t.toml:16: partition 'lower': h = 0.5 is more than 1e+10 times the smallest step "
            "1e-30 s (partition 'upper')");
  EXPECT_EQ(tanks_error(tanks("1.0", "1e300")),
            "t.toml:2: run.t_end is more than 1e+10 steps (the limit) of the smallest step 0.5 s "
            "(partition 'lower')");
  EXPECT_EQ(tanks_error(tanks("1.0", "1e-300")),
            "t.toml:2: run.t_end must be a whole number of steps");
  EXPECT_EQ(tanks_error(tanks("1.0", "600.0", "output_interval = 1e30")),
            "t.toml:3: run.output_interval must be a whole multiple (at most 1e+10 times) of the "
            "smallest step 0.5 s (partition 'lower')");
}

// ---- output that cannot be stored ----

TEST(InputLimits, OutputThatCannotBeStoredIsRefusedUnlessTheLimitIsRaised) {
  // 1e9 steps, every one a row of 5 numbers: about 116 GiB.
  const std::string every_step = "step = 0.001\nsteps = 1000000000";
  const std::string message = chain_error(every_step);
  EXPECT_EQ(message.rfind("c.toml:3: simulation.steps gives 1e+09 rows of 5 numbers: the run "
                          "would write about 116.4 GiB, more than the limit of 10 GiB",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("--max-output"), std::string::npos);
  // The field that sets the rows is named: here the output interval.
  EXPECT_NE(
      chain_error(every_step + "\noutput_every = 1").find("c.toml:4: simulation.output_every"),
      std::string::npos);
  // Coarser output, or a higher limit, and the same run is accepted.
  EXPECT_EQ(chain_error(every_step + "\noutput_every = 1000"), "accepted");
  EXPECT_EQ(chain_error(every_step, ScenarioLimits{std::uint64_t{200} << 30}), "accepted");
  // Partitioned models: t and 2 states, 6e8 rows.
  EXPECT_NE(tanks_error(tanks("1.0", "6e8", "output_interval = 1.0"))
                .find("t.toml:3: run.output_interval gives 6e+08 rows of 3 numbers"),
            std::string::npos);
}

TEST(InputLimits, SizesParseWithUnitsAndRefuseNonsense) {
  EXPECT_EQ(parse_size("10G", "--max-output"), std::uint64_t{10} << 30);
  EXPECT_EQ(parse_size("500M", "--max-output"), std::uint64_t{500} << 20);
  EXPECT_EQ(parse_size("4096", "--max-output"), 4096u);
  for (const char* bad : {"", "nan", "inf", "-1G", "0", "10X", "1e300T", "G"})
    EXPECT_THROW(parse_size(bad, "--max-output"), InputError) << bad;
  EXPECT_EQ(whole_multiple(0.01, 0.001), 10u);
  EXPECT_EQ(whole_multiple(1e30, 0.001), std::nullopt);
  EXPECT_EQ(whole_multiple(0.0015, 0.001), std::nullopt);
  EXPECT_EQ(steps_covering(1e308, 1e-300), std::nullopt);
}

// ---- files that are not files ----

TEST(InputFiles, OnlyRegularFilesOfBoundedSizeAreRead) {
  TempDir dir;
  const auto fifo = dir / "fifo.toml";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const auto big = dir / "big.toml";
  std::ofstream(big).close();
  fs::resize_file(big, kMaxInputFileBytes + 1);  // sparse: nothing is written
  const std::vector<std::pair<fs::path, std::string>> cases = {
      {"/dev/zero", "/dev/zero: scenario file must be a regular file (this is a character device)"},
      {fifo, fifo.string() + ": scenario file must be a regular file (this is a FIFO)"},
      {dir.path(), dir.path().string() + ": scenario file must be a regular file (this is a "
                                         "directory)"},
      {big, big.string() + ": scenario file is larger than 16 MiB (the limit of every file "
                           "kausal reads)"},
      {dir / "missing.toml",
       (dir / "missing.toml").string() + ": cannot open scenario file: No such file or directory"},
  };
  for (const auto& [path, expected] : cases) {
    const std::filesystem::path& file = path;  // clang 14 cannot capture a structured binding
    EXPECT_EQ(input_error_of([&] { load_scenario(file); }), expected);
    EXPECT_EQ(input_error_of([&] { load_partitioned_scenario(file); }), expected);
    EXPECT_EQ(input_error_of([&] { is_partitioned_scenario(file); }), expected);
  }
  EXPECT_EQ(input_error_of([&] { load_deploy_file("/dev/zero"); }),
            "/dev/zero: deployment file must be a regular file (this is a character device)");
  EXPECT_EQ(input_error_of([&] { load_deploy_file(fifo.string()); }),
            fifo.string() + ": deployment file must be a regular file (this is a FIFO)");
  const auto run = dir / "run";
  fs::create_directories(run);
  ASSERT_EQ(mkfifo((run / "checkpoint.json").c_str(), 0600), 0);
  EXPECT_EQ(
      input_error_of([&] { read_checkpoint(run); }),
      (run / "checkpoint.json").string() + ": checkpoint must be a regular file (this is a FIFO)");
}

// ---- nesting ----

std::string repeated(const std::string& part, int times, const std::string& glue = "") {
  std::string out;
  for (int k = 0; k < times; ++k) out += (k ? glue : "") + part;
  return out;
}

std::string toml_error(const std::string& text) {
  return input_error_of([&] { parse_deploy_file(text, "n.toml"); });
}

TEST(InputFiles, TomlNestedPastTheLimitIsRefusedBeforeParsing) {
  const std::string refused =
      ": nested more than 64 levels deep (table headers, dotted keys, "
      "arrays, inline tables)";
  // 40,000 dotted parts overflowed toml++'s stack.
  EXPECT_EQ(toml_error(repeated("a", 40'000, ".") + " = 1\n"), "n.toml:1" + refused);
  // A header part may be an array of tables and its element: it counts two.
  EXPECT_EQ(toml_error("x = 1\n[" + repeated("t", 33, ".") + "]\n"), "n.toml:2" + refused);
  EXPECT_EQ(toml_error("[[" + repeated("t", 32, ".") + "]]\nk = 1\n"), "n.toml:2" + refused);
  EXPECT_EQ(toml_error("a = " + repeated("[", 100'000)), "n.toml:1" + refused);
  EXPECT_EQ(toml_error("a = " + repeated("{ b = ", 100'000)), "n.toml:1" + refused);
  // Levels add up: a header, a dotted key, an inline table in an array.
  EXPECT_EQ(toml_error("[" + repeated("t", 15, ".") + "]\n" + repeated("k", 30, ".") + " = [ { " +
                       repeated("m", 4, ".") + " = 1 } ]\n"),
            "n.toml:2" + refused);
  EXPECT_EQ(toml_error("a = [\n 1,\n [ [ [\n" + repeated("[", 62) + "\n"), "n.toml:4" + refused);
}

TEST(InputFiles, NestingUpToTheLimitAndLookalikesAreNotCounted) {
  auto reaches_toml = [](const std::string& text) {
    const std::string e = toml_error(text);  // parsed, then no [[node]] found
    return e.find("a deployment file needs [[node]] tables") != std::string::npos;
  };
  // Exactly 64 levels reaches toml++.
  EXPECT_TRUE(reaches_toml(repeated("a", 64, ".") + " = 1\n"));
  EXPECT_TRUE(reaches_toml("a = " + repeated("[", 63) + repeated("]", 63) + "\n"));
  EXPECT_TRUE(reaches_toml("[[" + repeated("t", 31, ".") + "]]\nk = 1\n"));
  // Brackets, braces and dots in strings, comments and numbers are not nesting.
  const std::string lookalikes = "s = \"" + repeated("[{.", 100) + "\"\nm = '''\n" +
                                 repeated("[[x.y]]\n", 100) + "'''\n# " + repeated("[", 100) +
                                 "\nf = [" + repeated("1.5", 100, ", ") + "]\n" +
                                 "q.\"a.b.c.d\".'e.f' = 1\nd = 1979-05-27 07:32:00\n";
  EXPECT_TRUE(reaches_toml(lookalikes)) << toml_error(lookalikes);
}

TEST(InputFiles, JsonNestedPastTheLimitIsRefused) {
  TempDir dir;
  std::ofstream(dir / "checkpoint.json")
      << "{\"format\": \"kausal-checkpoint/3\", \"x\": " << repeated("[", 100'000) << "\n";
  EXPECT_EQ(input_error_of([&] { read_checkpoint(dir.path()); }),
            (dir / "checkpoint.json").string() + ": checkpoint nests deeper than 64 levels");
}

}  // namespace
}  // namespace kausal
