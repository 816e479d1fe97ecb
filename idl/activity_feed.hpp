#pragma once
// Streams the spans a component records to an Animation while it runs (Participant::observe):
// a thread wakes a few times a second and sends what is new by a oneway call. The component
// never waits for the view; a view that is gone ends the feed.
#include <string>

#include "common/activity_trace.hpp"
#include "common/periodic_thread.hpp"
#include "idl/kausal.hh"

namespace kausal {

class ActivityFeed {
 public:
  static constexpr std::chrono::milliseconds period{100};
  static constexpr std::size_t max_spans_per_call = 8192;

  // Starts at once; destroying it stops it.
  ActivityFeed(std::string component, const ActivityTrace& trace, idl::Animation_ptr view);

 private:
  // Sends every span recorded since the last call; false once the view is unreachable.
  bool send_new_spans();

  std::string component_;
  const ActivityTrace& trace_;
  idl::Animation_var view_;
  std::uint64_t next_ = 0;
  PeriodicThread thread_;  // last: it uses the members above
};

}  // namespace kausal
