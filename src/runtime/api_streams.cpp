// Streams and events. Every call runs its work to completion before it returns, so all
// streams are in order with each other: a stream is a number for the executor's reports and
// a set of flags to give back; an event is the host clock's time when it was recorded, and
// elapsed times are differences of those times (docs/runtime.md).
#include <chrono>

#include "runtime.hpp"

using namespace bankcheck::runtime;

namespace {

Stream* find_stream(Runtime& rt, cudaStream_t s) {
  auto* p = reinterpret_cast<Stream*>(s);
  return rt.streams.contains(p) ? p : nullptr;
}

Event* find_event(Runtime& rt, cudaEvent_t e) {
  auto* p = reinterpret_cast<Event*>(e);
  return rt.events.contains(p) ? p : nullptr;
}

cudaError_t check_stream(const Runtime& rt, cudaStream_t stream) {
  return rt.valid_stream(stream) ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

// The stream priorities of cudaDeviceGetStreamPriorityRange: 0 (least) to -5 (greatest).
constexpr int kLeastPriority = 0, kGreatestPriority = -5;

cudaError_t create_stream(Runtime& rt, cudaStream_t* out, unsigned flags, int priority) {
  if (!out || (flags & ~static_cast<unsigned>(cudaStreamNonBlocking))) return cudaErrorInvalidValue;
  // Out-of-range priorities are clamped, as the real runtime does.
  priority = priority > kLeastPriority      ? kLeastPriority
             : priority < kGreatestPriority ? kGreatestPriority
                                            : priority;
  auto* s = new Stream{rt.next_stream_number++, flags, priority};
  rt.streams.insert(s);
  *out = reinterpret_cast<cudaStream_t>(s);
  return cudaSuccess;
}

// The calling thread's capture mode (cudaThreadExchangeStreamCaptureMode); nothing is ever
// captured, but libraries set and restore it around their calls.
cudaStreamCaptureMode& capture_mode() {
  thread_local cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  return mode;
}

}  // namespace

BANKCHECK_API cudaError_t cudaStreamCreate(cudaStream_t* pStream) {
  return call([&](Runtime& rt) { return create_stream(rt, pStream, 0, kLeastPriority); });
}

BANKCHECK_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  return call([&](Runtime& rt) { return create_stream(rt, pStream, flags, kLeastPriority); });
}

BANKCHECK_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int flags,
                                                       int priority) {
  return call([&](Runtime& rt) { return create_stream(rt, pStream, flags, priority); });
}

BANKCHECK_API cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  return call([&](Runtime& rt) {
    Stream* s = find_stream(rt, stream);
    if (!s) return cudaErrorInvalidResourceHandle;
    rt.streams.erase(s);
    delete s;
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  return call([&](Runtime& rt) { return check_stream(rt, stream); });
}
BANKCHECK_PER_THREAD(cudaStreamSynchronize, cudaStreamSynchronize_ptsz)

// Never cudaErrorNotReady: the stream's work finished when it was issued.
BANKCHECK_API cudaError_t cudaStreamQuery(cudaStream_t stream) {
  return call([&](Runtime& rt) { return check_stream(rt, stream); });
}
BANKCHECK_PER_THREAD(cudaStreamQuery, cudaStreamQuery_ptsz)

BANKCHECK_API cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                              unsigned int flags) {
  return call([&](Runtime& rt) {
    if (flags & ~static_cast<unsigned>(cudaEventWaitExternal)) return cudaErrorInvalidValue;
    if (!rt.valid_stream(stream) || !find_event(rt, event)) return cudaErrorInvalidResourceHandle;
    return cudaSuccess;
  });
}
BANKCHECK_PER_THREAD(cudaStreamWaitEvent, cudaStreamWaitEvent_ptsz)

BANKCHECK_API cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
  return call([&](Runtime& rt) {
    if (!flags) return cudaErrorInvalidValue;
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    const Stream* s = find_stream(rt, stream);
    *flags = s ? s->flags : 0u;
    return cudaSuccess;
  });
}
BANKCHECK_PER_THREAD(cudaStreamGetFlags, cudaStreamGetFlags_ptsz)

BANKCHECK_API cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  return call([&](Runtime& rt) {
    if (!priority) return cudaErrorInvalidValue;
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    const Stream* s = find_stream(rt, stream);
    *priority = s ? s->priority : kLeastPriority;
    return cudaSuccess;
  });
}
BANKCHECK_PER_THREAD(cudaStreamGetPriority, cudaStreamGetPriority_ptsz)

BANKCHECK_API cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long* streamId) {
  return call([&](Runtime& rt) {
    if (!streamId) return cudaErrorInvalidValue;
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    *streamId = rt.stream_number(stream);
    return cudaSuccess;
  });
}
BANKCHECK_PER_THREAD(cudaStreamGetId, cudaStreamGetId_ptsz)

BANKCHECK_API cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device) {
  return call([&](Runtime& rt) {
    if (!device) return cudaErrorInvalidValue;
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    *device = 0;
    return cudaSuccess;
  });
}
BANKCHECK_PER_THREAD(cudaStreamGetDevice, cudaStreamGetDevice_ptsz)

