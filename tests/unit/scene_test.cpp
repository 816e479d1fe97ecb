#include "animation/scene.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "common/errors.hpp"

namespace kausal {
namespace {

const std::vector<PendulumGeometry> kTwoPendulums{{0.0, 1.0, 0.1}, {0.2, 0.5, 0.05}};

TEST(Scene, SameScaleOnBothAxesAndInsideTheMargins) {
  // World box: x from -1.1 to 1.1 (2.2 m), y from -1.1 to 0.1 (1.2 m).
  const Scene wide(kTwoPendulums, {0, 0, 1000, 300}, 10);
  EXPECT_DOUBLE_EQ(wide.scale(), 280.0 / 1.2);  // height limits
  const Scene tall(kTwoPendulums, {0, 0, 200, 1000}, 10);
  EXPECT_DOUBLE_EQ(tall.scale(), 180.0 / 2.2);  // width limits
  // A metre is as many pixels across as down.
  const PixelPoint a = wide.to_pixel(0, 0), b = wide.to_pixel(1, -1);
  EXPECT_DOUBLE_EQ(b.x - a.x, b.y - a.y);
}

TEST(Scene, BobsHangBelowTheirPivotsAndSwingCounterClockwise) {
  const Scene s(kTwoPendulums, {50, 20, 800, 600}, 20);
  const PixelPoint pivot = s.pivot(0), down = s.bob(0, 0.0);
  EXPECT_DOUBLE_EQ(down.x, pivot.x);
  EXPECT_DOUBLE_EQ(down.y - pivot.y, 1.0 * s.scale());  // screen y grows downwards
  const PixelPoint right = s.bob(0, M_PI / 2);          // phi > 0 moves the bob to +x
  EXPECT_NEAR(right.x - pivot.x, s.scale(), 1e-9);
  EXPECT_NEAR(right.y, pivot.y, 1e-9);
  EXPECT_DOUBLE_EQ(s.pivot(1).x - s.pivot(0).x, 0.2 * s.scale());
  EXPECT_DOUBLE_EQ(s.bob_radius(1), 0.05 * s.scale());
}

TEST(Scene, EveryReachableBobStaysInsideTheRectangle) {
  const PixelRect rect{10, 10, 640, 360};
  const Scene s(kTwoPendulums, rect, 8);
  for (std::size_t i = 0; i < s.size(); ++i)
    for (double phi = -M_PI / 2; phi <= M_PI / 2; phi += 0.05) {
      const PixelPoint c = s.bob(i, phi);
      const double r = s.bob_radius(i);
      EXPECT_GE(c.x - r, rect.x + 8 - 1e-9);
      EXPECT_LE(c.x + r, rect.x + rect.width - 8 + 1e-9);
      EXPECT_LE(c.y + r, rect.y + rect.height - 8 + 1e-9);
    }
}

TEST(Scene, RefusesNoPendulumsOrNoRoom) {
  EXPECT_THROW(Scene({}, {0, 0, 100, 100}, 5), InputError);
  EXPECT_THROW(Scene(kTwoPendulums, {0, 0, 10, 100}, 5), InputError);
}

}  // namespace
}  // namespace kausal
