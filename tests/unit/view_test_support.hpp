#pragma once
// A run directory written by hand for the view's tests (summary.json, trace.json,
// trajectory.csv in the formats of monitor/record/summary.cpp, trace_writer.cpp,
// trajectory_recorder; the trace with call envelopes and a flow, which the timelines skip).
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/temp_dir.hpp"

namespace kausal::testing {

inline const char* two_pendulum_summary() {
  return R"({"method": "conservative", "guarantee": "lookahead", "scenario": "pair",
  "h": 0.001, "wall_s": 1.5, "status": "completed",
  "geometry": [{"pivot_x": 0.0, "length": 1.0, "radius": 0.1},
               {"pivot_x": 0.2, "length": 0.5, "radius": 0.05}],
  "components": [{"name": "monitor", "role": "monitor"},
                 {"name": "integrator-1", "role": "integrator"}]})";
}

inline const char* two_pendulum_trace() {
  return R"({"displayTimeUnit":"ms","otherData":{},"traceEvents":[
{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"kausal"}},
{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"monitor","role":"monitor"}},
{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"integrator-1","role":"integrator"}},
{"ph":"X","name":"grant","cat":"call","pid":1,"tid":1,"ts":0.000,"dur":900000.000,"args":{"step":1}},
{"ph":"X","name":"sweep","cat":"busy","pid":1,"tid":1,"ts":0.000,"dur":250000.000},
{"ph":"X","name":"advance","cat":"call","pid":1,"tid":2,"ts":500000.000,"dur":300000.000,"args":{"step":1,"epoch":0}},
{"ph":"s","id":1,"name":"advance","cat":"flow","pid":1,"tid":1,"ts":500000.000},
{"ph":"f","bp":"e","id":1,"name":"advance","cat":"flow","pid":1,"tid":2,"ts":650000.000},
{"ph":"X","name":"advance","cat":"busy","pid":1,"tid":2,"ts":500000.000,"dur":250000.000,"args":{"step":1,"epoch":0}},
{"ph":"X","name":"rollback","cat":"rollback","pid":1,"tid":2,"ts":1000000.000,"dur":100000.500}
]})";
}

inline const char* two_pendulum_trajectory() {
  return "t,phi_1,omega_1,phi_2,omega_2\n"
         "0,0.5,0,0,0\n"
         "0.01,0.49,-0.1,0.01,0.2\n"
         "0.02,0.48,-0.2,0.02,0.3\n";
}

// A run directory: its summary, the two-pendulum trace, its trajectory.
inline void write_run(const TempDir& dir, const char* summary, const char* trajectory) {
  dir.write("summary.json", summary);
  dir.write("trace.json", two_pendulum_trace());
  dir.write("trajectory.csv", trajectory);
}

inline void write_two_pendulum_run(const TempDir& dir) {
  write_run(dir, two_pendulum_summary(), two_pendulum_trajectory());
}

// A partitioned model's run (monitor/record/partitioned_recorder.cpp writes trajectory.csv): two
// partitions, "tanks" with subsystems "upper" and "up" (a prefix of the other's name) and
// "pipe" with "lower"; a tick of 0.5 s.
inline const char* two_partition_summary() {
  return R"({"method": "optimistic", "model": "partitioned", "scenario": "tanks",
  "h": 0.5, "wall_s": 1.5, "status": "completed", "geometry": [],
  "partitions": [{"name": "tanks", "subsystems": ["up", "upper"]},
                 {"name": "pipe", "subsystems": ["lower"]}],
  "components": [{"name": "monitor", "role": "monitor"},
                 {"name": "integrator-1", "role": "integrator"}]})";
}

inline const char* two_partition_trajectory() {
  return "t,upper.level,up.x,lower.level\n"
         "0,0,1,5\n"
         "10,0.5,2,4\n"
         "20,1,1,3\n";
}

inline void write_two_partition_run(const TempDir& dir) {
  write_run(dir, two_partition_summary(), two_partition_trajectory());
}

}  // namespace kausal::testing
