// collisions.csv (monitor/record/collision_log.hpp): one row per impact of the committed
// steps, found again from the committed states, the same bytes whoever resolved the impacts
// (the sequential sweep, blocks on threads, running ahead or not), with pushes and after a
// resume.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "monitor/record/collision_log.hpp"
#include "monitor/sync/injections.hpp"
#include "test_support.hpp"
#include "tests/temp_dir.hpp"

namespace kausal {
namespace {

using testing::TempDir;

std::string slurp_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::vector<std::string>> rows_of(const std::string& csv) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream cells_in(line);
    std::string cell;
    while (std::getline(cells_in, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

// The thesis chain for 3000 steps, with two pushes, under `stepper`, logged to `csv`.
RunResult logged(const Scenario& s, ChainStepper& stepper, SyncMethod method,
                 const std::filesystem::path& csv) {
  Injections injections({1, 0, s.steps}, nullptr, {},
                        {{InjectionKind::push, 700, "2", 0.02},
                         {InjectionKind::push, 1900, std::to_string(s.pendulums()), -0.03}});
  CollisionLog log(s, csv, false);
  RunControl control;
  DriveOptions options;
  options.injections = &injections;
  return drive_chain(s, method, stepper, {&log}, control, options);
}

TEST(CollisionLog, EveryImpactIsARowWithItsPairImpulsesAndStatesTheSameUnderEveryStepper) {
  Scenario s = testing::shipped("thesis.toml");
  s.steps = 3000;
  TempDir dir;
  SequentialStepper sequential(s);
  const RunResult seq = logged(s, sequential, SyncMethod::sequential, dir / "seq.csv");
  ASSERT_EQ(seq.status, RunStatus::completed) << seq.error;
  const std::string text = slurp_file(dir / "seq.csv");
  EXPECT_EQ(text.substr(0, text.find('\n')), CollisionLog::kHeader);
  const auto rows = rows_of(text);
  ASSERT_GT(seq.collisions, 3u);
  EXPECT_EQ(rows.size(), seq.collisions);
  std::uint64_t last_step = 0;
  for (const auto& r : rows) {
    ASSERT_EQ(r.size(), 13u);
    const std::uint64_t step = std::stoull(r[1]);
    EXPECT_GE(step, last_step);
    last_step = step;
    EXPECT_DOUBLE_EQ(std::stod(r[0]), step * s.h);
    const std::size_t left = std::stoul(r[2]) - 1, right = std::stoul(r[3]) - 1;
    ASSERT_LT(left, right);
    ASSERT_LT(right, s.pendulums());
    EXPECT_GT(std::stod(r[6]), 0.0);  // approaching
    // Each impulse changes its pendulum's angular velocity by impulse / (m l), nothing else.
    const PendulumParams &a = s.chain.pendulums[left], &b = s.chain.pendulums[right];
    EXPECT_NEAR(std::stod(r[9]) - std::stod(r[8]), std::stod(r[4]) / (a.mass * a.length), 1e-12);
    EXPECT_NEAR(std::stod(r[12]) - std::stod(r[11]), std::stod(r[5]) / (b.mass * b.length), 1e-12);
    // Newton's law of restitution: after the impact the bobs part along the line of their
    // centres at e times the speed they approached at.
    const double left_after[2] = {std::stod(r[7]), std::stod(r[9])};
    const double right_after[2] = {std::stod(r[10]), std::stod(r[12])};
    const BobKinematics ka = bob_kinematics(a, left_after), kb = bob_kinematics(b, right_after);
    const double dx = kb.x - ka.x, dy = kb.y - ka.y, d = std::hypot(dx, dy);
    const double parting = ((kb.vx - ka.vx) * dx + (kb.vy - ka.vy) * dy) / d;
    EXPECT_NEAR(parting, s.chain.restitution * std::stod(r[6]), 1e-9) << "step " << step;
  }
  // Blocks on threads resolve the impacts inside themselves; running ahead, a push voids
  // what they computed: the log is the same bytes.
  BlockStepper blocks(s, {2, {}});
  EXPECT_EQ(logged(s, blocks, SyncMethod::conservative, dir / "blocks.csv").collisions,
            seq.collisions);
  EXPECT_EQ(slurp_file(dir / "blocks.csv"), text);
  RunAheadBlockStepper ahead(s, {3, {}, 256});
  EXPECT_EQ(logged(s, ahead, SyncMethod::optimistic, dir / "ahead.csv").collisions, seq.collisions);
  EXPECT_EQ(slurp_file(dir / "ahead.csv"), text);
}

// A resumed run keeps the rows up to the step it resumes from (and drops later ones and a
// half-written last line); its rows then continue as the uninterrupted run's.
TEST(CollisionLog, AResumedLogKeepsItsRowsUpToTheResumedStepAndContinues) {
  Scenario s = testing::shipped("cradle.toml");
  s.steps = 2000;
  TempDir dir;
  RunControl control;
  CollisionLog plain(s, dir / "plain.csv", false);
  SequentialStepper plain_stepper(s);
  const RunResult whole =
      drive_chain(s, SyncMethod::sequential, plain_stepper, {&plain}, control, DriveOptions{});
  ASSERT_EQ(whole.status, RunStatus::completed) << whole.error;
  const std::string text = slurp_file(dir / "plain.csv");
  const auto rows = rows_of(text);
  ASSERT_GT(rows.size(), 4u);
  // Resume at the step of the middle row: the log on disk had every row, and a torn one.
  const std::uint64_t at = std::stoull(rows[rows.size() / 2][1]);
  std::ofstream(dir / "resumed.csv") << text << "0.5,500,1,2,0.";
  // The states at `at`, from a run that stops there.
  Scenario first = s;
  first.steps = at;
  SequentialStepper first_stepper(first);
  struct Keep : CommitObserver {
    std::vector<PendulumState> states;
    std::uint64_t collisions = 0;
    void committed(std::uint64_t, std::span<const PendulumState> x, std::uint64_t c) override {
      states.assign(x.begin(), x.end());
      collisions = c;
    }
  } keep;
  drive_chain(first, SyncMethod::sequential, first_stepper, {&keep}, control, DriveOptions{});
  CollisionLog log(s, dir / "resumed.csv", true);
  const ChainStart start{at, keep.states, keep.collisions};
  DriveOptions options;
  options.from = &start;
  SequentialStepper rest(s);
  const RunResult resumed = drive_chain(s, SyncMethod::sequential, rest, {&log}, control, options);
  ASSERT_EQ(resumed.status, RunStatus::completed) << resumed.error;
  EXPECT_EQ(resumed.collisions, whole.collisions);
  EXPECT_EQ(slurp_file(dir / "resumed.csv"), text);
}

}  // namespace
}  // namespace kausal