BANKCHECK_API cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                                cudaStreamCaptureStatus* pCaptureStatus) {
  return call([&](Runtime& rt) {
    if (!pCaptureStatus) return cudaErrorInvalidValue;
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    *pCaptureStatus = cudaStreamCaptureStatusNone;
    return cudaSuccess;
  });
}
BANKCHECK_PER_THREAD(cudaStreamIsCapturing, cudaStreamIsCapturing_ptsz)

BANKCHECK_API cudaError_t cudaStreamGetCaptureInfo(
    cudaStream_t stream, cudaStreamCaptureStatus* captureStatus_out, unsigned long long* id_out,
    cudaGraph_t* graph_out, const cudaGraphNode_t** dependencies_out,
    const cudaGraphEdgeData** edgeData_out, size_t* numDependencies_out) {
  return call([&](Runtime& rt) {
    if (!captureStatus_out) return cudaErrorInvalidValue;
    if (const cudaError_t e = check_stream(rt, stream)) return e;
    *captureStatus_out = cudaStreamCaptureStatusNone;
    if (id_out) *id_out = 0;
    if (graph_out) *graph_out = nullptr;
    if (dependencies_out) *dependencies_out = nullptr;
    if (edgeData_out) *edgeData_out = nullptr;
    if (numDependencies_out) *numDependencies_out = 0;
    return cudaSuccess;
  });
}
BANKCHECK_PER_THREAD(cudaStreamGetCaptureInfo, cudaStreamGetCaptureInfo_ptsz)

BANKCHECK_API cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode) {
  return call([&](Runtime&) {
    if (!mode) return cudaErrorInvalidValue;
    std::swap(*mode, capture_mode());
    return cudaSuccess;
  });
}

// Host work on a stream runs at once, after the lock is released: everything issued before
// it has finished.
BANKCHECK_API cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                                void* userData, unsigned int flags) {
  cudaError_t status = cudaSuccess;
  const cudaError_t e = call(
      [&](Runtime& rt) {
        if (!callback || flags != 0) return cudaErrorInvalidValue;
        status = rt.sticky;
        return check_stream(rt, stream);
      },
      /*sticky=*/false);
  if (e == cudaSuccess) callback(stream, status, userData);
  return e;
}
BANKCHECK_PER_THREAD(cudaStreamAddCallback, cudaStreamAddCallback_ptsz)

BANKCHECK_API cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  const cudaError_t e = call([&](Runtime& rt) {
    if (!fn) return cudaErrorInvalidValue;
    return check_stream(rt, stream);
  });
  if (e == cudaSuccess) fn(userData);
  return e;
}
BANKCHECK_PER_THREAD(cudaLaunchHostFunc, cudaLaunchHostFunc_ptsz)

// ---- Events -------------------------------------------------------------------------------

BANKCHECK_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  return call([&](Runtime& rt) {
    constexpr unsigned kKnown =
        cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    if (!event || (flags & ~kKnown)) return cudaErrorInvalidValue;
    if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming))
      return cudaErrorInvalidValue;
    auto* e = new Event{flags, false, {}};
    rt.events.insert(e);
    *event = reinterpret_cast<cudaEvent_t>(e);
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaEventCreate(cudaEvent_t* event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}

BANKCHECK_API cudaError_t cudaEventDestroy(cudaEvent_t event) {
  return call([&](Runtime& rt) {
    Event* e = find_event(rt, event);
    if (!e) return cudaErrorInvalidResourceHandle;
    rt.events.erase(e);
    delete e;
    return cudaSuccess;
  });
}

BANKCHECK_API cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                                   unsigned int flags) {
  return call([&](Runtime& rt) {
    if (flags & ~static_cast<unsigned>(cudaEventRecordExternal)) return cudaErrorInvalidValue;
    Event* e = find_event(rt, event);
    if (!e || !rt.valid_stream(stream)) return cudaErrorInvalidResourceHandle;
    e->recorded = true;
    e->when = std::chrono::steady_clock::now();
    return cudaSuccess;
  });
}
BANKCHECK_PER_THREAD(cudaEventRecordWithFlags, cudaEventRecordWithFlags_ptsz)

BANKCHECK_API cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return cudaEventRecordWithFlags(event, stream, 0);
}
BANKCHECK_PER_THREAD(cudaEventRecord, cudaEventRecord_ptsz)

BANKCHECK_API cudaError_t cudaEventQuery(cudaEvent_t event) {
  return call([&](Runtime& rt) {
    return find_event(rt, event) ? cudaSuccess : cudaErrorInvalidResourceHandle;
  });
}

BANKCHECK_API cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return call([&](Runtime& rt) {
    return find_event(rt, event) ? cudaSuccess : cudaErrorInvalidResourceHandle;
  });
}

// Milliseconds between the two records on the host's steady clock.
BANKCHECK_API cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  return call([&](Runtime& rt) {
    if (!ms) return cudaErrorInvalidValue;
    const Event* a = find_event(rt, start);
    const Event* b = find_event(rt, end);
    if (!a || !b || !a->recorded || !b->recorded || (a->flags & cudaEventDisableTiming) ||
        (b->flags & cudaEventDisableTiming))
      return cudaErrorInvalidResourceHandle;
    *ms = std::chrono::duration<float, std::milli>(b->when - a->when).count();
    return cudaSuccess;
  });
}
