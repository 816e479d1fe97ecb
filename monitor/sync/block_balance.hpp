#pragma once
// How a chain's pendulums are shared among its blocks on threads (--layout blocks:K). The
// digest hashes every committed state on a thread of its own (TrajectoryRecorder): about
// 11 ns per pendulum-step against 25 ns of Euler stepping here, a third of the work. When
// every CPU the run may use steps a block, that thread takes its time from one block's CPU,
// and every step waits for that block. So the run pins the hashing beside the last lane and
// gives that lane's blocks fewer pendulums, in proportion to what the hashing costs against
// the stepping (measured on a sample of the chain). Where a CPU is left over, the hashing
// gets it and the blocks stay equal. Every split gives the same bits (docs/architecture.md
// "Blocks").
#include <cstddef>
#include <span>
#include <vector>

#include "monitor/scenario/scenario.hpp"

namespace kausal {

// Per block, its share of the pendulums (block_starts' weights) when block k steps on lane k %
// lanes, each lane on a CPU of its own, and the hashing, which costs `digest_share` times the
// stepping per pendulum-step, runs on the last lane's CPU: every CPU then carries the same work.
// The last lane keeps at least a tenth of an equal share.
std::vector<double> balanced_block_weights(std::size_t blocks, std::size_t lanes,
                                           double digest_share);

// The digest's cost per pendulum-step against a block's step (stepping and contacts) of the
// scenario's chain, each the fastest of six timed rounds on a sample of at most 4,096 of
// its pendulums (a few milliseconds); 0 if the sample cannot be stepped.
double digest_share(const Scenario& s);

}  // namespace kausal
