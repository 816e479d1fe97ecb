#include "idl/activity_feed.hpp"

#include "idl/convert.hpp"

namespace kausal {

ActivityFeed::ActivityFeed(std::string component, const ActivityTrace& trace,
                           idl::Animation_ptr view)
    : component_(std::move(component)),
      trace_(trace),
      view_(idl::Animation::_duplicate(view)),
      next_(trace.recorded()),
      thread_(
          period, [this] { return send_new_spans(); }, PeriodicThread::AtStop::run_once_more) {}

bool ActivityFeed::send_new_spans() {
  try {
    for (;;) {
      const TracePage page = trace_.read(next_, max_spans_per_call);
      if (page.spans.empty()) return true;
      view_->activity(component_.c_str(), to_idl(page.spans));
      next_ = page.first + page.spans.size();
    }
  } catch (...) {
    // The view was closed (or anything else went wrong on this thread): the component
    // carries on without it.
    return false;
  }
}

}  // namespace kausal
