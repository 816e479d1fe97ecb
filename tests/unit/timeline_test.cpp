#include "animation/timeline.hpp"

#include <gtest/gtest.h>

#include "system/errors.hpp"

namespace kausal {
namespace {

constexpr auto busy = ActivityKind::busy;
constexpr auto rollback = ActivityKind::rollback;
constexpr auto W = ColumnState::waiting;
constexpr auto B = ColumnState::busy;
constexpr auto R = ColumnState::rollback;

TEST(Timeline, ColumnsTakeTheStrongestActivityTouchingThem) {
  const Timeline t(0, 10, 10);                             // one second per column
  const auto columns = t.classify({{1.0, 3.0, busy},       // columns 1, 2
                                   {5.5, 5.6, busy},       // a sliver in column 5
                                   {6.9, 7.2, busy},       // columns 6 and 7 ...
                                   {7.1, 7.15, rollback},  // ... but rollback wins in 7
                                   {12, 13, busy}});       // outside the strip
  EXPECT_EQ(columns, (std::vector<ColumnState>{W, B, B, W, W, B, B, R, W, W}));
}

TEST(Timeline, OrderOfSpansDoesNotMatter) {
  const Timeline t(0, 4, 4);
  const auto a = t.classify({{0.5, 1.5, rollback}, {0, 2, busy}});
  const auto b = t.classify({{0, 2, busy}, {0.5, 1.5, rollback}});
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, (std::vector<ColumnState>{R, R, W, W}));
}

TEST(Timeline, EmptySpansAndEdgesTouchNothing) {
  const Timeline t(0, 4, 4);
  // [1, 2) ends exactly where column 2 starts; [3, 3) holds no time.
  EXPECT_EQ(t.classify({{1, 2, busy}, {3, 3, rollback}}), (std::vector<ColumnState>{W, B, W, W}));
}

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
