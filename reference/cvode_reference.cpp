#include "reference/cvode_reference.hpp"

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

namespace kausal::reference {

namespace {

// The solver's objects, released in reverse order of creation whatever happens.
struct Session {
  SUNContext context = nullptr;
  N_Vector y = nullptr;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver solver = nullptr;
  void* cvode = nullptr;
  ~Session() {
    if (cvode) CVodeFree(&cvode);
    if (solver) SUNLinSolFree(solver);
    if (matrix) SUNMatDestroy(matrix);
    if (y) N_VDestroy(y);
    if (context) SUNContext_Free(&context);
  }
};

struct UserData {
  RightHandSide* f;
  Vector x, dx;
  std::string error;    // an exception from f, carried across the C library
  std::string message;  // CVODE's last error message
};

int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void* user) {
  auto* data = static_cast<UserData*>(user);
  const auto n = static_cast<Eigen::Index>(N_VGetLength(y));
  data->x = Eigen::Map<const Vector>(N_VGetArrayPointer(y), n);
  try {
    (*data->f)(t, data->x, data->dx);
  } catch (const std::exception& e) {
    data->error = e.what();
    return -1;  // unrecoverable: CVODE stops with CV_RHSFUNC_FAIL
  }
  Eigen::Map<Vector>(N_VGetArrayPointer(ydot), n) = data->dx;
  return data->dx.allFinite() ? 0 : 1;  // 1: recoverable, CVODE retries a smaller step
}

// CVODE's own messages go here instead of stderr: warnings (t + h = t near a blow-up) are
// dropped, the last error is kept for the exception.
void keep_error(int code, const char*, const char*, char* message, void* user) {
  if (code < 0) static_cast<UserData*>(user)->message = message;
}

void check(int flag, const char* call, const UserData& data) {
  if (flag >= 0) return;
  char* name = CVodeGetReturnFlagName(flag);  // malloc'ed by CVODE 6
  std::string message = std::string("CVODE ") + call + " failed: " + (name ? name : "?");
  std::free(name);
  if (!data.error.empty()) message += " (" + data.error + ")";
  if (!data.message.empty()) message += ": " + data.message;
  throw std::runtime_error(message);
}

void check_created(const void* p, const char* what) {
  if (!p) throw std::runtime_error(std::string("CVODE: cannot create ") + what);
}

}  // namespace

// Settings (the whole of "the command that produced each answer"): CVODE 6.4 from
// libsundials-dev, BDF (variable order up to 5), Newton iteration with the dense direct
// linear solver and CVODE's difference-quotient Jacobian, scalar tolerances rtol / atol
// (defaults 1e-10 / 1e-12), at most 10⁷ internal steps, output by CV_NORMAL to each time
// (CVODE interpolates inside its last step), all other options at CVODE's defaults.
std::vector<Vector> cvode_reference(RightHandSide f, Vector x0, double t0,
                                    const std::vector<double>& times, double rtol, double atol) {
  const auto n = static_cast<sunindextype>(x0.size());
  UserData data{&f, x0, Vector(x0.size()), {}, {}};
  Session s;
  if (SUNContext_Create(nullptr, &s.context) != 0) throw std::runtime_error("CVODE: no context");
  s.y = N_VNew_Serial(n, s.context);
  check_created(s.y, "vector");
  Eigen::Map<Vector>(N_VGetArrayPointer(s.y), x0.size()) = x0;
  s.cvode = CVodeCreate(CV_BDF, s.context);
  check_created(s.cvode, "solver");
  check(CVodeSetErrHandlerFn(s.cvode, keep_error, &data), "CVodeSetErrHandlerFn", data);
  check(CVodeInit(s.cvode, rhs, t0, s.y), "CVodeInit", data);
  check(CVodeSetUserData(s.cvode, &data), "CVodeSetUserData", data);
  check(CVodeSStolerances(s.cvode, rtol, atol), "CVodeSStolerances", data);
  check(CVodeSetMaxNumSteps(s.cvode, 10'000'000), "CVodeSetMaxNumSteps", data);
  s.matrix = SUNDenseMatrix(n, n, s.context);
  check_created(s.matrix, "dense matrix");
  s.solver = SUNLinSol_Dense(s.y, s.matrix, s.context);
  check_created(s.solver, "dense linear solver");
  check(CVodeSetLinearSolver(s.cvode, s.solver, s.matrix), "CVodeSetLinearSolver", data);

  std::vector<Vector> out;
  out.reserve(times.size());
  for (double t_out : times) {
    if (t_out == t0) {
      out.push_back(x0);
      continue;
    }
    sunrealtype t_reached = t0;
    check(CVode(s.cvode, t_out, s.y, &t_reached, CV_NORMAL), "CVode", data);
    out.emplace_back(Eigen::Map<const Vector>(N_VGetArrayPointer(s.y), x0.size()));
  }
  return out;
}

}  // namespace kausal::reference
