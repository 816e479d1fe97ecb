#pragma once
// `kausal run`, `kausal run --resume` and `kausal compare`: every run assembled as a RunSpec
// and run through run() (monitor/run/run.hpp), for every model kind alike.
#include "monitor/cli/options.hpp"
#include "monitor/run/resume.hpp"

namespace kausal {

constexpr const char* kExitCodes =
    "Exit codes: 0 ok, 1 simulation failed (or digests differ in compare), 2 bad input "
    "(scenario, command line), 3 peer or transport failure, 4 interface version mismatch, "
    "130 interrupted.";

// One method on the scenario; the summary on stdout. Returns the run's exit code.
int run_command(const Options& o);
// The run in o.resume continued from its checkpoint (`request`: what the command line gave
// that could change what is computed).
int resume_command(const Options& o, const ResumeRequest& request);
// kausal run --replay DIR: the run recorded in DIR again, from its scenario copy and
// checkpoint.json's setup (the method, guarantee and layout unless given anew), with every
// injection of DIR/injections.jsonl at its step; as fast as possible unless --realtime.
// Exit 0 if the digest equals DIR's, 1 if not; the run's own code if it failed otherwise.
int replay_command(Options o);
// Every method (and layout) on the scenario; the table, comparison.json and report.html.
int compare_command(const Options& o);

}  // namespace kausal
