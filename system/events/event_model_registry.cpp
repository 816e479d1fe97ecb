#include "system/events/event_model_registry.hpp"

#include <cmath>
#include <cstdio>

#include "system/events/floor.hpp"
#include "system/events/level_switch.hpp"
#include "system/events/phold.hpp"
#include "system/events/queueing_network.hpp"
#include "system/events/repair_crew.hpp"
#include "system/events/three_components.hpp"

namespace kausal::des {

namespace {

std::vector<EventModelType> make_types() {
  std::vector<EventModelType> types;
  types.push_back(EventModelType{
      "phold",
      "PHOLD, the standard benchmark of parallel discrete-event simulation: each processed "
      "event schedules one more, after lookahead + Exp(mean - lookahead), to a random "
      "component with probability remote, else to itself",
      {
          {"components", 64, true, "number of components", 4096},
          {"population", 1, true, "initial events per component", 1000},
          {"remote", 0.1, false, "probability that an event goes to a random component"},
          {"mean", 1.0, false, "mean delay of an event (lookahead included)"},
          {"lookahead", 1.0, false, "smallest delay of an event, the lookahead of every link"},
          {"seed", 1, true, "seed of the components' random streams", 9007199254740992.0},
      },
      [](const std::map<std::string, double>& v) -> std::unique_ptr<EventModel> {
        PholdParameters p;
        p.components = static_cast<std::uint32_t>(v.at("components"));
        p.population = static_cast<std::uint32_t>(v.at("population"));
        p.remote = v.at("remote");
        p.mean = v.at("mean");
        p.lookahead = v.at("lookahead");
        p.seed = static_cast<std::uint64_t>(v.at("seed"));
        return std::make_unique<Phold>(p);
      }});
  types.push_back(EventModelType{
      "queueing-network",
      "a closed queueing network: FIFO single servers, jobs * servers jobs circulating; a "
      "service takes minimum_service + Exp(mean_service - minimum_service), then the job moves "
      "on (transfer time minimum_service) to the same server with probability stay, else to "
      "another (ring = 1: the next one; ring = 0: a random other one)",
      {
          {"servers", 16, true, "number of servers (components)", 4096},
          {"jobs", 2, true, "jobs per server at time 0", 1000},
          {"mean_service", 1.0, false, "mean service time"},
          {"minimum_service", 0.5, false, "smallest service time, the transfer time and lookahead"},
          {"stay", 0.25, false, "probability that a job returns to the same server"},
          {"ring", 0, true, "1: a job that moves on goes to the next server; 0: to a random other",
           1},
          {"seed", 1, true, "seed of the servers' random streams", 9007199254740992.0},
      },
      [](const std::map<std::string, double>& v) -> std::unique_ptr<EventModel> {
        QueueingNetworkParameters p;
        p.servers = static_cast<std::uint32_t>(v.at("servers"));
        p.jobs = static_cast<std::uint32_t>(v.at("jobs"));
        p.mean_service = v.at("mean_service");
        p.minimum_service = v.at("minimum_service");
        p.stay = v.at("stay");
        p.routing = v.at("ring") == 1 ? QueueRouting::ring : QueueRouting::random_other;
        p.seed = static_cast<std::uint64_t>(v.at("seed"));
        return std::make_unique<QueueingNetwork>(p);
      }});
  const ThreeComponentsParameters d;
  types.push_back(EventModelType{
      "three-components",
      "three components in the thesis' terms: K1 generates jobs for K2 (every n-th directly "
      "for K3), K2 serves them and passes them to K3, K3 acknowledges each to K1, which adapts "
      "its rate to the latency; links K1→K2, K2→K3, K3→K1, K1→K3, each with its lookahead",
      {
          {"lookahead_12", d.lookahead_12, false, "K1 → K2: transfer time of a job"},
          {"lookahead_23", d.lookahead_23, false, "K2 → K3: K2's minimum service time"},
          {"lookahead_31", d.lookahead_31, false, "K3 → K1: transfer time of an acknowledgement"},
          {"lookahead_13", d.lookahead_13, false, "K1 → K3: transfer time of a direct job"},
          {"initial_interval", d.initial_interval, false, "K1's mean gap between jobs at first"},
          {"min_interval", d.min_interval, false, "smallest adapted gap"},
          {"max_interval", d.max_interval, false, "largest adapted gap"},
          {"service_mean", d.service_mean, false, "K2's mean service time"},
          {"direct_every", static_cast<double>(d.direct_every), true,
           "every n-th job goes to K3 directly", 1e9},
          {"target_latency", d.target_latency, false, "the latency K1 steers towards"},
          {"gain", d.gain, false, "relative change of K1's gap per acknowledgement"},
          {"seed", 1, true, "seed of the components' random streams", 9007199254740992.0},
      },
      [](const std::map<std::string, double>& v) -> std::unique_ptr<EventModel> {
        ThreeComponentsParameters p;
        p.lookahead_12 = v.at("lookahead_12");
        p.lookahead_23 = v.at("lookahead_23");
        p.lookahead_31 = v.at("lookahead_31");
        p.lookahead_13 = v.at("lookahead_13");
        p.initial_interval = v.at("initial_interval");
        p.min_interval = v.at("min_interval");
        p.max_interval = v.at("max_interval");
        p.service_mean = v.at("service_mean");
        p.direct_every = static_cast<std::uint32_t>(v.at("direct_every"));
        p.target_latency = v.at("target_latency");
        p.gain = v.at("gain");
        p.seed = static_cast<std::uint64_t>(v.at("seed"));
        return std::make_unique<ThreeComponents>(p);
      }});
  const LevelSwitchParameters s;
  types.push_back(EventModelType{
      "level-switch",
      "a two-point controller with hysteresis beside continuous partitions: a partition's "
      "crossings of the band's upper edge (event kind high) close the valve, of its lower edge "
      "(low) open it; the command goes out on the port 'valve' after the switching delay",
      {
          {"open_command", s.open_command, false, "what the valve port carries when open"},
          {"closed_command", s.closed_command, false, "what it carries when closed"},
          {"initially_open", 1, true, "1: the valve is open at time 0; 0: closed", 1},
          {"delay", s.delay, false, "s from a crossing to the command"},
      },
      [](const std::map<std::string, double>& v) -> std::unique_ptr<EventModel> {
        LevelSwitchParameters p;
        p.open_command = v.at("open_command");
        p.closed_command = v.at("closed_command");
        p.initially_open = v.at("initially_open") == 1;
        p.delay = v.at("delay");
        return std::make_unique<LevelSwitch>(p);
      }});
  types.push_back(EventModelType{
      "floor",
      "the floor under a falling ball beside a continuous partition: each impact (event kind "
      "impact, carrying the ball's velocity) is counted and answered on the port 'rebound' "
      "with the rebound velocity e·|v|",
      {{"e", 0.8, false, "coefficient of restitution", 1}},
      [](const std::map<std::string, double>& v) -> std::unique_ptr<EventModel> {
        return std::make_unique<Floor>(v.at("e"));
      }});
  const RepairCrewParameters crew;
  types.push_back(EventModelType{
      "repair-crew",
      "repair crews for N machines beside continuous partitions: a machine's failure (event "
      "kind failure-K, its wear crossing its limit) stops it (port run-K, 0); a crew repairs "
      "one machine at a time in the order they reached it, min_repair + Exp(mean_repair - "
      "min_repair) each, then resets its wear (port reset-K) and runs it again (run-K, 1); with "
      "several crews (crew-1 ... crew-C) one with a machine waiting already hands a new "
      "failure to the next, which gets it after `handover` seconds",
      {
          {"machines", static_cast<double>(crew.machines), true, "number of machines", 1000},
          {"crews", static_cast<double>(crew.crews), true,
           "number of crews (components crew-1 ... crew-C; one: 'crew')", 1000},
          {"handover", crew.handover, false, "time to hand a machine to the next crew, s"},
          {"reset_at_start", 0, true,
           "1: reset the wear when the repair starts (the machine taken apart), 0: when it ends",
           1},
          {"mean_repair", crew.mean_repair, false, "mean repair time, s"},
          {"min_repair", crew.min_repair, false, "shortest repair time, s"},
          {"seed", 1, true, "seed of the crews' random streams", 9007199254740992.0},
      },
      [](const std::map<std::string, double>& v) -> std::unique_ptr<EventModel> {
        RepairCrewParameters p;
        p.machines = static_cast<std::uint32_t>(v.at("machines"));
        p.crews = static_cast<std::uint32_t>(v.at("crews"));
        p.handover = v.at("handover");
        p.reset_at_start = v.at("reset_at_start") != 0;
        p.mean_repair = v.at("mean_repair");
        p.min_repair = v.at("min_repair");
        p.seed = static_cast<std::uint64_t>(v.at("seed"));
        return std::make_unique<RepairCrew>(p);
      }});
  return types;
}

}  // namespace

std::string parameter_problem(const EventParameter& p, double value) {
  if (!std::isfinite(value)) return "must be a finite number";
  if (p.whole && (value != std::floor(value) || value < 0))
    return "must be a whole number, 0 or more";
  if (value > p.most) {
    // A whole bound as the integer it is; one beyond every integer type (1e300) as a double.
    char most[32];
    if (p.most < 9e18 && p.most == std::floor(p.most))
      std::snprintf(most, sizeof most, "%lld", static_cast<long long>(p.most));
    else
      std::snprintf(most, sizeof most, "%g", p.most);
    return std::string("must be at most ") + most;
  }
  return "";
}

const std::vector<EventModelType>& event_model_types() {
  static const std::vector<EventModelType> types = make_types();
  return types;
}

const EventModelType* event_model_type(const std::string& name) {
  for (const auto& type : event_model_types())
    if (type.name == name) return &type;
  return nullptr;
}

}  // namespace kausal::des
