// One placement (docs/architecture.md, "run()"): a plan that names components of every kind
// (a chain's System + Integrator pairs, blocks of pendulums, an event run's groups) is
// placed by one call of the kausal command's platform, as real processes; each kind's
// ports answer, a port asked for other components than the plan placed is refused, and one
// shutdown ends every process.
#include <gtest/gtest.h>

#include <set>

#include "common/errors.hpp"
#include "kausal_process.hpp"
#include "monitor/deploy/local_platform.hpp"
#include "monitor/deploy/process_platform.hpp"
#include "monitor/scenario/event_scenario.hpp"
#include "monitor/sync/block_port.hpp"
#include "monitor/sync/event_run.hpp"

namespace kausal::testing {
namespace {

TEST(Placement, OnePlanOfPairsBlocksAndEventGroupsIsPlacedInOneCallAndEndedInOne) {
  TempDir dir;
  const Scenario chain = load_scenario(scenario("cradle.toml"));
  const EventScenario events = load_event_scenario(scenario("phold.toml"));
  EventRunSpec spec;
  spec.method = SyncMethod::conservative;
  spec.groups = 2;
  spec.end = events.end;

  ComponentPlan plan;
  plan.pairs = chain_deployment(chain, false);
  plan.blocks = block_deployment(chain, 2, false);
  plan.event_groups.emplace(
      EventGroupsPlan{{*events.built, events.model, events.parameters}, spec});

  PlatformOptions options;
  options.bin_dir = KAUSAL_BIN_DIR;
  options.transport.host = "127.0.0.1";
  ProcessPlatform platform(options);
  std::vector<pid_t> pids;
  {
    const auto placed = platform.place(plan, {Layout::process, {}, dir / "logs"});
    // The pairs: every Integrator answers, under the names of the plan.
    ASSERT_EQ(placed->size(), chain.pendulums());
    const auto names = placed->component_names();
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).count("integrator-1"), 1u);
    for (std::size_t i = 0; i < placed->size(); ++i)
      EXPECT_EQ(placed->integrator(i).stats().derivative_calls, 0u) << i;
    for (const ComponentReport& r : placed->reports()) pids.push_back(static_cast<pid_t>(r.pid));

    // The blocks: set up as the plan says, and only so.
    ASSERT_NE(placed->blocks(), nullptr);
    const BlockPlan& second = plan.blocks[1];
    const auto port = placed->blocks()->port(1, second.first, second.last);
    EXPECT_EQ(port->place().pid > 0, true);
    pids.push_back(static_cast<pid_t>(port->place().pid));
    EXPECT_THROW(placed->blocks()->port(0, 0, chain.pendulums()), ProtocolError);

    // The event groups: one stretch commits what the groups on threads here commit.
    ASSERT_NE(placed->event_groups(), nullptr);
    const des::GroupSettings settings = group_settings(*events.built, spec);
    const EventWatch watch = [](const EventProgress&) { return true; };
    const Stretch there = placed->event_groups()->stretch(settings, nullptr, watch);
    const Stretch here = event_groups_here(*events.built, spec)->stretch(settings, nullptr, watch);
    ASSERT_FALSE(there.figures.failure) << "the groups in processes failed";
    EXPECT_FALSE(there.figures.digest.empty());
    EXPECT_EQ(there.figures.digest, here.figures.digest);
    for (const auto& place : there.figures.places) pids.push_back(static_cast<pid_t>(place.pid));
    EXPECT_EQ(pids.size(), 2 * chain.pendulums() + 1 + spec.groups);

    // One shutdown asks every pair and block to end, and each does so by itself.
    placed->shutdown();
    const std::string ended = placed->post_mortem();
    std::size_t clean = 0;
    for (auto at = ended.find("exited with code 0"); at != std::string::npos;
         at = ended.find("exited with code 0", at + 1))
      ++clean;
    EXPECT_EQ(clean, 2 * chain.pendulums() + plan.blocks.size()) << ended;
  }
  expect_all_gone(pids);
}

TEST(Placement, APlanThatCannotBePlacedIsRefusedBeforeAnythingStarts) {
  const Scenario chain = load_scenario(scenario("cradle.toml"));
  // More blocks than pendulums, or none.
  EXPECT_THROW(block_deployment(chain, chain.pendulums() + 1, false), InputError);
  EXPECT_THROW(block_deployment(chain, 0, false), InputError);
  // The platform of the tests hosts pairs only: blocks and event groups run here in their
  // own layouts, which place nothing.
  LocalPlatform local;
  const Placing placing{Layout::process, {}, {}};
  EXPECT_THROW(local.place({.blocks = block_deployment(chain, 2, false)}, placing), InputError);
  const EventScenario events = load_event_scenario(scenario("phold.toml"));
  EventRunSpec spec;
  spec.method = SyncMethod::conservative;
  spec.end = events.end;
  EXPECT_THROW(
      local.place(
          {.event_groups = EventGroupsPlan{{*events.built, events.model, events.parameters}, spec}},
          placing),
      InputError);
  EXPECT_EQ(local.place({.pairs = chain_deployment(chain, false)}, placing)->size(),
            chain.pendulums());
}

}  // namespace
}  // namespace kausal::testing
