// The kausal CLI on hostile or careless input (issue 11): every case ends at once with exit
// code 2 and a message naming the file and line, the option, the path or the address —
// never a signal, a hang, a run of zero steps, an internal error or exit 3.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <regex>

#include "kausal_process.hpp"

namespace kausal::testing {
namespace {

using namespace std::chrono_literals;

std::string shipped(const std::string& name) {
  return std::string(KAUSAL_SOURCE_DIR) + "/scenarios/" + name;
}

// Runs kausal (at most 30 s) and expects exit 2 with `message` on stderr.
void expect_refused(const std::vector<std::string>& args, const fs::path& dir,
                    const std::string& message) {
  std::string err;
  EXPECT_EQ(run_kausal(args, dir, &err, 30s), 2) << args[0] << " " << args[1] << "\n" << err;
  EXPECT_NE(err.find(message), std::string::npos) << "'" << message << "' missing from\n" << err;
}

bool matches(const std::string& text, const std::string& pattern) {
  return std::regex_search(text, std::regex(pattern));
}

TEST(BadInput, NumbersThatCastToZeroExitTwoInRunAndAnalyze) {
  TempDir dir;
  const auto out = [&](const std::string& name) { return (dir / name).string(); };
  const auto interval = scenario_variant("thesis.toml", dir.path(),
                                         {{"output_interval = 0.01", "output_interval = 1e30"}});
  expect_refused({"run", interval.string(), "--out", out("a")}, dir.path(),
                 interval.string() + ":11: simulation.output_interval must be a whole multiple");
  const auto step =
      scenario_variant("thesis.toml", dir.path(), {{"step = 0.001", "step = 1e-300"}});
  expect_refused({"run", step.string(), "--out", out("b")}, dir.path(),
                 step.string() + ":10: simulation.duration is more than 1e+10 steps");
  // Used to run "0 of 0 steps" and exit 0.
  const auto forever =
      scenario_variant("thesis.toml", dir.path(), {{"duration = 20.0", "duration = 1e19"}});
  expect_refused({"run", forever.string(), "--out", out("c")}, dir.path(),
                 forever.string() + ":10: simulation.duration is more than 1e+10 steps");
  const auto tiny_h = scenario_variant("two-tanks.toml", dir.path(), {{"h = 1.0", "h = 1e-30"}});
  for (const char* command : {"run", "analyze"}) {
    std::vector<std::string> args = {command, tiny_h.string()};
    if (std::string(command) == "run") args.insert(args.end(), {"--out", out("d")});
    expect_refused(args, dir.path(),
                   tiny_h.string() + ":22: partition 'lower': h = 0.5 is more than 1e+10 times");
  }
  EXPECT_FALSE(fs::exists(dir / "a"));
}

TEST(BadInput, OutputThatCannotBeStoredIsRefusedUnlessAllowed) {
  TempDir dir;
  const auto huge = scenario_variant(
      "thesis.toml", dir.path(),
      {{"duration = 20.0", "duration = 1e6"}, {"output_interval = 0.01", "output_every = 1"}});
  expect_refused({"run", huge.string(), "--out", (dir / "a").string()}, dir.path(),
                 huge.string() + ":11: simulation.output_every gives 1e+09 rows of 11 numbers");
  expect_refused({"run", huge.string(), "--max-output", "1X"}, dir.path(), "--max-output");
}

TEST(BadInput, FilesThatAreNotFilesEndAtOnce) {
  TempDir dir;
  const auto fifo = dir / "fifo.toml";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // /dev/zero was read until bad_alloc; a FIFO blocked forever.
  expect_refused({"run", "/dev/zero"}, dir.path(),
                 "/dev/zero: scenario file must be a regular file (this is a character device)");
  expect_refused({"run", fifo.string()}, dir.path(),
                 fifo.string() + ": scenario file must be a regular file (this is a FIFO)");
  expect_refused({"analyze", fifo.string()}, dir.path(), "must be a regular file");
  expect_refused(
      {"run", shipped("thesis.toml"), "--method", "conservative", "--deploy", "/dev/zero"},
      dir.path(), "/dev/zero: deployment file must be a regular file");
  // 40,000 levels of dotted keys overflowed the parser's stack (SIGSEGV).
  std::string deep;
  for (int k = 0; k < 40'000; ++k) deep += "a.";
  dir.write("deep.toml", deep + "b = 1\n");
  expect_refused({"run", (dir / "deep.toml").string()}, dir.path(),
                 (dir / "deep.toml").string() + ":1: nested more than 64 levels deep");
}

TEST(BadInput, AnUnbindableHostExitsTwoNamingTheAddress) {
  TempDir dir;
  // 192.0.2.1 (TEST-NET-1) is never an address of this host: nothing is bound.
  expect_refused({"node", "--name", "n1", "--naming", "corbaloc::127.0.0.1:1/NameService", "--host",
                  "192.0.2.1"},
                 dir.path(), "--host 192.0.2.1: cannot serve on this address");
  expect_refused({"run", shipped("tutorial.toml"), "--method", "conservative", "--host",
                  "192.0.2.1", "--out", (dir / "out").string()},
                 dir.path(), "--host 192.0.2.1: cannot serve on this address");
  EXPECT_TRUE(children_of(getpid()).empty());
}

TEST(BadInput, AnUnusableOutExitsTwoNamingThePath) {
  TempDir dir;
  dir.write("file", "x");
  const std::string tutorial = shipped("tutorial.toml");
  for (const std::string& out : {(dir / "file").string(), (dir / "file" / "under").string(),
                                 std::string("/proc/self/x"), std::string("/proc/self")}) {
    expect_refused({"run", tutorial, "--out", out}, dir.path(), out + ": ");
    expect_refused({"compare", tutorial, "--out", out}, dir.path(), out + ": ");
  }
  const std::string long_path = (dir / std::string(300, 'x')).string();
  expect_refused({"run", tutorial, "--out", long_path}, dir.path(),
                 "a name in it is longer than 255 bytes");
  std::string deep_path = dir.path().string();
  while (deep_path.size() < 5000) deep_path += "/" + std::string(200, 'y');
  expect_refused({"run", tutorial, "--out", deep_path}, dir.path(), "its path is longer than");
}

TEST(BadInput, AnOutInUseIsRefusedUnlessForced) {
  TempDir dir;
  const std::string tutorial = shipped("tutorial.toml");
  const fs::path out = dir / "out";
  std::string err;
  ASSERT_EQ(run_kausal({"run", tutorial, "--out", out.string()}, dir.path(), &err), 0) << err;
  const std::string first = read_file(out / "summary.json");
  // A second run into it used to overwrite it silently, mixing the two runs' files.
  expect_refused({"run", tutorial, "--method", "conservative", "--out", out.string()}, dir.path(),
                 out.string() + ": the output directory is not empty");
  expect_refused({"compare", tutorial, "--out", out.string()}, dir.path(), "--force");
  EXPECT_EQ(read_file(out / "summary.json"), first);
  // --force replaces what kausal wrote and keeps the rest.
  fs::create_directories(out / "logs");
  dir.write("out/logs/system-9.log", "stale");
  dir.write("out/notes.txt", "mine");
  ASSERT_EQ(run_kausal({"run", tutorial, "--layout", "single", "--method", "conservative", "--out",
                        out.string(), "--force"},
                       dir.path(), &err),
            0)
      << err;
  EXPECT_EQ(read_json(out / "summary.json")["method"], "conservative");
  EXPECT_FALSE(fs::exists(out / "logs" / "system-9.log"));
  EXPECT_EQ(read_file(out / "notes.txt"), "mine");
  expect_refused({"run", "--resume", out.string(), "--force"}, dir.path(),
                 "--force conflicts with --resume");
}

TEST(BadInput, NumericOptionsRefuseNanAndInfinity) {
  TempDir dir;
  const std::string tanks = shipped("two-tanks.toml");
  for (const char* bad : {"nan", "inf", "-inf", "-1", "1e400"}) {
    expect_refused({"run", tanks, "--method", "optimistic", "--tolerance", bad}, dir.path(),
                   "--tolerance");
    expect_refused({"analyze", tanks, "--at", bad}, dir.path(), "--at");
  }
  expect_refused({"run", tanks, "--max-processes", "0"}, dir.path(), "--max-processes");
}

TEST(BadInput, PartitionedScenarioMessagesNameFileAndLine) {
  TempDir dir;
  std::string err;
  const auto open_input =
      scenario_variant("orifices-pdre0.toml", dir.path(), {{"inputs = { p_up = 100.0 }", ""}});
  EXPECT_EQ(
      run_kausal({"run", open_input.string(), "--out", (dir / "a").string()}, dir.path(), &err), 2);
  EXPECT_TRUE(matches(err, std::regex_replace(open_input.string(), std::regex("[.]"), "[.]") +
                               ":[0-9]+: input 'chamber1.p_up' is not connected"))
      << err;
  const auto off_grid =
      scenario_variant("hydraulic-multirate.toml", dir.path(), {{"h = 0.0003", "h = 0.00025"}});
  expect_refused({"run", off_grid.string(), "--out", (dir / "b").string()}, dir.path(),
                 off_grid.string() +
                     ":19: partition 'drive': h = 0.00025 is not a whole "
                     "multiple of the smallest step 0.0001 s (partition 'valve')");
  expect_refused({"analyze", shipped("thesis.toml")}, dir.path(),
                 shipped("thesis.toml") + ":13: analyze needs a partitioned model");
}

// A row of `n` pendulums, 50 steps.
fs::path row_of(std::size_t n, const fs::path& file) {
  std::ofstream out(file);
  out << "[simulation]\nstep = 0.001\nsteps = 50\n[model]\ntype = \"pendulum-chain\"\n"
         "restitution = 0.9\n";
  for (std::size_t i = 0; i < n; ++i)
    out << "[[pendulum]]\npivot_x = " << 0.25 * static_cast<double>(i)
        << "\nlength = 1.0\nmass = 1.0\nradius = 0.1\nangle = " << (i == 0 ? -0.5 : 0.0) << "\n";
  return file;
}

TEST(BadInput, TheProcessesOfARunAreBounded) {
  TempDir dir;
  // 129 pairs in the process layout: 258 processes, more than the default 256.
  const auto many = row_of(129, dir / "many.toml");
  expect_refused({"run", many.string(), "--method", "conservative", "--out", (dir / "a").string()},
                 dir.path(), "this run would start 258 processes");
  expect_refused({"run", shipped("large.toml"), "--method", "optimistic", "--layout", "pendulum",
                  "--max-processes", "31", "--out", (dir / "b").string()},
                 dir.path(), "give --max-processes 32");
  EXPECT_TRUE(children_of(getpid()).empty());
  // Refused before its first step: nothing to sum up, and the directories made for the runs
  // are gone.
  EXPECT_FALSE(fs::exists(dir / "a"));
  EXPECT_FALSE(fs::exists(dir / "b"));
}

// kausal under `prlimit --nofile=SOFT:HARD`.
int kausal_with_nofile(const std::string& limits, const std::vector<std::string>& args,
                       const fs::path& dir, std::string& err) {
  std::vector<std::string> command = {"prlimit", "--nofile=" + limits, "--",
                                      std::string(KAUSAL_BIN_DIR) + "/kausal"};
  command.insert(command.end(), args.begin(), args.end());
  return run_command(command, dir, &err, 60s);
}

TEST(BadInput, TooFewFileDescriptorsAreRaisedOrRefusedBeforeStarting) {
  TempDir dir;
  const auto row = row_of(32, dir / "row.toml");  // 64 processes
  std::string err;
  // The hard limit leaves room: the soft one is raised, the run completes.
  EXPECT_EQ(kausal_with_nofile("100:4096",
                               {"run", row.string(), "--method", "conservative", "--out",
                                (dir / "raised").string()},
                               dir.path(), err),
            0)
      << err;
  // It does not: refused before anything starts, saying what to do.
  EXPECT_EQ(kausal_with_nofile(
                "100:100",
                {"run", row.string(), "--method", "optimistic", "--out", (dir / "low").string()},
                dir.path(), err),
            2)
      << err;
  EXPECT_NE(err.find("file descriptors"), std::string::npos) << err;
  EXPECT_NE(err.find("ulimit -n"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(dir / "low" / "logs" / "system-1.log"));
}

TEST(BadInput, CertsRefuseAHostNamedLikeTheCa) {
  TempDir dir;
  const fs::path certs = dir / "certs";
  std::string err;
  ASSERT_EQ(run_kausal({"certs", certs.string(), "--host", "localhost"}, dir.path(), &err, 60s), 0)
      << err;
  const std::string ca = read_file(certs / "ca.pem");
  for (const char* host : {"ca", "CA"})
    expect_refused({"certs", certs.string(), "--host", host}, dir.path(),
                   std::string("--host '") + host + "' would write its certificate to ca.pem");
  EXPECT_EQ(read_file(certs / "ca.pem"), ca);
  EXPECT_FALSE(fs::exists(certs / "CA.pem"));
}

TEST(BadInput, AChangedCheckpointIsRefusedOnResume) {
  TempDir dir;
  const fs::path out = dir / "out";
  std::string err;
  ASSERT_EQ(run_kausal({"run", shipped("tutorial.toml"), "--out", out.string()}, dir.path(), &err),
            0)
      << err;
  auto checkpoint = nlohmann::ordered_json::parse(read_file(out / "checkpoint.json"));
  checkpoint["sha256_midstate"]["h"] = std::string(64, '0');
  std::ofstream(out / "checkpoint.json") << checkpoint.dump(1);
  expect_refused({"run", "--resume", out.string()}, dir.path(),
                 (out / "checkpoint.json").string() + ": field mac: does not verify");
}

}  // namespace
}  // namespace kausal::testing
