// Deployment files: which node takes which process, and what a bad file says.
#include "monitor/scenario/deploy_file.hpp"

#include <gtest/gtest.h>

#include "common/errors.hpp"
#include "tests/temp_dir.hpp"

namespace kausal {
namespace {

using testing::TempDir;

DeployFile load(const TempDir& dir, const std::string& text) {
  dir.write("d.toml", text);
  return load_deploy_file((dir / "d.toml").string());
}

std::string error_of(const TempDir& dir, const std::string& text) {
  try {
    load(dir, text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(DeployFile, FirstNodeWithAMatchingPatternTakesTheProcess) {
  TempDir dir;
  const DeployFile d = load(dir,
                            "naming = \"corbaloc::10.0.0.1:2809/NameService\"\n"
                            "monitor_host = \"10.0.0.1\"\n"
                            "[[node]]\nname = \"alpha\"\ncomponents = [\"pendulum-1\", \"*-2\"]\n"
                            "[[node]]\nname = \"beta\"\ncomponents = [\"integrator-[3-4]\"]\n"
                            "[[node]]\nname = \"gamma\"\ncomponents = [\"*\"]\n");
  EXPECT_EQ(d.naming, "corbaloc::10.0.0.1:2809/NameService");
  EXPECT_EQ(d.monitor_host, "10.0.0.1");
  EXPECT_EQ(d.node_names(), (std::vector<std::string>{"alpha", "beta", "gamma"}));
  // By process name, or by a component it hosts.
  EXPECT_EQ(d.node_for("pendulum-1", {"system-1", "integrator-1"}).node, "alpha");
  EXPECT_EQ(d.node_for("pendulum-2", {"system-2", "integrator-2"}).node, "alpha");
  EXPECT_EQ(d.node_for("system-3", {"system-3"}).node, "gamma");
  EXPECT_EQ(d.node_for("integrator-3", {"integrator-3"}).node, "beta");
  // A pair goes where its first matching component says: beta matches integrator-4.
  EXPECT_EQ(d.node_for("pendulum-4", {"system-4", "integrator-4"}).node, "beta");
  EXPECT_EQ(d.node_for("integrator-5", {"integrator-5"}).node, "gamma");
  EXPECT_EQ(d.node_for("x", {}).line, 9);
}

TEST(DeployFile, AProcessNoNodeTakesIsBadInputNamingIt) {
  TempDir dir;
  const DeployFile d = load(dir, "[[node]]\nname = \"a\"\ncomponents = [\"system-*\"]\n");
  try {
    d.node_for("integrator-1", {"integrator-1"});
    FAIL() << "placed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no [[node]] takes process 'integrator-1'"),
              std::string::npos)
        << e.what();
  }
}

TEST(DeployFile, MistakesNameFileLineAndField) {
  TempDir dir;
  EXPECT_NE(error_of(dir, "[[node]]\nname = \"a\"\ncomponents = [\"*\"]\nport = 1\n")
                .find("d.toml:4: unknown key 'node[0].port'"),
            std::string::npos);
  EXPECT_NE(error_of(dir, "[[node]]\ncomponents = [\"*\"]\n").find("missing field node[0].name"),
            std::string::npos);
  EXPECT_NE(error_of(dir, "[[node]]\nname = \"a\"\ncomponents = []\n").find("non-empty list"),
            std::string::npos);
  EXPECT_NE(
      error_of(dir, "[[node]]\nname = \"a\"\ncomponents = [\"\"]\n").find("non-empty strings"),
      std::string::npos);
  EXPECT_NE(error_of(dir, "[[node]]\nname = \"..\"\ncomponents = [\"*\"]\n").find("plain name"),
            std::string::npos);
  EXPECT_NE(error_of(dir,
                     "[[node]]\nname = \"a\"\ncomponents = [\"*\"]\n"
                     "[[node]]\nname = \"a\"\ncomponents = [\"*\"]\n")
                .find("d.toml:4: node 'a' is listed twice"),
            std::string::npos);
  EXPECT_NE(error_of(dir, "node = 3\n").find("needs [[node]] tables"), std::string::npos);
  EXPECT_NE(error_of(dir, "[[node]\n").find("not valid TOML"), std::string::npos);
  EXPECT_NE(error_of(dir, "monitor_host = 1\n[[node]]\nname = \"a\"\ncomponents = [\"*\"]\n")
                .find("monitor_host must be a string"),
            std::string::npos);
  try {
    load_deploy_file((dir / "missing.toml").string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open deployment file"), std::string::npos);
  }
}

TEST(DeployFile, PlainNamesKeepPathsAndCommandLinesHarmless) {
  EXPECT_TRUE(plain_name("node-a.lab_1"));
  EXPECT_FALSE(plain_name(""));
  EXPECT_FALSE(plain_name(".."));
  EXPECT_FALSE(plain_name("a/b"));
  EXPECT_FALSE(plain_name("a b"));
  EXPECT_FALSE(plain_name("$(rm)"));
  EXPECT_FALSE(plain_name(std::string(65, 'a')));
  EXPECT_TRUE(plain_name(std::string(64, 'a')));
}

}  // namespace
}  // namespace kausal
