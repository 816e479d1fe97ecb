#include "idl/activity_feed.hpp"

#include "idl/convert.hpp"

namespace kausal {

ActivityFeed::ActivityFeed(std::string component, const ActivityTrace& trace,
                           idl::Animation_ptr view)
    : component_(std::move(component)),
      trace_(trace),
      view_(idl::Animation::_duplicate(view)),
      next_(trace.recorded()) {
  thread_ = std::thread([this] { run(); });
}

ActivityFeed::~ActivityFeed() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ActivityFeed::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, period, [&] { return stopping_; });
    lock.unlock();
    const bool alive = send_new_spans();
    lock.lock();
    if (!alive) return;
  }
}

bool ActivityFeed::send_new_spans() {
  try {
    for (;;) {
      const TracePage page = trace_.read(next_, max_spans_per_call);
      if (page.spans.empty()) return true;
      view_->activity(component_.c_str(), to_idl(page.spans));
      next_ = page.first + page.spans.size();
    }
  } catch (const CORBA::Exception&) {
    return false;  // the view was closed: the component carries on without it
  }
}

}  // namespace kausal
