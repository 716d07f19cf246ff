// Threads kept from one launch to the next. A program under `bankcheck run` may launch
// tens of thousands of kernels of a few CTAs each; starting a thread for each launch and
// joining it cost about 45 us a launch on a 2-core machine (more than a small launch's
// CTAs), so the threads that run CTAs wait for the next launch instead of ending.
#pragma once

#include <functional>

namespace bankcheck::driver {

// Runs part(0) on the calling thread and part(1) .. part(n - 1) on kept threads, and returns
// when every part has returned; the first exception a part threw is rethrown then. A part
// that gets no thread (the pool busy with another caller's parts, or a thread that cannot
// start) runs on the calling thread after part(0): the parts share their work through their
// own queue, as run_ctas's and the fills' workers do, so a part that runs late finds it done.
void run_parts(unsigned n, const std::function<void(unsigned)>& part);

}  // namespace bankcheck::driver
