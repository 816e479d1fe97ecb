// A model out of tree (docs/adding-a-model.md, "A model out of tree"): kausal installed with
// `cmake --install`, a project written by `kausal new-model`, configured against the
// installation (find_package(kausal)) and built, its model library loaded by every process
// that builds the model, under every method and layout to one digest; what is not a model
// library is refused naming the scenario's line.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "kausal_process.hpp"

namespace kausal::testing {
namespace {

const fs::path kBuild = fs::path(KAUSAL_BIN_DIR).parent_path();

// `command` through the shell, its output in `log`; its exit status.
int shell(const std::string& command, const fs::path& log) {
  return std::system((command + " > " + log.string() + " 2>&1").c_str());
}

std::string edited(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(ModelLibrary, ANewModelBuiltAgainstTheInstalledKausalRunsUnderEveryMethodAndLayout) {
  TempDir dir;
  const fs::path prefix = dir / "install", project = dir / "spring";
  ASSERT_EQ(shell("cmake --install " + kBuild.string() + " --prefix " + prefix.string(),
                  dir / "install.log"),
            0)
      << read_file(dir / "install.log");
  const std::string kausal = (prefix / "bin" / "kausal").string();
  // Written, configured and built as its README says.
  ASSERT_EQ(shell(kausal + " new-model spring --dir " + project.string(), dir / "new.log"), 0)
      << read_file(dir / "new.log");
  EXPECT_NE(shell(kausal + " new-model spring --dir " + project.string(), dir / "again.log"), 0)
      << "a directory in the way";
  EXPECT_NE(read_file(dir / "again.log").find("exists and is not an empty directory"),
            std::string::npos);
  EXPECT_NE(
      shell(kausal + " new-model water_tank --dir " + (dir / "x").string(), dir / "builtin.log"),
      0);
  EXPECT_NE(read_file(dir / "builtin.log").find("'water_tank' is a model kausal has"),
            std::string::npos);
  const fs::path build = project / "build";
  ASSERT_EQ(
      shell("cmake -S " + project.string() + " -B " + build.string() +
                " -DCMAKE_PREFIX_PATH=" + prefix.string() + " && cmake --build " + build.string(),
            dir / "build.log"),
      0)
      << read_file(dir / "build.log");
  ASSERT_EQ(shell("ctest --test-dir " + build.string(), dir / "ctest.log"), 0)
      << read_file(dir / "ctest.log");  // kausal compare: every method, one digest
  const fs::path scenario = build / "spring.toml";
  std::string digest;
  const std::vector<std::vector<std::string>> variants = {
      {"--method", "sequential"},
      {"--method", "conservative", "--layout", "process"},
      {"--method", "optimistic", "--layout", "pendulum"},
      {"--method", "conservative", "--layout", "single", "--rollback-check"}};
  for (std::size_t k = 0; k < variants.size(); ++k) {
    std::string command = kausal + " run " + scenario.string() + " --out " +
                          (dir / ("run" + std::to_string(k))).string();
    for (const std::string& a : variants[k]) command += " " + a;
    ASSERT_EQ(shell(command, dir / "run.log"), 0) << command << "\n" << read_file(dir / "run.log");
    const std::string sha =
        read_json(dir / ("run" + std::to_string(k)) / "summary.json")["trajectory_sha256"];
    if (digest.empty()) digest = sha;
    EXPECT_EQ(sha, digest) << command;
  }
  // Not a model library, and a library that takes a built-in model's name: exit 2, the line.
  const std::string text = read_file(scenario);
  dir.write("not-a-library.toml",
            edited(text, "library = \"" + (build / "libspring.so").string() + "\"",
                   "library = \"" + (kBuild / "tests" / "fmus" / "lib" / "integrator.so").string() +
                       "\""));
  std::string err;
  EXPECT_EQ(run_kausal({"run", (dir / "not-a-library.toml").string()}, dir.path(), &err), 2);
  EXPECT_NE(err.find("not-a-library.toml:13: subsystem[1].library model library"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("is not a kausal model library"), std::string::npos) << err;
  dir.write("not-a-shared-object.toml",
            edited(text, "library = \"" + (build / "libspring.so").string() + "\"",
                   "library = \"" + scenario.string() + "\""));
  EXPECT_EQ(run_kausal({"run", (dir / "not-a-shared-object.toml").string()}, dir.path(), &err), 2);
  EXPECT_NE(err.find("not-a-shared-object.toml:13: subsystem[1].library '" + scenario.string() +
                     "' is not a shared object (.so)"),
            std::string::npos)
      << err;
  const std::string source = read_file(project / "spring.cpp");
  std::ofstream(project / "spring.cpp")
      << edited(source, "registry.add({\"spring\",", "registry.add({\"water_tank\",");
  ASSERT_EQ(shell("cmake --build " + build.string(), dir / "rebuild.log"), 0)
      << read_file(dir / "rebuild.log");
  EXPECT_EQ(run_kausal({"run", scenario.string()}, dir.path(), &err), 2);
  EXPECT_NE(err.find("registers 'water_tank', a model kausal has already"), std::string::npos)
      << err;
}

}  // namespace
}  // namespace kausal::testing
