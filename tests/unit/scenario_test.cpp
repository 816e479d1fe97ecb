#include <gtest/gtest.h>

#include "common/errors.hpp"
#include "monitor/scenario/input_table_file.hpp"
#include "monitor/scenario/scenario.hpp"
#include "monitor/scenario/scenario_limits.hpp"
#include "test_support.hpp"

namespace kausal {
namespace {

const char* const kGood = R"(name = "two"
[simulation]
integrator = "rk4"
step = 0.002
duration = 1.0
output_interval = 0.01

[model]
type = "pendulum-chain"
restitution = 0.5

[[pendulum]]
pivot_x = 0.0
length = 1.0
mass = 1.0
radius = 0.1
angle_deg = -30

[[pendulum]]
pivot_x = 0.25
length = 1.0
mass = 2.0
radius = 0.1
angle = 0.0
angular_velocity = 0.5
)";

// Replaces the first occurrence of `from` in kGood.
std::string edited(const std::string& from, const std::string& to) {
  std::string text = kGood;
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

// The message of the InputError that parsing `text` throws ("" if it does not throw).
std::string error_of(const std::string& text) {
  try {
    parse_scenario(text, "bad.toml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Scenario, ReadsEveryField) {
  const Scenario s = parse_scenario(kGood, "good.toml");
  EXPECT_EQ(s.name, "two");
  EXPECT_EQ(s.method, OdeMethod::rk4);
  EXPECT_EQ(s.h, 0.002);
  EXPECT_EQ(s.steps, 500u);
  EXPECT_EQ(s.output_every, 5u);
  EXPECT_EQ(s.chain.restitution, 0.5);
  ASSERT_EQ(s.pendulums(), 2u);
  EXPECT_DOUBLE_EQ(s.initial[0][0], -M_PI / 6);
  EXPECT_EQ(s.initial[1][1], 0.5);
  EXPECT_EQ(s.chain.pendulums[1].mass, 2.0);
  EXPECT_EQ(s.chain.pendulums[1].gravity, 9.81);
}

TEST(Scenario, ShippedScenariosLoad) {
  const Scenario thesis = testing::shipped("thesis.toml");
  EXPECT_EQ(thesis.pendulums(), 5u);
  EXPECT_EQ(thesis.method, OdeMethod::euler);
  EXPECT_EQ(thesis.chain.restitution, 0.9);
  const Scenario cradle = testing::shipped("cradle.toml");
  EXPECT_EQ(cradle.pendulums(), 5u);
  EXPECT_EQ(cradle.chain.restitution, 1.0);
}

TEST(Scenario, MissingFieldNamesTheTableLine) {
  const std::string text = edited("length = 1.0\nmass = 2.0", "mass = 2.0");
  EXPECT_EQ(error_of(text), "bad.toml:19: missing field pendulum[2].length");
}

TEST(Scenario, NegativeLengthNamesItsLine) {
  EXPECT_EQ(error_of(edited("length = 1.0", "length = -1.0")),
            "bad.toml:14: pendulum[1].length must be > 0");
}

TEST(Scenario, UnknownKeyIsAnErrorNotIgnored) {
  EXPECT_EQ(error_of(edited("mass = 2.0", "mass = 2.0\nlenght = 3")),
            "bad.toml:23: unknown key 'pendulum[2].lenght'");
  EXPECT_EQ(error_of(edited("[model]", "[model]\ngravitation = 3")),
            "bad.toml:9: unknown key 'model.gravitation'");
  EXPECT_EQ(error_of(std::string(kGood) + "\n[extra]\n"), "bad.toml:27: unknown key 'extra'");
}

TEST(Scenario, OverlappingBobsAtRestAreRejected) {
  const std::string message = error_of(edited("pivot_x = 0.25", "pivot_x = 0.15"));
  EXPECT_EQ(message.rfind("bad.toml:19: pendulum[2]: bob overlaps pendulum[1] at rest", 0), 0u)
      << message;
}

TEST(Scenario, OverlapAtTheStartAnglesIsRejected) {
  const std::string message = error_of(edited("angle_deg = -30", "angle_deg = 15"));
  EXPECT_NE(message.find("at the start angles"), std::string::npos) << message;
}

TEST(Scenario, NotTomlGivesTheLine) {
  const std::string message = error_of("[simulation]\nstep = 0.1\nthis is not toml\n");
  EXPECT_EQ(message.rfind("bad.toml:3: not valid TOML", 0), 0u) << message;
}

TEST(Scenario, OtherMistakes) {
  EXPECT_EQ(error_of(edited("restitution = 0.5", "restitution = 1.5")),
            "bad.toml:10: model.restitution must be in [0, 1]");
  EXPECT_EQ(error_of(edited("duration = 1.0", "duration = 1.0\nsteps = 10")),
            "bad.toml:2: [simulation] needs exactly one of 'duration' (s) or 'steps'");
  EXPECT_EQ(error_of(edited("output_interval = 0.01", "output_interval = 0.003")),
            "bad.toml:6: simulation.output_interval must be a whole multiple (>= 1, at most 1e+10 "
            "steps) of simulation.step");
  EXPECT_EQ(error_of(edited("mass = 2.0", "mass = \"heavy\"")),
            "bad.toml:22: pendulum[2].mass must be a number");
  EXPECT_EQ(error_of(edited("pivot_x = 0.25", "pivot_x = -0.25")),
            "bad.toml:19: pendulum[2].pivot_x must be greater than pendulum[1].pivot_x (pendulums "
            "stand left to right: the [[pendulum]] tables in order, then each [[row]])");
  EXPECT_EQ(error_of(edited("\"rk4\"", "\"leapfrog\"")),
            "bad.toml:3: unknown integrator 'leapfrog' (the pendulum chain takes euler or rk4)");
  EXPECT_EQ(error_of(edited("\"rk4\"", "\"ab3\"")),
            "bad.toml:3: integrator 'ab3' is not available for the pendulum chain (euler or rk4: "
            "the lookahead bound and the sequential reference are derived for them)");
  EXPECT_EQ(error_of(edited("type = \"pendulum-chain\"", "")),
            "bad.toml:8: missing field model.type (\"pendulum-chain\")");
  EXPECT_EQ(error_of(""), "bad.toml:1: missing table [simulation]");
}

// [[row]]: `count` equal pendulums `spacing` apart, after the [[pendulum]] tables.
const char* const kRow = R"(
[[row]]
count = 4
pivot_x = 0.5
spacing = 0.25
length = 0.8
mass = 3.0
radius = 0.1
angle = 0.0
angular_velocity = 0.25
speed = 2.0
)";

TEST(Scenario, ARowAddsEqualPendulumsAfterTheTables) {
  const Scenario s = parse_scenario(std::string(kGood) + kRow, "row.toml");
  ASSERT_EQ(s.pendulums(), 6u);
  for (std::size_t i = 2; i < 6; ++i) {
    const PendulumParams& p = s.chain.pendulums[i];
    EXPECT_EQ(p.pivot_x, 0.5 + 0.25 * static_cast<double>(i - 2));
    EXPECT_EQ(p.length, 0.8);
    EXPECT_EQ(p.mass, 3.0);
    EXPECT_EQ(p.radius, 0.1);
    EXPECT_EQ(s.initial[i][1], 0.25);
    EXPECT_EQ(s.speed[i], 2.0);
  }
  // A chain of rows alone is as good as the same chain written out as tables.
  std::string tables = std::string(kGood).substr(0, std::string(kGood).find("[[pendulum]]"));
  std::string row = tables;
  for (int k = 0; k < 3; ++k)
    tables += "[[pendulum]]\npivot_x = " + std::to_string(0.25 * k) +
              "\nlength = 1.0\nmass = 1.0\nradius = 0.1\nangle = " + (k == 0 ? "-0.5" : "0.0") +
              "\n";
  row +=
      "[[pendulum]]\npivot_x = 0.0\nlength = 1.0\nmass = 1.0\nradius = 0.1\nangle = -0.5\n"
      "[[row]]\ncount = 2\npivot_x = 0.25\nspacing = 0.25\nlength = 1.0\nmass = 1.0\n"
      "radius = 0.1\nangle = 0.0\n";
  const Scenario a = parse_scenario(tables, "tables.toml"), b = parse_scenario(row, "row.toml");
  ASSERT_EQ(a.pendulums(), b.pendulums());
  for (std::size_t i = 0; i < a.pendulums(); ++i) {
    EXPECT_EQ(a.chain.pendulums[i].pivot_x, b.chain.pendulums[i].pivot_x) << i;
    EXPECT_EQ(a.initial[i], b.initial[i]) << i;
  }
  EXPECT_EQ(testing::run_sequential(a).trajectory_sha256,
            testing::run_sequential(b).trajectory_sha256);
}

TEST(Scenario, RowMistakesNameTheRowAndField) {
  const std::string good = std::string(kGood) + kRow;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const auto at = text.rfind(from);
    EXPECT_NE(at, std::string::npos) << from;
    return error_of(text.replace(at, from.size(), to));
  };
  EXPECT_EQ(with("count = 4", "count = 0"),
            "bad.toml:28: row[1].count must be in [1, " + std::to_string(kMaxPendulums - 2) +
                "] (a chain has at most " + std::to_string(kMaxPendulums) + " pendulums)");
  EXPECT_EQ(with("count = 4", "count = 1e6"), "bad.toml:28: row[1].count must be a whole number");
  EXPECT_EQ(with("count = 4\n", ""), "bad.toml:27: missing field row[1].count");
  EXPECT_EQ(with("spacing = 0.25", "spacing = 0"),
            "bad.toml:30: row[1].spacing must be > 0 (pendulums stand left to right)");
  EXPECT_EQ(with("spacing = 0.25", "spacing = 1e308"),
            "bad.toml:30: row[1].spacing puts the row's last pivot beyond the largest number");
  EXPECT_EQ(with("speed = 2.0", "colour = 2.0"), "bad.toml:36: unknown key 'row[1].colour'");
  EXPECT_EQ(with("pivot_x = 0.5", "pivot_x = 0.25"),
            "bad.toml:27: row[1] member 1.pivot_x must be greater than pendulum[2].pivot_x "
            "(pendulums stand left to right: the [[pendulum]] tables in order, then each [[row]])");
  const std::string overlap = with("spacing = 0.25", "spacing = 0.15");
  EXPECT_EQ(overlap.rfind("bad.toml:27: row[1] member 2: bob overlaps row[1] member 1 at rest", 0),
            0u)
      << overlap;
  EXPECT_EQ(error_of(std::string(kGood).substr(0, std::string(kGood).find("[[pendulum]]"))),
            "bad.toml:1: no pendulums: add [[pendulum]] tables or a [[row]]");
}

TEST(Scenario, MissingFileIsBadInput) {
  try {
    load_scenario("/nonexistent/x.toml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/x.toml: cannot open scenario file: No such file or directory");
    EXPECT_EQ(e.exit_code(), ExitCode::bad_input);
  }
}

// A subsystem's input_table file: comments, blank lines, quoted names and CRLF lines read;
// every column after the time is a table of all rows.
TEST(InputTableFile, ReadsEveryColumnOfEveryRow) {
  const auto tables = parse_input_tables(
      "# made by hand\r\ntime, u ,\"v,w\"\r\n\r\n0,1,+2\n0.5,3,4e-1\n0.5,1,1\n", "in.csv");
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].first, "u");
  EXPECT_EQ(tables[1].first, "v,w");
  EXPECT_EQ(tables[0].second.times, (std::vector<double>{0, 0.5, 0.5}));
  EXPECT_EQ(tables[0].second.values, (std::vector<double>{1, 3, 1}));
  EXPECT_EQ(tables[1].second.values, (std::vector<double>{2, 0.4, 1}));
}

TEST(InputTableFile, RefusesWhatItCannotReadNamingTheLine) {
  for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
           {"", "in.csv:1: no header"},
           {"time\n0\n", "in.csv:1: the header names the time and no input"},
           {"time,u,u\n", "in.csv:1: column 'u' is named twice"},
           {"time,,v\n", "in.csv:1: column 2 has no name"},
           {"time,u\n0,1\n\n1\n", "in.csv:4: 1 fields, where the header (line 1) has 2"},
           {"time,u\n0,1e999\n", "in.csv:2: '1e999' in column 2 is not a finite number"},
           {"time,u\n0,nan\n", "in.csv:2: 'nan' in column 2 is not a finite number"},
           {"time,u\n0,1 2\n", "in.csv:2: '1 2' in column 2"},
           {"time,u\n2,1\n1,1\n", "in.csv:3: the time 1 goes back"},
           {"time,u\n# none\n", "no rows after the header"}}) {
    try {
      parse_input_tables(text, "in.csv");
      ADD_FAILURE() << "read: " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace kausal
