#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "integrator/stepper.hpp"
#include "monitor/record/trajectory_recorder.hpp"

namespace kausal {
namespace {

TEST(Sha256, KnownVectors) {
  Sha256 empty;
  EXPECT_EQ(empty.hex(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  Sha256 abc;
  abc.update("abc", 3);
  EXPECT_EQ(abc.hex(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(abc.hex(), abc.hex());  // reading does not disturb the running digest
}

TEST(TrajectoryRecorder, DigestCoversEveryCommittedStateInOrder) {
  std::vector<PendulumState> a = {{1.0, 2.0}, {3.0, 4.0}};
  std::vector<PendulumState> b = {{5.0, 6.0}, {7.0, 8.0}};
  TrajectoryRecorder rec({}, 2, 1, 1, 0.0, 0.1);
  rec.commit(0, a);
  rec.commit(1, b);
  Sha256 expected;
  const double raw[] = {1, 2, 3, 4, 5, 6, 7, 8};
  expected.update(raw, sizeof raw);
  EXPECT_EQ(rec.digest(), expected.hex());

  TrajectoryRecorder swapped({}, 2, 1, 1, 0.0, 0.1);
  swapped.commit(0, b);
  swapped.commit(1, a);
  EXPECT_NE(swapped.digest(), rec.digest());
}

// A slow run (a step every 20 ms) fills its first block only after about half an hour;
// trajectory.csv must still grow while it runs, not only when the block is full or the run
// ends (a user watches it; a killed run keeps what reached the disk).
// The checkpointer takes a chain's states from here: the last committed step's, whichever
// block holds them, while the writers hash and after they are done (blocks are reused).
TEST(TrajectoryRecorder, LastStatesAreTheLastCommittedStepsWhereverItsBlockIs) {
  for (const std::size_t n : {std::size_t{3}, std::size_t{70000}}) {  // many steps a block; one
    TrajectoryRecorder rec({}, n, 1, 40, 0.0, 0.1);
    EXPECT_TRUE(rec.last_states().empty());
    std::vector<PendulumState> states(n);
    for (std::uint64_t step = 0; step <= 40; ++step) {
      for (std::size_t i = 0; i < n; ++i)
        states[i] = {static_cast<double>(step), static_cast<double>(i)};
      rec.commit(step, states);
      if (step % 7 == 0) rec.position();  // the writers done with every block, as a checkpoint
      const std::span<const PendulumState> last = rec.last_states();
      ASSERT_EQ(last.size(), n) << "step " << step;
      EXPECT_TRUE(std::equal(last.begin(), last.end(), states.begin())) << "step " << step;
    }
  }
}

TEST(TrajectoryRecorder, ASlowRunReachesTheDiskWhileItRuns) {
  const auto csv = std::filesystem::temp_directory_path() /
                   ("kausal-slow-" + std::to_string(::getpid()) + ".csv");
  {
    TrajectoryRecorder rec(csv, 1, 1, 1000000, 0.0, 0.1);
    const auto header = std::filesystem::file_size(csv);
    std::vector<PendulumState> x = {{0.25, -0.5}};
    std::uintmax_t size = header;
    for (std::uint64_t step = 0; step < 150 && size == header; ++step) {  // at most 3 s
      rec.commit(step, x);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      size = std::filesystem::file_size(csv);
    }
    EXPECT_GT(size, header) << "nothing written after 3 s of a slow run";
  }
  std::filesystem::remove(csv);
}

TEST(TrajectoryRecorder, CsvHasTheOutputIntervalAndTheLastStepExactly) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kausal-rec-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto csv = dir / "trajectory.csv";
  {
    TrajectoryRecorder rec(csv, 1, 3, 10, 0.0, 0.1);
    for (std::uint64_t m = 0; m <= 10; ++m) {
      std::vector<PendulumState> x = {{0.1 * static_cast<double>(m), 1.0 / 3.0}};
      rec.commit(m, x);
    }
  }
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "t,phi_1,omega_1");
  std::vector<double> times;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string t, phi, omega;
    std::getline(row, t, ',');
    std::getline(row, phi, ',');
    std::getline(row, omega, ',');
    times.push_back(std::stod(t));
    double w = 0;
    std::from_chars(omega.data(), omega.data() + omega.size(), w);
    EXPECT_EQ(w, 1.0 / 3.0);  // round-trips exactly
  }
  std::vector<double> expected;
  for (std::uint64_t m : {0, 3, 6, 9, 10}) expected.push_back(step_time(0.0, 0.1, m));
  EXPECT_EQ(times, expected);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kausal
