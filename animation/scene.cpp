#include "animation/scene.hpp"

#include <algorithm>
#include <cmath>

#include "common/errors.hpp"

namespace kausal {

Scene::Scene(std::vector<PendulumGeometry> pendulums, PixelRect rect, double margin_px)
    : pendulums_(std::move(pendulums)) {
  if (pendulums_.empty()) throw InputError("scene: no pendulums to draw");
  double left = pendulums_[0].pivot_x, right = left, bottom = 0, top = 0;
  for (const auto& p : pendulums_) {
    left = std::min(left, p.pivot_x - p.length - p.radius);
    right = std::max(right, p.pivot_x + p.length + p.radius);
    bottom = std::min(bottom, -p.length - p.radius);
    top = std::max(top, p.radius);
  }
  const double room_x = rect.width - 2 * margin_px, room_y = rect.height - 2 * margin_px;
  if (room_x <= 0 || room_y <= 0) throw InputError("scene: the picture is too small to draw in");
  scale_ = std::min(room_x / (right - left), room_y / (top - bottom));
  world_cx_ = 0.5 * (left + right);
  world_cy_ = 0.5 * (top + bottom);
  pixel_cx_ = rect.x + 0.5 * rect.width;
  pixel_cy_ = rect.y + 0.5 * rect.height;
}

PixelPoint Scene::to_pixel(double x, double y) const {
  return {pixel_cx_ + (x - world_cx_) * scale_, pixel_cy_ - (y - world_cy_) * scale_};
}

PixelPoint Scene::pivot(std::size_t i) const {
  return to_pixel(pendulums_.at(i).pivot_x, 0.0);
}

PixelPoint Scene::bob(std::size_t i, double phi) const {
  const PendulumGeometry& p = pendulums_.at(i);
  return to_pixel(p.pivot_x + p.length * std::sin(phi), -p.length * std::cos(phi));
}

}  // namespace kausal
