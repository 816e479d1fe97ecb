// The Integrator of one partition: hold polynomials, multirate sampling, prediction with
// rollback, tolerance, zero crossings, and the checks on samples that arrive from outside.
// The models here are small test subsystems whose exact answers are known in closed form.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <new>

#include "common/errors.hpp"
#include "integrator/input_channels.hpp"
#include "integrator/integrator.hpp"
#include "integrator/local_model_link.hpp"
#include "integrator/worker.hpp"
#include "system/system_core.hpp"

namespace kausal {
namespace {

// No state worth integrating: its output is a polynomial in t (a known input signal).
class PolynomialSource final : public Model {
 public:
  explicit PolynomialSource(int degree) : degree_(degree) {}
  const Signature& signature() const override { return signature_; }
  void derivative(double, VectorView, VectorView, VectorOut dx) const override { dx[0] = 0; }
  void output(double t, VectorView, VectorOut y) const override { y[0] = std::pow(t, degree_); }

 private:
  int degree_;
  Signature signature_{{"unused"}, {}, {"y"}};
};

// z' = u: integrates its input.
class Accumulator final : public Model {
 public:
  const Signature& signature() const override { return signature_; }
  void derivative(double, VectorView, VectorView u, VectorOut dx) const override { dx[0] = u[0]; }

 private:
  Signature signature_{{"z"}, {"u"}, {"z"}};
};

// z' = u for a model that steps itself (an FMU's co-simulation): the step integrates the
// input's Taylor polynomial at t (Model::step's u and du) exactly, and keeps how many
// derivatives it was given.
class SteppingAccumulator final : public Model {
 public:
  const Signature& signature() const override { return signature_; }
  void derivative(double, VectorView, VectorView, VectorOut) const override {
    throw ModelError("stepping", "steps itself");
  }
  bool steps_itself() const override { return true; }
  void step(double, double h, VectorView u, MatrixView du, VectorOut x) const override {
    double power = h, factorial = 1;
    x[0] += u[0] * h;
    for (Eigen::Index k = 0; k < du.cols(); ++k) {
      power *= h;
      factorial *= static_cast<double>(k + 2);
      x[0] += du(0, k) * power / factorial;
    }
    orders = du.cols();
  }
  mutable Eigen::Index orders = -1;

 private:
  Signature signature_{{"z"}, {"u"}, {"z"}};
};

// A ball falling onto the floor h = 0 and bouncing with restitution e.
class Ball final : public Model {
 public:
  const Signature& signature() const override { return signature_; }
  Vector initial_state() const override { return Vector::Unit(2, 0); }  // h = 1 m, at rest
  void derivative(double, VectorView x, VectorView, VectorOut dx) const override {
    dx[0] = x[1];
    dx[1] = -9.81;
  }
  std::size_t indicator_count() const override { return 1; }
  void indicators(double, VectorView x, VectorView, VectorOut g) const override { g[0] = x[0]; }
  void on_crossing(std::size_t, double, VectorOut x) const override {
    x[0] = std::abs(x[0]);
    x[1] = 0.8 * std::abs(x[1]);
  }

