#include "monitor/partition_analysis.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace kausal {
namespace {

const Matrix b_matrix{{-40, 20}, {10, -50010}};

TEST(PartitionAnalysis, OneChamberPerPartitionOfB) {
  const auto report = analyze_partitions(b_matrix, {{"p1", 0, 1}, {"p2", 1, 1}}, {0.01, 0.01});
  ASSERT_EQ(report.partitions.size(), 2u);
  const auto& p1 = report.partitions[0];
  const auto& p2 = report.partitions[1];
  EXPECT_EQ(p1.stiffness, 1.0);
  EXPECT_EQ(p2.stiffness, 1.0);
  EXPECT_NEAR(p1.coupling_ratio, 0.5, 1e-15);
  EXPECT_NEAR(p2.coupling_ratio, 10.0 / 50010, 1e-15);
  EXPECT_NEAR(p2.coupling_ratio, 0.0002, 1e-6);
  EXPECT_NEAR(p1.euler_h_max, 2.0 / 40, 1e-15);
  EXPECT_FALSE(p1.h_exceeds_euler);
  EXPECT_TRUE(p2.h_exceeds_euler);  // 10 ms against 2/50010
  EXPECT_FALSE(report.any_warning());
}

TEST(PartitionAnalysis, WholeSystemOfB) {
  const auto report = analyze_partitions(b_matrix, {{"chambers", 0, 2}}, {1e-5});
  const auto& all = report.partitions.front();
  EXPECT_NEAR(all.stiffness, 1250, 1);
  EXPECT_NEAR(all.euler_h_max, 2.0 / 50010, 1e-9);
  EXPECT_EQ(all.coupling_ratio, 0.0);  // nothing outside
  EXPECT_FALSE(all.h_exceeds_euler);
  EXPECT_EQ(all.undamped, 0u);
}

TEST(PartitionAnalysis, StrongCouplingWarns) {
  // Each state driven by the other three times as strongly as it decays.
  const Matrix J{{-1, 3}, {3, -1}};
  const auto report = analyze_partitions(J, {{"a", 0, 1}, {"b", 1, 1}}, {});
  EXPECT_NEAR(report.partitions[0].coupling_ratio, 3, 1e-15);
  EXPECT_TRUE(report.partitions[0].warning);
  EXPECT_TRUE(report.any_warning());
  const auto text = format_partition_report(report);
  EXPECT_NE(text.find("warning: partition a: coupling ratio 3 >= 1"), std::string::npos) << text;
  EXPECT_NE(text.find("warning: partition b:"), std::string::npos) << text;
}

TEST(PartitionAnalysis, SingularBlockAndUndampedModes) {
  // A frictionless oscillator (purely imaginary pair) driven by a pure integrator.
  const Matrix J{{0, 1, 0}, {-4, 0, 1}, {0, 0, 0}};
  const auto report = analyze_partitions(J, {{"osc", 0, 2}, {"int", 2, 1}}, {0.1, 0.1});
  const auto& osc = report.partitions[0];
  const auto& integ = report.partitions[1];
  EXPECT_EQ(osc.undamped, 2u);
  EXPECT_EQ(osc.zero_real_parts, 2u);
  EXPECT_TRUE(std::isinf(osc.euler_h_max));
  EXPECT_NEAR(osc.coupling_ratio, 0.25, 1e-15);  // A_ii⁻¹ [0; 1] = [−0.25; 0]
  EXPECT_EQ(integ.coupling_ratio, 0.0);          // singular, but nothing drives it
  EXPECT_EQ(integ.undamped, 0u);                 // a zero eigenvalue is neutral
  const Matrix K{{0, 1}, {0, -1}};               // singular block, driven: κ infinite
  const auto driven = analyze_partitions(K, {{"z", 0, 1}, {"w", 1, 1}}, {});
  EXPECT_TRUE(std::isinf(driven.partitions[0].coupling_ratio));
  EXPECT_TRUE(driven.partitions[0].warning);
}

TEST(PartitionAnalysis, TableIsAligned) {
  const auto text = format_partition_report(
      analyze_partitions(b_matrix, {{"p1", 0, 1}, {"p2", 1, 1}}, {0.01, 0.01}));
  const auto first_line = text.substr(0, text.find('\n'));
  EXPECT_EQ(first_line.find("partition"), 0u);
  const auto kappa = first_line.find("kappa");
  ASSERT_NE(kappa, std::string::npos);
  const auto second = text.substr(text.find('\n') + 1);
  EXPECT_EQ(second.find("0.5"), kappa) << text;
  EXPECT_NE(text.find("note: partition p2: h = 0.01 exceeds the explicit Euler limit"),
            std::string::npos)
      << text;
}

TEST(PartitionAnalysis, RejectsBadArguments) {
  EXPECT_THROW(analyze_partitions(Matrix::Zero(2, 3), {{"a", 0, 1}}, {}), std::invalid_argument);
  EXPECT_THROW(analyze_partitions(b_matrix, {{"a", 1, 2}}, {}), std::invalid_argument);
  EXPECT_THROW(analyze_partitions(b_matrix, {{"a", 0, 1}}, {0.1, 0.2}), std::invalid_argument);
}

}  // namespace
}  // namespace kausal
