// Checkpoints and resume in process: the digest midstate and the states survive the file bit
// for bit, and a run cut at step m and resumed gives the uninterrupted run's digest and
// trajectory.csv, byte for byte, for every method.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "monitor/deploy/local_platform.hpp"
#include "monitor/run/resume.hpp"
#include "monitor/run/run.hpp"
#include "test_support.hpp"
#include "tests/temp_dir.hpp"

namespace kausal {
namespace {

namespace fs = std::filesystem;
using testing::short_thesis;
using testing::slurp;
using testing::TempDir;

TEST(Sha256Midstate, ContinuesToTheUninterruptedDigest) {
  std::string data;
  for (int k = 0; k < 1000; ++k) data += static_cast<char>(k * 7 + 3);
  Sha256 whole;
  whole.update(data.data(), data.size());
  // Cuts inside a block, on a block boundary and at the start.
  for (std::size_t cut : {std::size_t{0}, std::size_t{64}, std::size_t{100}, std::size_t{999}}) {
    Sha256 first;
    first.update(data.data(), cut);
    const Sha256::Midstate m = first.midstate();
    EXPECT_EQ(m.length, cut);
    EXPECT_EQ(m.pending.size(), cut % 64);
    Sha256 resumed;
    resumed.update("garbage", 7);  // restore replaces everything
    resumed.restore(m);
    resumed.update(data.data() + cut, data.size() - cut);
    EXPECT_EQ(resumed.hex(), whole.hex()) << "cut at " << cut;
  }
}

TEST(Sha256Midstate, RefusesPendingBytesThatDoNotFitTheLength) {
  Sha256 sha;
  sha.update("abc", 3);
  Sha256::Midstate m = sha.midstate();
  m.length = 4;
  Sha256 other;
  EXPECT_THROW(other.restore(m), InputError);
}

Checkpoint sample_checkpoint() {
  Checkpoint c;
  c.setup = {"scenarios/x.toml",
             SyncMethod::optimistic,
             Guarantee::none,
             Layout::pendulum,
             0,
             32,
             128,
             false,
             true,
             0.0,
             Pinning::cores,
             3000,
             "/where/it/ran/scenarios",
             {{"/where/it/ran/scenarios/in.csv", std::string(64, 'b')}}};
  c.scenario_sha256 = std::string(64, 'a');
  ChainPoint& chain = c.point.emplace<ChainPoint>();
  chain.pendulums = 3;
  chain.planned_steps = 100;
  chain.h = 1e-3;
  // Values a decimal round trip could get wrong: -0, a subnormal, a double next to 0.1.
  chain.states = {{-0.0, std::nextafter(0.1, 1.0)},
                  {std::numeric_limits<double>::denorm_min(), -1.2345678901234567e-300},
                  {1.0 / 3.0, -std::numeric_limits<double>::max()}};
  chain.collisions = 7;
  Sha256 sha;
  const std::uint64_t bytes = 16 * 3 * 43;  // steps 0 .. 42
  for (std::uint64_t k = 0; k < bytes; ++k) sha.update("x", 1);
  chain.recorder = {42, sha.midstate(), 1234};
  c.resumed_from = {10, 30};
  return c;
}

TEST(Checkpoint, RoundTripsEveryFieldBitForBit) {
  TempDir dir;
  const Checkpoint written = sample_checkpoint();
  write_checkpoint(written, dir.path());
  EXPECT_FALSE(fs::exists(dir / "checkpoint.json.tmp"));
  const Checkpoint read = read_checkpoint(dir.path());
  ASSERT_FALSE(read.partitioned());
  const ChainPoint& c = written.chain();
  const ChainPoint& r = read.chain();
  ASSERT_EQ(r.states.size(), c.states.size());
  for (std::size_t i = 0; i < c.states.size(); ++i)
    for (std::size_t k = 0; k < 2; ++k)
      EXPECT_EQ(std::bit_cast<std::uint64_t>(r.states[i][k]),
                std::bit_cast<std::uint64_t>(c.states[i][k]));
  EXPECT_EQ(read.step(), 42u);
  EXPECT_EQ(r.recorder.csv_bytes, 1234u);
  EXPECT_EQ(r.recorder.digest.h, c.recorder.digest.h);
  EXPECT_EQ(r.recorder.digest.length, c.recorder.digest.length);
  EXPECT_EQ(r.recorder.digest.pending, c.recorder.digest.pending);
  EXPECT_EQ(r.collisions, 7u);
  EXPECT_EQ(read.resumed_from, written.resumed_from);
  EXPECT_EQ(read.setup.method, SyncMethod::optimistic);
  EXPECT_EQ(read.setup.scenario_dir, "/where/it/ran/scenarios");
  EXPECT_EQ(read.setup.files, written.setup.files);
  EXPECT_EQ(read.setup.layout, Layout::pendulum);
  EXPECT_EQ(read.setup.batch, 32u);
  EXPECT_EQ(read.setup.window, 128u);
  EXPECT_TRUE(read.setup.rollback_check);
  EXPECT_EQ(r.planned_steps, 100u);
  EXPECT_EQ(read.scenario_sha256, written.scenario_sha256);
}

// Rewrites one field of DIR/checkpoint.json and expects read_checkpoint to name it.
void expect_refused(const fs::path& dir, const std::string& field, const nlohmann::json& value,
                    const std::string& message) {
  auto j = nlohmann::json::parse(slurp(dir / "checkpoint.json"));
  if (value.is_null())
    j.erase(field);
  else
    j[field] = value;
  std::ofstream(dir / "checkpoint.json") << j.dump();
  try {
    read_checkpoint(dir);
    ADD_FAILURE() << field << " accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

// The states are written as text beside the JSON tree: a scenario name that looks like the
// field, quotes and all, must not take their place, and a blocks run keeps its count.
TEST(Checkpoint, StatesWrittenAsTextRoundTripWhateverTheScenarioIsCalled) {
  TempDir dir;
  Checkpoint written = sample_checkpoint();
  written.setup.scenario = R"(odd "states": "<states>" and "states":"<states>".toml)";
  written.setup.method = SyncMethod::conservative;
  written.setup.guarantee = Guarantee::step;
  written.setup.layout = Layout::blocks;
  written.setup.blocks = 3;
  written.setup.batch = written.setup.window = 0;
  write_checkpoint(written, dir.path());
  const Checkpoint read = read_checkpoint(dir.path());
  EXPECT_EQ(read.setup.scenario, written.setup.scenario);
  EXPECT_EQ(read.setup.layout, Layout::blocks);
  EXPECT_EQ(read.setup.blocks, 3u);
  ASSERT_EQ(read.chain().states.size(), written.chain().states.size());
  for (std::size_t i = 0; i < written.chain().states.size(); ++i)
    for (std::size_t k = 0; k < 2; ++k)
      EXPECT_EQ(std::bit_cast<std::uint64_t>(read.chain().states[i][k]),
                std::bit_cast<std::uint64_t>(written.chain().states[i][k]));
  // A blocks layout without its count (or a count without the layout) is refused.
  expect_refused(dir.path(), "blocks", 0, "field blocks");
}

TEST(Checkpoint, RefusesAnInconsistentFile) {
  TempDir dir;
  const Checkpoint c = sample_checkpoint();
  auto fresh = [&] { write_checkpoint(c, dir.path()); };
  fresh();
  expect_refused(dir.path(), "step", 101, "beyond planned_steps");
  fresh();
  expect_refused(dir.path(), "step", 41, "sha256_midstate.length");
  fresh();
  expect_refused(dir.path(), "pendulums", 4, "states: 3 pendulums, expected 4");
  fresh();
  expect_refused(dir.path(), "csv_bytes", nullptr, "csv_bytes is missing");
  fresh();
  expect_refused(dir.path(), "states", {{"zz", "00"}}, "states");
  fresh();
  expect_refused(dir.path(), "format", "kausal-checkpoint/99", "format");
  fresh();
  expect_refused(dir.path(), "files", {{{"path", "in.csv"}, {"sha256", std::string(64, 'b')}}},
                 "files[0].path: not an absolute path");
  fresh();
  expect_refused(dir.path(), "files", {{{"path", "/in.csv"}, {"sha256", "beef"}}},
                 "files[0].sha256: not 64 hexadecimal digits");
  fresh();
  expect_refused(dir.path(), "files", "in.csv", "field files: not an array");
  std::ofstream(dir / "checkpoint.json") << "{ not json";
  EXPECT_THROW(read_checkpoint(dir.path()), InputError);
}

// Changes a checkpoint the way a hand or a disk would, keeping it well-formed.
void edit_checkpoint(const fs::path& dir,
                     const std::function<void(nlohmann::ordered_json&)>& edit) {
  auto j = nlohmann::ordered_json::parse(slurp(dir / "checkpoint.json"));
  edit(j);
  std::ofstream(dir / "checkpoint.json") << j.dump(1);
}

// Points KAUSAL_CHECKPOINT_KEY at `file` while it lives (each test is a process of its own).
class KeyFile {
 public:
  explicit KeyFile(const fs::path& file) { setenv("KAUSAL_CHECKPOINT_KEY", file.c_str(), 1); }
  ~KeyFile() { unsetenv("KAUSAL_CHECKPOINT_KEY"); }
  KeyFile(const KeyFile&) = delete;
  KeyFile& operator=(const KeyFile&) = delete;
};

std::string refusal(const fs::path& dir) {
  try {
    read_checkpoint(dir);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(Checkpoint, AChangedContentDoesNotVerify) {
  TempDir dir;
  const KeyFile key(dir / "key");
  write_checkpoint(sample_checkpoint(), dir.path());
  EXPECT_EQ(read_checkpoint(dir.path()).step(), 42u);
  // A zeroed midstate is well-formed: only the MAC tells.
  edit_checkpoint(dir.path(), [](auto& j) { j["sha256_midstate"]["h"] = std::string(64, '0'); });
  EXPECT_EQ(refusal(dir.path()),
            (dir / "checkpoint.json").string() +
                ": field mac: does not verify with this user's checkpoint key (" +
                (dir / "key").string() +
                "): the file was changed after kausal wrote it, or another user or machine "
                "wrote it; it cannot be resumed");
  write_checkpoint(sample_checkpoint(), dir.path());
  edit_checkpoint(dir.path(), [](auto& j) { j["states"][1][0] = "0000000000000000"; });
  EXPECT_THROW(read_checkpoint(dir.path()), InputError);
}

// What an unkeyed checksum could not stop: the file changed and its MAC recomputed, by
// someone without the key (here: with a key of their own).
TEST(Checkpoint, AChangeWithItsMacRecomputedUnderAnotherKeyIsRefused) {
  TempDir dir;
  Checkpoint forged = sample_checkpoint();
  forged.chain().recorder.digest.h.fill(0);
  {
    const KeyFile theirs(dir / "their-key");
    write_checkpoint(forged, dir.path());
    EXPECT_NO_THROW(read_checkpoint(dir.path()));  // it verifies under their key
  }
  const KeyFile ours(dir / "our-key");
  fs::create_directories(dir / "ours");
  write_checkpoint(sample_checkpoint(), dir / "ours");  // creates our key
  EXPECT_NE(refusal(dir.path()).find("field mac: does not verify"), std::string::npos);
}

TEST(CheckpointKey, IsCreatedForItsOwnerOnlyAndRefusedIfOthersMayReadIt) {
  TempDir dir;
  const fs::path file = dir / "config" / "kausal" / "checkpoint.key";
  const KeyFile key(file);
  write_checkpoint(sample_checkpoint(), dir.path());
  ASSERT_TRUE(fs::exists(file));
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::mask,
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(slurp(file).size(), 65u);  // 64 hex digits and a newline
  const std::string first = slurp(file);
  write_checkpoint(sample_checkpoint(), dir.path());
  EXPECT_EQ(slurp(file), first);  // kept, not drawn anew
  EXPECT_EQ(read_checkpoint(dir.path()).step(), 42u);

  fs::permissions(file, fs::perms::group_read | fs::perms::others_read, fs::perm_options::add);
  EXPECT_NE(refusal(dir.path()).find("may be read or changed by other users: chmod 600 it"),
            std::string::npos);
  EXPECT_THROW(write_checkpoint(sample_checkpoint(), dir.path()), InputError);

  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
  std::ofstream(file) << "not a key\n";
  EXPECT_NE(refusal(dir.path()).find("is not 64 lowercase hex digits"), std::string::npos);
  fs::remove(file);
  EXPECT_NE(refusal(dir.path()).find("does not exist, so this checkpoint cannot be verified here"),
            std::string::npos);
}

TEST(Checkpoint, ACheckpointOfAnOlderFormatIsRefusedSayingWhy) {
  TempDir dir;
  const KeyFile key(dir / "key");
  for (const std::string format : {"kausal-checkpoint/1", "kausal-checkpoint/3"}) {
    write_checkpoint(sample_checkpoint(), dir.path());
    edit_checkpoint(dir.path(), [&](auto& j) {
      j["format"] = format;
      j.erase("mac");
    });
    EXPECT_NE(refusal(dir.path())
                  .find("written by an older kausal (format " + format +
                        "), whose checksum anyone who changed the file could "
                        "recompute"),
              std::string::npos)
        << refusal(dir.path());
  }
}

TEST(Checkpointer, WritesTheFirstStepAtOnceThenAtMostEveryIntervalAndOnRequest) {
  TempDir dir;
  Checkpoint base = sample_checkpoint();
  base.chain().pendulums = 1;
  base.resumed_from.clear();
  TrajectoryRecorder recorder({}, 1, 1, 100, 0.0, 1e-3);
  Checkpointer checkpoints(dir.path(), base, recorder, std::chrono::hours(1));
  std::vector<PendulumState> x = {{0.5, -0.25}};
  recorder.commit(0, x);
  checkpoints.committed(0, x, 0);
  EXPECT_EQ(read_checkpoint(dir.path()).step(), 0u);  // a crash from now on can be resumed
  x[0][0] = 0.75;
  recorder.commit(1, x);
  checkpoints.committed(1, x, 0);
  EXPECT_EQ(read_checkpoint(dir.path()).step(), 0u);  // not due for an hour
  checkpoints.write_now();
  const Checkpoint c = read_checkpoint(dir.path());
  EXPECT_EQ(c.step(), 1u);
  EXPECT_EQ(c.chain().states.front()[0], 0.75);
}

// ---- a run cut at step m and resumed ----

enum class Kind {
  sequential,
  conservative,
  lookahead,
  optimistic,
  blocks,
  lookahead_blocks,
  optimistic_blocks
};

bool in_blocks(Kind kind) {
  return kind == Kind::blocks || kind == Kind::lookahead_blocks || kind == Kind::optimistic_blocks;
}

// A run of `kind` into dir with its checkpoint, fresh or resumed; components in process.
RunResult record(Kind kind, const Scenario& s, const fs::path& dir, RunControl& control,
                 const ResumedRun* resumed = nullptr) {
  const SyncMethod method = kind == Kind::sequential ? SyncMethod::sequential
                            : kind == Kind::optimistic || kind == Kind::optimistic_blocks
                                ? SyncMethod::optimistic
                                : SyncMethod::conservative;
  const Guarantee granted = kind == Kind::lookahead || kind == Kind::lookahead_blocks
                                ? Guarantee::lookahead
                            : method == SyncMethod::conservative ? Guarantee::step
                                                                 : Guarantee::none;
  RunSpec spec;
  spec.model = resumed ? resumed_model(*resumed)
                       : RunModel(ChainModel{std::make_shared<const Scenario>(s), nullptr});
  spec.method = method;
  spec.guarantee = granted;
  spec.layout = in_blocks(kind) ? Layout::blocks : Layout::single;
  spec.blocks = in_blocks(kind) ? 3 : 0;
  spec.batch = 8;
  if (method == SyncMethod::optimistic) spec.window = 32;
  spec.pin = Pinning::none;
  spec.out = dir;
  LocalPlatform platform;
  return run(spec, platform, control);
}

struct Uninterrupted {
  TempDir dir;
  Scenario s;
  RunResult r;
  Uninterrupted() {
    s = load_scenario(short_thesis(dir.path(), "1.5"));
    RunControl control;
    r = record(Kind::sequential, s, dir.path(), control);
  }
};

const Uninterrupted& reference() {
  static const Uninterrupted u;
  return u;
}

void expect_cut_and_resume_matches(Kind kind, std::uint64_t cut, bool crash_debris = false) {
  const Uninterrupted& ref = reference();
  ASSERT_EQ(ref.r.status, RunStatus::completed);
  ASSERT_GT(ref.r.collisions, 0u);  // the cut must be able to fall among impacts
  TempDir dir;
  const Scenario s = load_scenario(short_thesis(dir.path(), "1.5"));
  StopAt stop(cut);
  const RunResult first = record(kind, s, dir.path(), stop);
  ASSERT_EQ(first.status, RunStatus::interrupted);
  ASSERT_EQ(first.steps, cut);
  EXPECT_EQ(read_checkpoint(dir.path()).step(), cut);
  EXPECT_EQ(read_checkpoint(dir.path()).setup.blocks, in_blocks(kind) ? 3u : 0u);
  if (crash_debris)  // a crash after the checkpoint: rows of later steps, half a row
    std::ofstream(dir / "trajectory.csv", std::ios::app) << "9.99,1,2,3\n1.0,0.5";
  const ResumedRun resumed = prepare_resume({dir.path(), "", {}});
  EXPECT_EQ(resumed.start.step, cut);
  RunControl control;
  const RunResult second = record(kind, resumed.scenario, dir.path(), control, &resumed);
  EXPECT_EQ(second.status, RunStatus::completed) << second.error;
  EXPECT_EQ(second.steps, s.steps);
  EXPECT_EQ(second.collisions, ref.r.collisions);
  EXPECT_EQ(second.trajectory_sha256, ref.r.trajectory_sha256);
  EXPECT_EQ(slurp(dir / "trajectory.csv"), slurp(ref.dir / "trajectory.csv"));
  const Checkpoint last = read_checkpoint(dir.path());
  EXPECT_EQ(last.step(), s.steps);
  EXPECT_EQ(last.resumed_from, std::vector<std::uint64_t>{cut});
}

TEST(Resume, SequentialCutAnywhereGivesTheUninterruptedDigestAndCsv) {
  // Step 0, between rows, on a row (output every 10 steps), the step before the end.
  for (std::uint64_t cut : {0u, 1u, 437u, 700u, 1499u}) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    expect_cut_and_resume_matches(Kind::sequential, cut);
  }
}

TEST(Resume, BlocksCutAnywhereGiveTheUninterruptedDigestAndCsv) {
  for (std::uint64_t cut : {1u, 611u, 1499u}) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    expect_cut_and_resume_matches(Kind::blocks, cut);
  }
}

TEST(Resume, LookaheadBlocksCutAnywhereGiveTheUninterruptedDigestAndCsv) {
  for (std::uint64_t cut : {1u, 611u}) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    expect_cut_and_resume_matches(Kind::lookahead_blocks, cut);
  }
}

TEST(Resume, OptimisticBlocksCutAnywhereGiveTheUninterruptedDigestAndCsv) {
  for (std::uint64_t cut : {1u, 611u}) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    expect_cut_and_resume_matches(Kind::optimistic_blocks, cut);
  }
}

TEST(Resume, RowsWrittenAfterTheCheckpointAreCutOff) {
  expect_cut_and_resume_matches(Kind::sequential, 523, true);
}

TEST(Resume, ConservativeStepAndLookaheadIntegratorsStartAtTheCheckpoint) {
  expect_cut_and_resume_matches(Kind::conservative, 611);
  expect_cut_and_resume_matches(Kind::lookahead, 611);
}

TEST(Resume, OptimisticIntegratorsStartAtTheCheckpoint) {
  expect_cut_and_resume_matches(Kind::optimistic, 611);
}

TEST(Resume, ResumingTwiceKeepsCountingAndStillMatches) {
  const Uninterrupted& ref = reference();
  TempDir dir;
  const Scenario s = load_scenario(short_thesis(dir.path(), "1.5"));
  StopAt first_stop(300);
  record(Kind::sequential, s, dir.path(), first_stop);
  const ResumedRun once = prepare_resume({dir.path(), "", {}});
  StopAt second_stop(900);
  EXPECT_EQ(record(Kind::sequential, once.scenario, dir.path(), second_stop, &once).status,
            RunStatus::interrupted);
  const ResumedRun twice = prepare_resume({dir.path(), "", {}});
  EXPECT_EQ(twice.start.step, 900u);
  RunControl control;
  const RunResult r = record(Kind::sequential, twice.scenario, dir.path(), control, &twice);
  EXPECT_EQ(r.trajectory_sha256, ref.r.trajectory_sha256);
  EXPECT_EQ(read_checkpoint(dir.path()).resumed_from, (std::vector<std::uint64_t>{300, 900}));
}

// ---- what prepare_resume refuses ----

void expect_resume_refused(const ResumeRequest& req, const std::string& message) {
  try {
    prepare_resume(req);
    ADD_FAILURE() << "resume accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

struct CutRun {
  TempDir dir;
  Scenario s;
  CutRun() {
    s = load_scenario(short_thesis(dir.path(), "0.3"));
    StopAt stop(100);
    record(Kind::sequential, s, dir.path(), stop);
  }
  ResumeRequest request() const { return {dir.path(), "", {}}; }
};

TEST(Resume, RefusesWhatItCannotContinue) {
  expect_resume_refused({"/nonexistent/kausal-run", "", {}}, "no such run directory");
  {
    TempDir empty;
    expect_resume_refused({empty.path(), "", {}}, "no checkpoint");
  }
  {
    CutRun run;
    fs::resize_file(run.dir / "trajectory.csv", 100);
    expect_resume_refused(run.request(), "shorter than");
  }
  {
    CutRun run;
    std::ofstream(run.dir / "scenario.toml", std::ios::app) << "\n# edited\n";
    expect_resume_refused(run.request(), "changed since the run started");
  }
  {
    CutRun run;
    ResumeRequest req = run.request();
    req.given["--method"] = "optimistic";
    expect_resume_refused(req, "--method optimistic conflicts");
    req.given = {{"--out", "elsewhere"}};
    expect_resume_refused(req, "--out conflicts");
    req.given = {{"--method", "sequential"}};  // the same as stored: fine
    EXPECT_EQ(prepare_resume(req).start.step, 100u);
  }
  {
    CutRun run;
    ResumeRequest req = run.request();
    fs::create_directories(run.dir / "other");
    req.scenario = short_thesis(run.dir / "other", "0.4").string();
    expect_resume_refused(req, "differs from the scenario the run started with");
  }
}

TEST(Resume, RefusesACheckpointChangedAfterItWasWritten) {
  CutRun run;
  edit_checkpoint(run.dir.path(),
                  [](auto& j) { j["sha256_midstate"]["h"] = std::string(64, '0'); });
  expect_resume_refused(run.request(), "checkpoint.json: field mac: does not verify");
}

TEST(Resume, ACompletedRunHasNothingToResume) {
  TempDir dir;
  const Scenario s = load_scenario(short_thesis(dir.path(), "0.1"));
  RunControl control;
  record(Kind::sequential, s, dir.path(), control);
  EXPECT_TRUE(prepare_resume({dir.path(), "", {}}).complete());
}

}  // namespace
}  // namespace kausal
