// The reference solvers (tests/reference) against numbers that do not come from kausal:
// docs/benchmarks.md B's exact step response table and each other on docs/benchmarks.md E.
#include <gtest/gtest.h>

#include <Eigen/LU>
#include <cmath>

#include "reference/cvode_reference.hpp"
#include "reference/exact_linear_response.hpp"

namespace kausal::reference {
namespace {

// Models.md B, from the documented A and B (independent of the models).
const Matrix b_matrix{{-40, 20}, {10, -50010}};
const Matrix b_input{{20}, {0}};
const Vector b_step{{100.0}};

struct TableRow {
  double t_ms, p1, p2;
};
// The table of docs/benchmarks.md B as printed: p1 to 6 decimals, p2 to 8.
const std::vector<TableRow> b_table{{1, 1.960532, 0.00038434},    {10, 16.484304, 0.00329084},
                                    {25, 31.607347, 0.00631726},  {50, 43.236204, 0.00864443},
                                    {100, 49.088759, 0.00981564}, {200, 49.988211, 0.00999564},
                                    {300, 50.004692, 0.00999894}};

std::vector<double> table_times() {
  std::vector<double> t;
  for (const auto& row : b_table) t.push_back(row.t_ms * 1e-3);
  return t;
}

// 1e-6 relative, or half a unit of the table's last printed digit where that is coarser
// (p2 at 1 ms is printed with 5 significant digits).
void expect_table(const std::vector<Vector>& x) {
  ASSERT_EQ(x.size(), b_table.size());
  for (std::size_t k = 0; k < x.size(); ++k) {
    const auto& row = b_table[k];
    EXPECT_NEAR(x[k][0], row.p1, std::max(1e-6 * row.p1, 0.5e-6)) << "p1 at " << row.t_ms << " ms";
    EXPECT_NEAR(x[k][1], row.p2, std::max(1e-6 * row.p2, 0.5e-8)) << "p2 at " << row.t_ms << " ms";
  }
}

TEST(Reference, MatrixExponentialReproducesTableB) {
  expect_table(exact_linear_response(b_matrix, b_input, b_step, Vector::Zero(2), table_times()));
}

TEST(Reference, CvodeReproducesTableB) {
  const auto f = [](double, const Vector& x, Vector& dx) { dx = b_matrix * x + b_input * b_step; };
  expect_table(cvode_reference(f, Vector::Zero(2), 0, table_times()));
}

TEST(Reference, SteadyStateOfB) {
  const auto x = exact_linear_response(b_matrix, b_input, b_step, Vector::Zero(2), {10.0});
  const Vector steady = -b_matrix.inverse() * b_input * b_step;
  EXPECT_NEAR(x[0][0], steady[0], 1e-9);
  EXPECT_NEAR(x[0][1], steady[1], 1e-12);
  EXPECT_NEAR(steady[0], 50.005, 1e-3);
}

TEST(Reference, CvodeAgreesWithTheExactSolutionOfE) {
  // Models.md E by hand: m1 = m2 = 1, k1 = 10, d1 = 0.1, kc = 100, dc = 1, k2 = 1000,
  // d2 = 1; state (x1, v1, x2, v2), x1(0) = 0.1.
  const double k1 = 10, d1 = 0.1, kc = 100, dc = 1, k2 = 1000, d2 = 1;
  const Matrix A{{0, 1, 0, 0},
                 {-(k1 + kc), -(d1 + dc), kc, dc},
                 {0, 0, 0, 1},
                 {kc, dc, -(k2 + kc), -(d2 + dc)}};
  const Vector x0{{0.1, 0, 0, 0}};
  std::vector<double> times;
  for (int k = 1; k <= 50; ++k) times.push_back(0.1 * k);
  const auto exact = exact_linear_response(A, Matrix::Zero(4, 1), Vector::Zero(1), x0, times);
  const auto f = [&](double, const Vector& x, Vector& dx) { dx = A * x; };
  const auto cvode = cvode_reference(f, x0, 0, times);
  for (std::size_t k = 0; k < times.size(); ++k)
    EXPECT_LE((cvode[k] - exact[k]).cwiseAbs().maxCoeff(), 1e-7) << "at t = " << times[k];
}

TEST(Reference, CvodeFailureNamesTheFlag) {
  // ẋ = x² from 1 blows up at t = 1.
  const auto blow_up = [](double, const Vector& x, Vector& dx) { dx = x.cwiseProduct(x); };
  try {
    cvode_reference(blow_up, Vector::Ones(1), 0, {2.0});
    FAIL() << "no failure past the blow-up";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("CV_"), std::string::npos) << e.what();
  }
  const auto throws = [](double, const Vector&, Vector&) { throw std::runtime_error("broken"); };
  try {
    cvode_reference(throws, Vector::Ones(1), 0, {1.0});
    FAIL() << "an exception in f was swallowed";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("CV_RHSFUNC_FAIL"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("broken"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kausal::reference
