#pragma once
// Runs a partitioned model (design.md §4): sequentially in this thread, or with every
// partition stepping on its own (in this process or in others) while the monitor routes the
// final outputs of each partition to the partitions they feed, records them, and watches
// for dead or stuck partitions.
#include <chrono>
#include <filesystem>
#include <string>

#include "monitor/cosim_plan.hpp"
#include "monitor/cosim_recorder.hpp"
#include "monitor/partition_port.hpp"
#include "monitor/run_control.hpp"
#include "monitor/run_result.hpp"

namespace kausal {

// What the result says about the scenario before the run (method, model, partitions).
RunResult describe_cosim_run(const CosimScenario& s, const std::string& method,
                             const CosimMode& mode);

// Every partition in this thread, in turn, each as far as its inputs allow. Never throws a
// kausal::Error: a failure ends the run with its status, exit code and message.
RunResult run_cosim_sequential(const CosimScenario& s, const CosimPlan& plan,
                               CosimRecorder& recorder, RunControl& control);

// The partitions of `deployment` step by themselves; conservative or optimistic is the
// plan's mode. No delivery for `stall` → every partition is pinged (a dead one ends the run
// with exit code 3). Never throws a kausal::Error.
RunResult run_cosim_distributed(const CosimScenario& s, const std::string& method,
                                const CosimPlan& plan, CosimDeployment& deployment,
                                CosimRecorder& recorder, RunControl& control,
                                std::chrono::milliseconds stall = std::chrono::seconds(5));

}  // namespace kausal