 private:
  Signature signature_{{"h", "v"}, {}, {"h", "v"}};
};

// One partition with its System in this process.
struct Part {
  Part(std::unique_ptr<Model> model, IntegratorConfig config) : system(config.name) {
    system.configure(std::move(model));
    config.x0 = system.model().initial_state();
    config.output_size = system.model().output_size();
    config.indicator_count = system.model().indicator_count();
    integrator = std::make_unique<Integrator>(config, link);
  }
  SystemCore system;
  LocalModelLink link{system};
  std::unique_ptr<Integrator> integrator;
};

IntegratorConfig config_for(const std::string& name, std::uint64_t ticks_per_step,
                            std::uint64_t steps) {
  IntegratorConfig c;
  c.name = name;
  c.method = OdeMethod::euler;
  c.tick = 0.01;
  c.ticks_per_step = ticks_per_step;
  c.last_step = steps;
  return c;
}

// Runs a source → accumulator pair to the end like the sequential driver: step what can be
// stepped, hand every final source output (at the sample period) to the accumulator.
struct Pair {
  Pair(int degree, int hold, std::uint64_t source_ticks, std::uint64_t sink_ticks,
       std::uint64_t ticks, bool speculate = false, double tolerance = 0,
       std::unique_ptr<Model> sink_model = std::make_unique<Accumulator>()) {
    const std::uint64_t period = std::max(source_ticks, sink_ticks);
    source = std::make_unique<Part>(std::make_unique<PolynomialSource>(degree),
                                    config_for("source", source_ticks, ticks / source_ticks));
    IntegratorConfig c = config_for("sink", sink_ticks, ticks / sink_ticks);
    c.channels.push_back({"source.y -> sink.u", hold, period, InputSource::samples, {}});
    c.speculate = speculate;
    c.tolerance = tolerance;
    if (sink_model->steps_itself()) c.method = OdeMethod::co_simulation;
    sink = std::make_unique<Part>(std::move(sink_model), c);
    steps_per_sample = period / source_ticks;
  }
  // Source outputs become samples; returns how many were handed over.
  std::size_t forward() {
    const StateBatch b = source->integrator->take_final();
    std::size_t n = 0;
    for (std::size_t k = 0; k < b.count(); ++k) {
      const std::uint64_t step = b.first_step + k;
      if (step % steps_per_sample != 0) continue;
      sink->integrator->provide({0, step / steps_per_sample, b.outputs[k]});
      ++n;
    }
    return n;
  }
  double run() {
    while (!sink->integrator->all_published()) {
      while (source->integrator->can_step()) source->integrator->step_once();
      forward();
      while (sink->integrator->can_step()) sink->integrator->step_once();
      const StateBatch b = sink->integrator->take_final();
      if (b.count()) last = b.states.back();
    }
    return last;
  }
  std::unique_ptr<Part> source, sink;
  std::uint64_t steps_per_sample = 1;
  double last = 0;
};

// Euler's sum for z' = f(t): h Σ f(t_n) over the consumer's steps.
double euler_sum(double h, std::uint64_t steps, int degree) {
  double z = 0;
  for (std::uint64_t n = 0; n < steps; ++n)
    z = z + h * std::pow(static_cast<double>(n) * h, degree);
  return z;
}

TEST(Integrator, HoldOneIsExactForALinearInputAcrossASlowerProducer) {
  // Producer every 3 ticks, consumer every tick: the consumer sees each sample for three
  // steps. Order 1 extrapolates a line exactly; order 0 lags by up to a sample period.
  // Start-up: over the first sample period only sample 0 exists, so the order drops to 0
  // and steps 1 and 2 see u = 0 instead of t1 = 0.01 and t2 = 0.02.
  const double exact = euler_sum(0.01, 300, 1) - 0.01 * (0.01 + 0.02);
  EXPECT_NEAR(Pair(1, 1, 3, 1, 300).run(), exact, 1e-12);
  EXPECT_NEAR(Pair(1, 2, 3, 1, 300).run(), exact, 1e-12);
  const double held = Pair(1, 0, 3, 1, 300).run();
  EXPECT_LT(held, exact - 0.005);  // one period (0.03 s) of lag on two of three steps
}

TEST(Integrator, HoldTwoIsExactForAQuadraticInput) {
  // Start-up: order 0 over the first period (u = 0 at t = 0.01, 0.02), order 1 over the
  // second (the line through (0, 0) and (0.03, 0.0009): 0.0012 and 0.0015 at t = 0.04, 0.05
  // instead of 0.0016 and 0.0025); exact from the third period on.
  const double startup = 0.01 * (0.0001 + 0.0004) + 0.01 * (0.0004 + 0.0010);
  const double exact = euler_sum(0.01, 300, 2) - startup;
  EXPECT_NEAR(Pair(2, 2, 3, 1, 300).run(), exact, 1e-10);
  EXPECT_GT(std::abs(Pair(2, 1, 3, 1, 300).run() - exact), 1e-6);
}

TEST(Integrator, AModelThatStepsItselfGetsItsInputsDerivativesOverTheStep) {
  // y = t² sampled every step, hold 2: the step's input is the parabola through the last
  // three samples, exact from the third step on; the model integrates it exactly. Start-up:
  // step 0 holds u = 0 (∫₀ʰ t² = h³/3 missed), step 1 extrapolates the line through (0, 0)
  // and (h, h²) (∫ₕ²ʰ h t = 3h³/2 against 7h³/3).
  const double h = 0.01, end = 3.0;
  const double exact = end * end * end / 3 - h * h * h * (1.0 / 3 + 7.0 / 3 - 1.5);
  for (const bool speculate : {false, true}) {
    SCOPED_TRACE(speculate ? "speculating" : "conservative");
    auto model = std::make_unique<SteppingAccumulator>();
    const SteppingAccumulator& sink = *model;
    Pair pair(2, 2, 1, 1, 300, speculate, 0, std::move(model));
    EXPECT_NEAR(pair.run(), exact, 1e-12);
    EXPECT_EQ(sink.orders, 2);  // the hold order: derivatives 1 and 2
  }
  // Held (hold 0): no derivatives, the left Riemann sum.
  auto model = std::make_unique<SteppingAccumulator>();
  const SteppingAccumulator& sink = *model;
  Pair held(2, 0, 1, 1, 300, false, 0, std::move(model));
  EXPECT_NEAR(held.run(), euler_sum(h, 300, 2), 1e-12);
  EXPECT_EQ(sink.orders, 0);
}

// Speculating with a tolerance: a prediction within it stands, unless the channel is exact
// (a lane of a coupled String), where only the same bits do.
TEST(InputChannels, AnExactChannelKeepsOnlyAPredictionOfTheSameBits) {
  for (const bool exact : {false, true}) {
    InputChannels channels("c", {{"a -> b", 0, 1, InputSource::samples, {}, exact}}, {0, 0.1, 1},
                           true, 1e300);
    channels.provide({0, 0, 5.0});
    ASSERT_TRUE(channels.ready_for(2));
    channels.bind(2);  // samples 1 and 2 predicted: held at 5
    EXPECT_EQ(channels.provide({0, 1, 5.0}), std::nullopt) << exact;  // the same bits
    const auto rollback = channels.provide({0, 2, 6.0});
    EXPECT_EQ(rollback.has_value(), exact) << exact;
  }
}

TEST(InputChannels, DerivativesAreThoseOfTheHoldPolynomialAndOfPredictions) {
  // Samples of 1 + 2t + 3t² every 0.1 s; at t = 0.25 within the step bound at sample 2, hold
  // 2 (exact for a parabola): u' = 2 + 6t, u'' = 6.
  InputChannels channels("c", {{"y -> u", 2, 1, InputSource::samples, {}}}, {0, 0.1, 1}, false, 0);
  for (std::uint64_t j = 0; j < 3; ++j) {
    const double t = 0.1 * static_cast<double>(j);
    channels.provide({0, j, 1 + 2 * t + 3 * t * t});
  }
  EXPECT_EQ(channels.derivative_order(), 2);
  channels.bind(2);
  Matrix du(1, 2);
  channels.input_derivatives_at(0.25, du);
  EXPECT_NEAR(du(0, 0), 2 + 6 * 0.25, 1e-9);
  EXPECT_NEAR(du(0, 1), 6, 1e-9);
  // A cubic's derivatives, in its scaled coordinate.
  Prediction p;
  p.c = {1, 2, 3, 4};  // s = (t − 1) / 0.5
  p.t_ref = 1;
  p.scale = 0.5;
  p.order = 3;
  const double t = 1.3, s = (t - 1) / 0.5;
  EXPECT_NEAR(p.derivative(t, 1), p.slope(t), 1e-12);
  EXPECT_NEAR(p.derivative(t, 2), (6 + 24 * s) / 0.25, 1e-12);
  EXPECT_NEAR(p.derivative(t, 3), 24 / 0.125, 1e-12);
  EXPECT_EQ(p.derivative(t, 4), 0);
}

TEST(Integrator, AFasterProducerIsSampledAtTheConsumersSteps) {
  // Consumer every 2 ticks, producer every tick: sample j is the producer's step 2j.
  Pair pair(1, 0, 1, 2, 300);
  EXPECT_NEAR(pair.run(), euler_sum(0.02, 150, 1), 1e-12);
}

TEST(Integrator, ConservativeWaitsForItsInputs) {
  Pair pair(1, 0, 1, 1, 10);
  EXPECT_FALSE(pair.sink->integrator->can_step());  // sample 0 not there
  pair.source->integrator->step_once();
  pair.forward();
  EXPECT_TRUE(pair.sink->integrator->can_step());
  pair.sink->integrator->step_once();
  EXPECT_TRUE(pair.sink->integrator->can_step());  // the source's step 1 was final too
  pair.sink->integrator->step_once();
  EXPECT_FALSE(pair.sink->integrator->can_step());  // sample 2 is still missing
}

// Steps the speculating consumer as far as its window lets it before any later sample
// arrives, then delivers the samples: wrong predictions must roll it back.
double run_speculating(Pair& pair, IntegratorStats& stats) {
  pair.source->integrator->step_once();
  pair.forward();  // sample 0: something to predict from
  while (!pair.sink->integrator->all_published()) {
    while (pair.sink->integrator->can_step()) pair.sink->integrator->step_once();
    while (pair.source->integrator->can_step()) pair.source->integrator->step_once();
    pair.forward();
    const StateBatch b = pair.sink->integrator->take_final();
    if (b.count()) pair.last = b.states.back();
  }
  stats = pair.sink->integrator->stats();
  return pair.last;
}

TEST(Integrator, WrongPredictionsRollBackToTheConservativeBits) {
  const double conservative = Pair(1, 0, 1, 1, 200).run();
  Pair optimistic(1, 0, 1, 1, 200, true, 0.0);
  IntegratorStats stats;
  const double result = run_speculating(optimistic, stats);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(result), std::bit_cast<std::uint64_t>(conservative));
  EXPECT_GT(stats.rollbacks, 0u);  // a held ramp predicts a constant: wrong every time
  EXPECT_GT(stats.rolled_back_steps, 0u);
  EXPECT_GT(stats.steps_computed, 200u);
}

TEST(Integrator, ExactPredictionsNeedNoRollback) {
  // A line predicted by a line: every prediction equals its sample to the last bit or, where
  // rounding differs, is refused and recomputed, and the result is the conservative one.
  const double conservative = Pair(1, 1, 1, 1, 200).run();
  Pair optimistic(1, 1, 1, 1, 200, true, 0.0);
  IntegratorStats stats;
  EXPECT_EQ(run_speculating(optimistic, stats), conservative);
  EXPECT_GT(stats.accepted_predictions, 0u);
}

TEST(Integrator, ATolerancekeepsPredictionsWithinItAndBoundsTheError) {
  const double conservative = Pair(1, 0, 1, 1, 200).run();
  const double tolerance = 0.05;  // more than one step of the ramp (0.01)
  Pair optimistic(1, 0, 1, 1, 200, true, tolerance);
  IntegratorStats stats;
  const double result = run_speculating(optimistic, stats);
  EXPECT_GT(stats.accepted_predictions, 0u);
  EXPECT_LE(stats.max_accepted_error, tolerance);
  // Each step's input is off by at most the tolerance: z is off by at most T · tolerance.
  EXPECT_LE(std::abs(result - conservative), 2.0 * tolerance);
  EXPECT_NE(result, conservative);
}

TEST(Integrator, TheWindowBoundsSpeculation) {
  Pair pair(1, 0, 1, 1, 200, true, 0.0);
  pair.sink->integrator->run_on_its_own(5);  // (without a worker: the window alone)
  pair.sink->integrator->provide({0, 0, 0.0});
  int steps = 0;
  while (pair.sink->integrator->can_step()) {
    pair.sink->integrator->step_once();
    ++steps;
  }
  EXPECT_EQ(steps, 6);  // step 0 on the real sample, then five on predictions, then it waits
}

TEST(Integrator, SamplesFromOutsideAreChecked) {
  Pair pair(1, 0, 1, 1, 10);
  EXPECT_THROW(pair.sink->integrator->provide({0, 1, 0.0}), ProtocolError);  // 0 expected
  EXPECT_THROW(pair.sink->integrator->provide({3, 0, 0.0}), ProtocolError);  // no channel 3
  EXPECT_THROW(pair.sink->integrator->provide({0, 0, NAN}), ModelError);
  EXPECT_NO_THROW(pair.sink->integrator->provide({0, 0, 1.0}));
}

TEST(Integrator, AZeroCrossingFiresItsHandlerAtTheStepEnd) {
  IntegratorConfig c = config_for("ball", 1, 400);  // 4 s at 10 ms
  Part ball(std::make_unique<Ball>(), c);
  double lowest = 1;
  while (!ball.integrator->all_published()) {
    ball.integrator->step_once();
    const StateBatch b = ball.integrator->take_final();
    for (std::size_t k = 0; k < b.count(); ++k) lowest = std::min(lowest, b.states[2 * k]);
  }
  const IntegratorStats stats = ball.integrator->stats();
  EXPECT_GE(stats.events, 3u);  // bounces: 0.45 s to the floor, then shorter and shorter
  EXPECT_GE(lowest, 0.0);       // the handler reflects the ball above the floor
  EXPECT_LT(ball.integrator->step(), 401u);
}

// A model that keeps a hidden state the state list cannot see: every evaluation drifts.
class HiddenState final : public Model {
 public:
  const Signature& signature() const override { return signature_; }
  void derivative(double, VectorView x, VectorView, VectorOut dx) const override {
    dx[0] = -x[0] + 1e-9 * static_cast<double>(++calls_);
  }

