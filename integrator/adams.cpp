#include "integrator/adams.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace kausal {

std::optional<AdamsScheme> adams_scheme(OdeMethod m) {
  using F = AdamsFamily;
  switch (m) {
    case OdeMethod::ab1:
      return AdamsScheme{F::bashforth, 1};
    case OdeMethod::ab2:
      return AdamsScheme{F::bashforth, 2};
    case OdeMethod::ab3:
      return AdamsScheme{F::bashforth, 3};
    case OdeMethod::ab4:
      return AdamsScheme{F::bashforth, 4};
    case OdeMethod::am1:
      return AdamsScheme{F::moulton, 1};
    case OdeMethod::am2:
      return AdamsScheme{F::moulton, 2};
    case OdeMethod::am3:
      return AdamsScheme{F::moulton, 3};
    case OdeMethod::am4:
      return AdamsScheme{F::moulton, 4};
    case OdeMethod::abm1:
      return AdamsScheme{F::predictor_corrector, 1, 1};
    case OdeMethod::abm2:
      return AdamsScheme{F::predictor_corrector, 2, 1};
    case OdeMethod::abm3:
      return AdamsScheme{F::predictor_corrector, 3, 1};
    case OdeMethod::abm4:
      return AdamsScheme{F::predictor_corrector, 4, 1};
    case OdeMethod::abm1_pec2e:
      return AdamsScheme{F::predictor_corrector, 1, 2};
    case OdeMethod::abm2_pec2e:
      return AdamsScheme{F::predictor_corrector, 2, 2};
    case OdeMethod::abm3_pec2e:
      return AdamsScheme{F::predictor_corrector, 3, 2};
    case OdeMethod::abm4_pec2e:
      return AdamsScheme{F::predictor_corrector, 4, 2};
    case OdeMethod::abm1_pec3e:
      return AdamsScheme{F::predictor_corrector, 1, 3};
    case OdeMethod::abm2_pec3e:
      return AdamsScheme{F::predictor_corrector, 2, 3};
    case OdeMethod::abm3_pec3e:
      return AdamsScheme{F::predictor_corrector, 3, 3};
    case OdeMethod::abm4_pec3e:
      return AdamsScheme{F::predictor_corrector, 4, 3};
    default:
      return std::nullopt;
  }
}

ExplicitAdams bashforth(int order) {
  switch (order) {
    case 1:
      return {1, {1, 0, 0, 0}, 1};
    case 2:
      return {2, {3, -1, 0, 0}, 2};
    case 3:
      return {12, {23, -16, 5, 0}, 3};
    case 4:
      return {24, {55, -59, 37, -9}, 4};
    default:
      throw std::invalid_argument("Adams–Bashforth of order " + std::to_string(order));
  }
}

ImplicitAdams moulton(int order) {
  switch (order) {
    case 1:
      return {1, 1, {0, 0, 0}, 0};
    case 2:
      return {2, 1, {1, 0, 0}, 1};
    case 3:
      return {12, 5, {8, -1, 0}, 2};
    case 4:
      return {24, 9, {19, -5, 1}, 3};
    default:
      throw std::invalid_argument("Adams–Moulton of order " + std::to_string(order));
  }
}

std::size_t adams_history(const AdamsScheme& a) {
  const auto k = static_cast<std::size_t>(a.order);
  return a.family == AdamsFamily::moulton ? std::max<std::size_t>(k, 2) - 2 : k - 1;
}

}  // namespace kausal
