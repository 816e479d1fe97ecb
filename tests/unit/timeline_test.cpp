#include "animation/timeline.hpp"

#include <gtest/gtest.h>

#include "common/errors.hpp"

namespace kausal {
namespace {

constexpr auto busy = ActivityKind::busy;
constexpr auto rollback = ActivityKind::rollback;
TEST(Timeline, UtilisationSharesPerBin) {
  const Timeline t(10, 14, 400);
  const auto u = t.utilisation({{10.0, 11.5, busy}, {11.5, 11.75, rollback}, {13, 20, busy}}, 4);
  ASSERT_EQ(u.size(), 4u);
  EXPECT_DOUBLE_EQ(u[0].busy, 1.0);
  EXPECT_DOUBLE_EQ(u[0].waiting, 0.0);
  EXPECT_DOUBLE_EQ(u[1].busy, 0.5);
  EXPECT_DOUBLE_EQ(u[1].rollback, 0.25);
  EXPECT_DOUBLE_EQ(u[1].waiting, 0.25);
  EXPECT_DOUBLE_EQ(u[2].waiting, 1.0);
  EXPECT_DOUBLE_EQ(u[3].busy, 1.0);  // clipped at the end of the strip
}

TEST(Timeline, OverlappingSpansNeverExceedTheBin) {
  const Timeline t(0, 1, 10);
  const auto u = t.utilisation({{0, 1, busy}, {0, 1, busy}, {0, 1, rollback}}, 1);
  EXPECT_DOUBLE_EQ(u[0].busy, 1.0);
  EXPECT_DOUBLE_EQ(u[0].rollback, 0.0);
  EXPECT_DOUBLE_EQ(u[0].waiting, 0.0);
}

TEST(Timeline, ColumnOfClampsToTheStrip) {
  const Timeline t(0, 10, 100);
  EXPECT_EQ(t.column_of(-5), 0u);
  EXPECT_EQ(t.column_of(2.55), 25u);
  EXPECT_EQ(t.column_of(10), 99u);
}

TEST(Timeline, RefusesAnEmptyInterval) {
  EXPECT_THROW(Timeline(1, 1, 10), InputError);
  EXPECT_THROW(Timeline(0, 1, 0), InputError);
  EXPECT_THROW(Timeline(0, 1, 10).utilisation({}, 0), InputError);
}

}  // namespace
}  // namespace kausal