 private:
  Signature signature_{{"x"}, {}, {"x"}};
  mutable std::uint64_t calls_ = 0;
};

// The rollback check steps, restores state and multistep memory from the state list, steps
// again and requires the same bits: AB3 passes (its memory is saved with the state) at
// twice the f evaluations, a model that hides state is caught at its first step.
TEST(Integrator, TheRollbackCheckRestepsFromTheStateListAndCatchesHiddenState) {
  auto run = [](std::unique_ptr<Model> model, bool check) {
    IntegratorConfig c = config_for("ball", 1, 300);
    c.method = OdeMethod::ab3;
    c.rollback_check = check;
    Part part(std::move(model), c);
    std::vector<double> states;
    while (!part.integrator->all_published()) {
      part.integrator->step_once();
      const StateBatch b = part.integrator->take_final();
      states.insert(states.end(), b.states.begin(), b.states.end());
    }
    return std::pair{states, part.integrator->stats().derivative_calls};
  };
  const auto [plain, plain_calls] = run(std::make_unique<Ball>(), false);
  const auto [checked, checked_calls] = run(std::make_unique<Ball>(), true);
  EXPECT_EQ(checked, plain);
  EXPECT_EQ(checked_calls, 2 * plain_calls);
  try {
    run(std::make_unique<HiddenState>(), true);
    FAIL() << "hidden state went unnoticed";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.component(), "ball");
    EXPECT_NE(std::string(e.what()).find("rollback check: re-stepping from step 0"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(run(std::make_unique<HiddenState>(), false));
}

// A model whose every evaluation fails with something that is no kausal::Error: an
// allocation that could not be made.
class OutOfMemory final : public Model {
 public:
  const Signature& signature() const override { return signature_; }
  void derivative(double, VectorView, VectorView, VectorOut) const override {
    throw std::bad_alloc();
  }

 private:
  Signature signature_{{"x"}, {}, {"x"}};
};

// Remembers the failure the worker reports.
class FailureSink final : public BatchSink {
 public:
  void deliver(const StateBatch&) override {}
  void fail(std::exception_ptr error, std::uint32_t, std::uint64_t) override {
    std::lock_guard lock(mutex_);
    failure_ = error;
    cv_.notify_all();
  }
  std::exception_ptr wait_for_failure() {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, std::chrono::seconds(5), [&] { return failure_ != nullptr; });
    return failure_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::exception_ptr failure_;
};

// Whatever a step throws stops the worker and is reported as the partition's failure; it
// never escapes the thread (which would end the whole process).
TEST(Worker, AnyExceptionOfAStepIsReportedNeverEscapes) {
  Part part(std::make_unique<OutOfMemory>(), config_for("integrator-x", 1, 10));
  FailureSink sink;
  std::mutex mutex;
  Worker worker(*part.integrator, mutex, sink, 4, 4);
  const std::exception_ptr failure = sink.wait_for_failure();
  ASSERT_TRUE(failure) << "the worker reported nothing";
  EXPECT_THROW(std::rethrow_exception(failure), std::bad_alloc);
  EXPECT_EQ(worker.exclusive([&] { return part.integrator->stats().steps_computed; }), 0u);
}

// z' = u, whose derivative waits at a gate the test opens: a step in progress for as long
// as the test needs.
struct Gate {
  std::mutex mutex;
  std::condition_variable cv;
  bool open = false;
  bool entered = false;
};
class GatedAccumulator final : public Model {
 public:
  explicit GatedAccumulator(Gate& gate) : gate_(gate) {}
  const Signature& signature() const override { return signature_; }
  void derivative(double, VectorView, VectorView u, VectorOut dx) const override {
    std::unique_lock lock(gate_.mutex);
    gate_.entered = true;
    gate_.cv.notify_all();
    gate_.cv.wait(lock, [&] { return gate_.open; });
    dx[0] = u[0];
  }

 private:
  Gate& gate_;
  Signature signature_{{"z"}, {"u"}, {"z"}};
};

// Collects what the worker ships.
class CollectingSink final : public BatchSink {
 public:
  void deliver(const StateBatch& b) override {
    std::lock_guard lock(mutex_);
    for (std::size_t k = 0; k < b.count(); ++k) last_ = {b.first_step + k, b.state(k)[0]};
    cv_.notify_all();
  }
  void fail(std::exception_ptr, std::uint32_t, std::uint64_t) override {}
  // The last shipped step and its state, once step `n` has been shipped (5 s at most).
  std::pair<std::uint64_t, double> wait_for_step(std::uint64_t n) {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, std::chrono::seconds(5), [&] { return last_.first >= n; });
    return last_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::pair<std::uint64_t, double> last_{0, 0};
};

// The direct data path: a producer providing a started consumer must not wait for the step
// the consumer is in (it would stop computing its own), and what it provides is checked at
// once, all or nothing.
TEST(Worker, SamplesAreCheckedAndQueuedWithoutWaitingForTheStepInProgress) {
  Gate gate;
  IntegratorConfig c = config_for("integrator-sink", 1, 10);
  c.channels.push_back({"source.y -> sink.u", 0, 1, InputSource::samples, {}});
  Part part(std::make_unique<GatedAccumulator>(gate), c);
  part.integrator->provide({0, 0, 1.0});  // before start, straight in
  CollectingSink sink;
  std::mutex mutex;
  Worker worker(*part.integrator, mutex, sink, 1, 4);
  {
    std::unique_lock lock(gate.mutex);
    ASSERT_TRUE(gate.cv.wait_for(lock, std::chrono::seconds(5), [&] { return gate.entered; }));
  }
  // Step 1 is in progress and holds the Integrator's lock.
  auto queued = std::async(std::launch::async, [&] { worker.provide({{0, 1, 2.0}}); });
  ASSERT_EQ(queued.wait_for(std::chrono::seconds(5)), std::future_status::ready)
      << "provide waited for the step in progress";
  queued.get();
  EXPECT_THROW(worker.provide({{0, 1, 2.0}}), ProtocolError);  // sample 1 again
  EXPECT_THROW(worker.provide({{3, 2, 1.0}}), ProtocolError);  // no channel 3
  EXPECT_THROW(worker.provide({{0, 2, std::nan("")}}), ModelError);
  EXPECT_THROW(worker.provide({{0, 2, 3.0}, {0, 7, 1.0}}), ProtocolError);  // a gap
  worker.provide({{0, 2, 3.0}});  // the refused call queued nothing: 2 comes next still
  {
    std::lock_guard lock(gate.mutex);
    gate.open = true;
  }
  gate.cv.notify_all();
  std::vector<ChannelSample> rest;
  for (std::uint64_t k = 3; k < 10; ++k) rest.push_back({0, k, static_cast<double>(k + 1)});
  worker.provide(rest);
  const auto [step, z] = sink.wait_for_step(10);
  ASSERT_EQ(step, 10u);
  double expected = 0;  // Euler on z' = u, u held: z_10 = Σ 0.01 · (k + 1)
  for (int k = 0; k < 10; ++k) expected += 0.01 * (k + 1);
  EXPECT_NEAR(z, expected, 1e-12);
}

}  // namespace
}  // namespace kausal
