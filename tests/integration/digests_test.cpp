// The pinned digests (scenarios/digests.toml): every shipped scenario is listed, and its
// command, run for real, reproduces the checked-in digest. Other tests compare every method,
// layout and host with the sequential run, so this pins them all.
#include <gtest/gtest.h>

#include <toml++/toml.h>
#include <set>
#include <sstream>

#include "kausal_process.hpp"

namespace kausal::testing {
namespace {

const fs::path kSource = KAUSAL_SOURCE_DIR;

struct Pinned {
  std::string file, command, sha256;
};

std::vector<Pinned> pinned_digests() {
  const toml::table root = toml::parse_file((kSource / "scenarios/digests.toml").string());
  std::vector<Pinned> list;
  for (const auto& node : *root["scenario"].as_array()) {
    const toml::table& t = *node.as_table();
    list.push_back({t["file"].value_or(std::string{}), t["command"].value_or(std::string{}),
                    t["sha256"].value_or(std::string{})});
  }
  return list;
}

// "kausal run scenarios/x.toml --method sequential" as arguments, with the scenario's path
// made absolute.
std::vector<std::string> arguments_of(const std::string& command) {
  std::istringstream words(command);
  std::vector<std::string> args;
  for (std::string w; words >> w;)
    args.push_back(w.rfind("scenarios/", 0) == 0 ? (kSource / w).string() : w);
  EXPECT_FALSE(args.empty());
  EXPECT_EQ(args.front(), "kausal");
  args.erase(args.begin());
  return args;
}

TEST(PinnedDigests, EveryShippedScenarioIsPinned) {
  std::set<std::string> listed;
  for (const Pinned& p : pinned_digests()) {
    EXPECT_EQ(p.sha256.size(), 64u) << p.file;
    EXPECT_TRUE(listed.insert(p.file).second) << p.file << " is listed twice";
  }
  for (const auto& entry : fs::directory_iterator(kSource / "scenarios")) {
    const fs::path f = entry.path();
    if (f.extension() != ".toml" || f.filename() == "digests.toml") continue;
    EXPECT_TRUE(listed.count(f.filename().string()))
        << f.filename() << " has no pinned digest in scenarios/digests.toml";
  }
}

TEST(PinnedDigests, EachCommandReproducesItsDigest) {
  TempDir dir;
  int k = 0;
  for (const Pinned& p : pinned_digests()) {
    std::vector<std::string> args = arguments_of(p.command);
    const fs::path out = dir / ("run-" + std::to_string(k++));
    args.insert(args.end(), {"--out", out.string()});
    std::string err;
    ASSERT_EQ(run_kausal(args, dir.path(), &err), 0) << p.command << "\n" << err;
    EXPECT_EQ(read_json(out / "summary.json")["trajectory_sha256"], p.sha256)
        << p.command << ": the digest differs from scenarios/digests.toml";
  }
}

}  // namespace
}  // namespace kausal::testing
