#pragma once
// Where the pendulum chain lands on screen: a world -> pixel transform with one scale for
// both axes (circles stay circles), fitted into a pixel rectangle with margins. The
// renderer draws with it and the tests use it to know where the bobs must be.
#include <cstddef>
#include <vector>

#include "animation/view_types.hpp"

namespace kausal {

struct PixelPoint {
  double x = 0;
  double y = 0;  // grows downwards, as on screen
};

struct PixelRect {
  double x = 0;
  double y = 0;
  double width = 0;
  double height = 0;
};

class Scene {
 public:
  // The box fitted is every place a bob can reach below its pivot (each bob's full swing
  // sideways, down to the lowest bob's bottom) plus a bob radius above the pivots; a bob
  // swung above its pivot may leave the picture. InputError if there is no pendulum or the
  // rectangle leaves no room inside the margins.
  Scene(std::vector<PendulumGeometry> pendulums, PixelRect rect, double margin_px);

  PixelPoint to_pixel(double x, double y) const;
  double scale() const { return scale_; }  // pixels per metre
  std::size_t size() const { return pendulums_.size(); }

  PixelPoint pivot(std::size_t i) const;
  // The bob centre at angle phi (from the downward vertical, counter-clockwise).
  PixelPoint bob(std::size_t i, double phi) const;
  double bob_radius(std::size_t i) const { return pendulums_.at(i).radius * scale_; }

 private:
  std::vector<PendulumGeometry> pendulums_;
  double scale_ = 1;
  double world_cx_ = 0, world_cy_ = 0;  // centre of the fitted box (m)
  double pixel_cx_ = 0, pixel_cy_ = 0;  // where it lands (px)
};

}  // namespace kausal
