// Host draws of large buffers on every core. Each element is a function of
// (spec, key, index) alone (InputDraw.h), so the buffer is cut into ranges
// drawn at once and the bytes equal the serial draw's. At KernelBench's sizes
// (1.6 G floats a tensor) the serial draw was a third of a reference's time.
#pragma once

#include "cudaperf/daemon/InputDraw.h"

#include <cstdint>

namespace cudaperf::draw {

// drawIntoHost's bytes, on up to `threads` threads (0: one per core); small
// buffers and offsets (a running sum) are drawn on the calling thread.
void drawIntoHostInParallel(unsigned char *at, std::uint64_t count, const DrawSpec &spec, std::uint64_t key,
                            unsigned threads = 0);

} // namespace cudaperf::draw
