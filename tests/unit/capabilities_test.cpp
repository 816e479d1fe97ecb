// The capability table (monitor/core/capabilities.hpp): what goes with what, and the one text
// of it that `kausal capabilities` prints and docs/capabilities.md holds.
#include "monitor/core/capabilities.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace kausal {
namespace {

constexpr ModelKind kKinds[] = {ModelKind::chain, ModelKind::partitioned, ModelKind::master,
                                ModelKind::events, ModelKind::hybrid};

RunShape distributed(ModelKind kind, SyncMethod method, Layout layout) {
  return {kind, method,
          kind == ModelKind::chain && method == SyncMethod::conservative ? Guarantee::step
                                                                         : Guarantee::none,
          layout};
}

TEST(Capabilities, EveryKindRunsSequentialAndConservativeInTheProcessLayout) {
  for (const ModelKind kind : kKinds) {
    const auto methods = methods_of(kind);
    ASSERT_FALSE(methods.empty());
    EXPECT_EQ(methods.front().first, SyncMethod::sequential) << name_of(kind);
    EXPECT_FALSE(refusal(sequential_run(kind)).has_value()) << name_of(kind);
    EXPECT_FALSE(refusal(distributed(kind, SyncMethod::conservative, Layout::process)))
        << name_of(kind);
    for (const auto& [method, guarantee] : methods)
      for (const Layout layout : layouts_of(kind))
        if (method != SyncMethod::sequential)
          EXPECT_FALSE(refusal(RunShape{kind, method, guarantee, layout}))
              << describe(RunShape{kind, method, guarantee, layout});
  }
}

TEST(Capabilities, WhatAKindRefusesItRefusesWithAReason) {
  const auto master_optimistic =
      refusal(distributed(ModelKind::master, SyncMethod::optimistic, Layout::process));
  ASSERT_TRUE(master_optimistic);
  EXPECT_NE(master_optimistic->find("remove [master]"), std::string::npos);
  EXPECT_TRUE(refusal(distributed(ModelKind::events, SyncMethod::optimistic, Layout::pendulum)));
  for (const ModelKind kind : {ModelKind::partitioned, ModelKind::master, ModelKind::events})
    for (const Layout blocks : {Layout::blocks, Layout::block_processes})
      EXPECT_TRUE(refusal(distributed(kind, SyncMethod::conservative, blocks))) << name_of(kind);
  EXPECT_TRUE(
      refusal(RunShape{ModelKind::chain, SyncMethod::sequential, Guarantee::none, Layout::process}))
      << "a sequential run has no layout";
  EXPECT_TRUE(refusal(RunShape{ModelKind::chain, SyncMethod::conservative, Guarantee::step, {}}))
      << "a distributed run needs one";
}

TEST(Capabilities, ServicesFollowTheMethodAndTheLayout) {
  const RunShape sequential = sequential_run(ModelKind::chain);
  EXPECT_TRUE(refusal(sequential, Service::nodes));
  EXPECT_TRUE(refusal(sequential, Service::rollback_check));
  EXPECT_FALSE(refusal(sequential, Service::paced));
  for (const Layout l : {Layout::single, Layout::blocks})
    EXPECT_TRUE(refusal(distributed(ModelKind::chain, SyncMethod::optimistic, l), Service::nodes));
  for (const Layout l : {Layout::process, Layout::pendulum, Layout::block_processes})
    EXPECT_FALSE(refusal(distributed(ModelKind::chain, SyncMethod::optimistic, l), Service::nodes));
  for (const Layout l : {Layout::blocks, Layout::block_processes})
    EXPECT_FALSE(refusal(distributed(ModelKind::chain, SyncMethod::conservative, l),
                         Service::rollback_check));
  EXPECT_FALSE(refusal(distributed(ModelKind::partitioned, SyncMethod::optimistic, Layout::single),
                       Service::rollback_check));
  EXPECT_FALSE(refusal(sequential_run(ModelKind::master), Service::resume));
  EXPECT_FALSE(refusal(sequential_run(ModelKind::master), Service::paced));
  EXPECT_FALSE(refusal(sequential_run(ModelKind::events), Service::paced));
  EXPECT_FALSE(refusal(sequential_run(ModelKind::events), Service::inject));
  EXPECT_FALSE(refusal(sequential_run(ModelKind::events), Service::resume));
  EXPECT_FALSE(refusal(sequential_run(ModelKind::events), Service::animate));
  for (const ModelKind kind : kKinds) EXPECT_FALSE(refusal(sequential_run(kind), Service::tls));
}

// The bridge runs under every method in every layout of partitions, with every service
// (--resume from a cut, docs/events.md) and its discrete side in event groups (--groups); it
// predicts nothing.
TEST(Capabilities, AHybridModelRunsEveryMethodWithEveryService) {
  const auto methods = methods_of(ModelKind::hybrid);
  ASSERT_EQ(methods.size(), 3u);
  EXPECT_EQ(layouts_of(ModelKind::hybrid),
            (std::vector<Layout>{Layout::process, Layout::pendulum, Layout::single}));
  EXPECT_FALSE(refusal(sequential_run(ModelKind::hybrid)));
  for (const SyncMethod m : {SyncMethod::conservative, SyncMethod::optimistic})
    for (const Layout l : layouts_of(ModelKind::hybrid)) {
      const RunShape shape = distributed(ModelKind::hybrid, m, l);
      EXPECT_FALSE(refusal(shape)) << describe(shape);
      for (const Service s : kServices)
        EXPECT_EQ(refusal(shape, s).has_value(), s == Service::nodes && l == Layout::single)
            << describe(shape) << " " << name_of(s);
      EXPECT_FALSE(refusal(shape, Setting::groups)) << describe(shape);
      EXPECT_TRUE(refusal(shape, Setting::tolerance))
          << "a hybrid model's partitions predict nothing";
      EXPECT_EQ(refusal(shape, Setting::window).has_value(), m != SyncMethod::optimistic);
    }
  EXPECT_NE(capability_table().find("hybrid: "), std::string::npos);
}

TEST(Capabilities, SettingsBelongToTheirMethodAndKind) {
  const RunShape step = distributed(ModelKind::chain, SyncMethod::conservative, Layout::process);
  RunShape lookahead = step;
  lookahead.guarantee = Guarantee::lookahead;
  const RunShape optimistic =
      distributed(ModelKind::chain, SyncMethod::optimistic, Layout::process);
  EXPECT_FALSE(refusal(step, Setting::guarantee));
  EXPECT_TRUE(refusal(optimistic, Setting::guarantee));
  EXPECT_TRUE(refusal(step, Setting::check_guarantees));
  EXPECT_FALSE(refusal(lookahead, Setting::check_guarantees));
  EXPECT_FALSE(refusal(optimistic, Setting::batch));
  EXPECT_TRUE(refusal(distributed(ModelKind::chain, SyncMethod::optimistic, Layout::blocks),
                      Setting::batch));
  EXPECT_TRUE(refusal(optimistic, Setting::tolerance)) << "a chain predicts nothing";
  EXPECT_FALSE(refusal(distributed(ModelKind::partitioned, SyncMethod::optimistic, Layout::process),
                       Setting::tolerance));
  EXPECT_TRUE(
      refusal(distributed(ModelKind::partitioned, SyncMethod::conservative, Layout::process),
              Setting::guarantee));
  for (const Setting s : {Setting::guarantee, Setting::batch, Setting::window})
    EXPECT_TRUE(refusal(distributed(ModelKind::events, SyncMethod::optimistic, Layout::single), s))
        << name_of(s) << ": the [events] table holds it";
  EXPECT_FALSE(refusal(sequential_run(ModelKind::events), Setting::groups));
  EXPECT_TRUE(refusal(sequential_run(ModelKind::chain), Setting::groups));
  EXPECT_FALSE(refusal(sequential_run(ModelKind::hybrid), Setting::groups));
  EXPECT_TRUE(refusal(sequential_run(ModelKind::partitioned), Setting::groups));
}

TEST(Capabilities, TheTableSaysEveryRefusalOnce) {
  const std::string table = capability_table();
  for (const ModelKind kind : kKinds)
    EXPECT_NE(table.find(std::string(name_of(kind)) + ": "), std::string::npos) << name_of(kind);
  for (const Service s : kServices)
    EXPECT_NE(table.find("  " + std::string(name_of(s)) + " "), std::string::npos) << name_of(s);
  // A kind's setting refused for every run reads "no: REASON"; no gap is left.
  EXPECT_NE(table.find("--reference        no: a pendulum chain's contacts"), std::string::npos)
      << table;
  // Every refusal left is inherent: none says it is a gap.
  EXPECT_EQ(table.find("not built yet"), std::string::npos) << table;
  EXPECT_EQ(table.find("so far"), std::string::npos) << table;
  const std::string hybrid = table.substr(table.find("hybrid: "));
  EXPECT_NE(hybrid.find("--resume           yes"), std::string::npos) << hybrid;
  EXPECT_NE(hybrid.find("--groups           yes"), std::string::npos) << hybrid;
  // Refused for some runs only: the runs are named.
  EXPECT_NE(table.find("--deploy           yes; not"), std::string::npos) << table;
}

// docs/capabilities.md holds the table as `kausal capabilities` prints it.
TEST(Capabilities, TheDocsHoldTheTableAsPrinted) {
  std::ifstream in(std::string(KAUSAL_SOURCE_DIR) + "/docs/capabilities.md");
  ASSERT_TRUE(in) << "docs/capabilities.md is missing";
  std::stringstream doc;
  doc << in.rdbuf();
  EXPECT_NE(doc.str().find("```text\n" + capability_table() + "```"), std::string::npos)
      << "docs/capabilities.md differs from `kausal capabilities`; the table is:\n"
      << capability_table();
}

}  // namespace
}  // namespace kausal
