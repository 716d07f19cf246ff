// Streams, events, host functions and stream capture. Every operation finishes before its
// call returns (graphs.hpp), so streams are in order with each other, queries never answer
// CUDA_ERROR_NOT_READY and waits return at once; an event records the host's steady clock.
// A stream being captured records its operations into a graph instead of running them; events
// recorded in a capture carry it to the streams that wait for them (fork and join).
#include <algorithm>
#include <chrono>

#include "driver.hpp"
#include "graphs.hpp"

using namespace bankcheck::runtime;

namespace {

CUresult check_stream(const Driver& d, CUstream s) {
  return d.valid_stream(s) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

Event* event_of(Driver& d, CUevent e) {
  auto* p = reinterpret_cast<Event*>(e);
  return d.events.contains(p) ? p : nullptr;
}

CUresult make_stream(Driver& d, CUstream* out, unsigned flags, int priority) {
  if (!out || (flags & ~static_cast<unsigned>(CU_STREAM_NON_BLOCKING)))
    return CUDA_ERROR_INVALID_VALUE;
  auto* s = new Stream;
  s->number = d.next_stream_number++;
  s->flags = flags;
  // Priorities outside [-5, 0] are clamped, as the driver does.
  s->priority = std::clamp(priority, -5, 0);
  s->context = d.current();
  d.streams.insert(s);
  *out = reinterpret_cast<CUstream>(s);
  return CUDA_SUCCESS;
}

thread_local CUstreamCaptureMode thread_capture_mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
unsigned long long next_capture_id = 1;

CUresult begin_capture(Driver& d, CUstream stream, CUstreamCaptureMode mode, Graph* into,
                       const CUgraphNode* deps, std::size_t count) {
  Stream* s = d.stream(stream);
  // The legacy default stream cannot be captured.
  if (!s)
    return stream == nullptr || stream == CU_STREAM_LEGACY ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
                                                           : CUDA_ERROR_INVALID_HANDLE;
  if (!d.streams.contains(s)) return CUDA_ERROR_INVALID_HANDLE;
  if (s->capture) return CUDA_ERROR_ILLEGAL_STATE;
  auto* c = new Capture;
  c->mode = mode;
  c->id = next_capture_id++;
  if (into) {
    c->graph = into;
    c->owns_graph = false;
  } else {
    c->graph = new Graph;
  }
  std::vector<Node*>& tails = c->tails[s];
  for (std::size_t i = 0; i < count; ++i) tails.push_back(reinterpret_cast<Node*>(deps[i]));
  s->capture = c;
  return CUDA_SUCCESS;
}

CUresult capture_info(Driver& d, CUstream stream, CUstreamCaptureStatus* status, cuuint64_t* id,
                      CUgraph* graph, const CUgraphNode** deps, const CUgraphEdgeData** edges,
                      std::size_t* count) {
  if (const CUresult e = check_stream(d, stream)) return e;
  Capture* c = capture_of(d, stream);
  if (status)
    *status = !c               ? CU_STREAM_CAPTURE_STATUS_NONE
              : c->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                               : CU_STREAM_CAPTURE_STATUS_ACTIVE;
  if (!c) return CUDA_SUCCESS;
  if (id) *id = c->id;
  if (graph) *graph = reinterpret_cast<CUgraph>(c->graph);
  std::vector<Node*>& tails = c->tails[d.stream(stream)];
  if (deps) *deps = reinterpret_cast<const CUgraphNode*>(tails.data());
  if (edges) *edges = nullptr;  // every edge is a plain one
  if (count) *count = tails.size();
  return CUDA_SUCCESS;
}

}  // namespace

// ---- Streams -----------------------------------------------------------------------------------

BANKCHECK_API CUresult cuStreamCreate(CUstream* phStream, unsigned int Flags) {
  return in_context([&](Driver& d, Context&) { return make_stream(d, phStream, Flags, 0); });
}

BANKCHECK_API CUresult cuStreamCreateWithPriority(CUstream* phStream, unsigned int flags,
                                                  int priority) {
  return in_context([&](Driver& d, Context&) { return make_stream(d, phStream, flags, priority); });
}

BANKCHECK_API CUresult cuStreamDestroy_v2(CUstream hStream) {
  return call([&](Driver& d) {
    auto* s = reinterpret_cast<Stream*>(hStream);
    if (!d.streams.contains(s)) return CUDA_ERROR_INVALID_HANDLE;
    d.streams.erase(s);
    delete s;
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuStreamDestroy_v2, cuStreamDestroy)

BANKCHECK_API CUresult cuStreamQuery(CUstream hStream) {
  return call([&](Driver& d) {
    if (const CUresult e = fault_seen(d)) return e;
    return check_stream(d, hStream);
  });
}
BANKCHECK_ALIAS(cuStreamQuery, cuStreamQuery_ptsz)

BANKCHECK_API CUresult cuStreamSynchronize(CUstream hStream) {
  at_synchronization();
  return call([&](Driver& d) {
    if (const CUresult e = check_stream(d, hStream)) return e;
    return capture_of(d, hStream) ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuStreamSynchronize, cuStreamSynchronize_ptsz)

BANKCHECK_API CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int) {
  return call([&](Driver& d) {
    if (const CUresult e = check_stream(d, hStream)) return e;
    Event* ev = event_of(d, hEvent);
    if (!ev) return CUDA_ERROR_INVALID_HANDLE;
    if (!ev->capture || !d.stream(hStream)) return CUDA_SUCCESS;
    // Waiting for an event recorded in a capture: the stream joins it, after those nodes.
    Stream* s = d.stream(hStream);
    if (s->capture && s->capture != ev->capture) return CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
    s->capture = ev->capture;
    std::vector<Node*>& tails = ev->capture->tails[s];
    for (Node* n : ev->captured)
      if (std::find(tails.begin(), tails.end(), n) == tails.end()) tails.push_back(n);
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuStreamWaitEvent, cuStreamWaitEvent_ptsz)

BANKCHECK_API CUresult cuStreamGetFlags(CUstream hStream, unsigned int* flags) {
  return call([&](Driver& d) {
    if (!flags) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_stream(d, hStream)) return e;
    const Stream* s = d.stream(hStream);
    *flags = s ? s->flags : 0;
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuStreamGetFlags, cuStreamGetFlags_ptsz)

BANKCHECK_API CUresult cuStreamGetPriority(CUstream hStream, int* priority) {
  return call([&](Driver& d) {
    if (!priority) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_stream(d, hStream)) return e;
    const Stream* s = d.stream(hStream);
    *priority = s ? s->priority : 0;
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuStreamGetPriority, cuStreamGetPriority_ptsz)

BANKCHECK_API CUresult cuStreamGetId(CUstream hStream, unsigned long long* streamId) {
  return call([&](Driver& d) {
    if (!streamId) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_stream(d, hStream)) return e;
    // The executor's stream number: 0 for the default streams.
    *streamId = d.stream_number(hStream);
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuStreamGetId, cuStreamGetId_ptsz)

BANKCHECK_API CUresult cuStreamGetDevice(CUstream hStream, CUdevice* device) {
  return call([&](Driver& d) {
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_stream(d, hStream)) return e;
    *device = 0;
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuStreamGetDevice, cuStreamGetDevice_ptsz)

BANKCHECK_API CUresult cuStreamGetCtx(CUstream hStream, CUcontext* pctx) {
  return in_context([&](Driver& d, Context& current) {
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_stream(d, hStream)) return e;
    const Stream* s = d.stream(hStream);
    *pctx = reinterpret_cast<CUcontext>(s && s->context ? s->context : &current);
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuStreamGetCtx, cuStreamGetCtx_ptsz)

BANKCHECK_API CUresult cuStreamGetCtx_v2(CUstream hStream, CUcontext* pCtx, CUgreenCtx* pGreenCtx) {
  if (pGreenCtx) *pGreenCtx = nullptr;
  return cuStreamGetCtx(hStream, pCtx);
}
BANKCHECK_ALIAS(cuStreamGetCtx_v2, cuStreamGetCtx_v2_ptsz)

// Attributes (access policy windows, synchronisation policy, priority) are scheduling hints:
// kept nowhere, read back as their defaults.
BANKCHECK_API CUresult cuStreamGetAttribute(CUstream hStream, CUstreamAttrID,
                                            CUstreamAttrValue* value) {
  return call([&](Driver& d) {
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_stream(d, hStream)) return e;
    *value = CUstreamAttrValue{};
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuStreamGetAttribute, cuStreamGetAttribute_ptsz)

BANKCHECK_API CUresult cuStreamSetAttribute(CUstream hStream, CUstreamAttrID,
                                            const CUstreamAttrValue* value) {
  return call([&](Driver& d) {
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    return check_stream(d, hStream);
  });
}
BANKCHECK_ALIAS(cuStreamSetAttribute, cuStreamSetAttribute_ptsz)

BANKCHECK_API CUresult cuStreamCopyAttributes(CUstream dst, CUstream src) {
  return call([&](Driver& d) {
    if (const CUresult e = check_stream(d, dst)) return e;
    return check_stream(d, src);
  });
}
BANKCHECK_ALIAS(cuStreamCopyAttributes, cuStreamCopyAttributes_ptsz)

// Managed memory is reachable from every stream here.
BANKCHECK_API CUresult cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr, size_t, unsigned int) {
  return call([&](Driver& d) { return check_stream(d, hStream); });
}
BANKCHECK_ALIAS(cuStreamAttachMemAsync, cuStreamAttachMemAsync_ptsz)

// ---- Host functions
// ------------------------------------------------------------------------------

BANKCHECK_API CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void* userData) {
  return call([&](Driver& d) {
    if (!fn) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_stream(d, hStream)) return e;
    Node n;
    n.type = CU_GRAPH_NODE_TYPE_HOST;
    n.host.fn = fn;
    n.host.userData = userData;
    return submit(d, hStream, std::move(n));
  });
}
BANKCHECK_ALIAS(cuLaunchHostFunc, cuLaunchHostFunc_ptsz)

namespace {
struct Callback {
  CUstream stream;
  CUstreamCallback fn;
  void* data;
};
void run_callback(void* p) {
  auto* c = static_cast<Callback*>(p);
  c->fn(c->stream, CUDA_SUCCESS, c->data);
  delete c;
}
}  // namespace

// Not allowed in a capture, as on the device.
BANKCHECK_API CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback,
                                           void* userData, unsigned int flags) {
  return call([&](Driver& d) {
    if (!callback || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_stream(d, hStream)) return e;
    if (capture_of(d, hStream)) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    run_callback(new Callback{hStream, callback, userData});
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuStreamAddCallback, cuStreamAddCallback_ptsz)

// ---- Events
// --------------------------------------------------------------------------------------

BANKCHECK_API CUresult cuEventCreate(CUevent* phEvent, unsigned int Flags) {
  return in_context([&](Driver& d, Context&) {
    if (!phEvent) return CUDA_ERROR_INVALID_VALUE;
    constexpr unsigned known =
        CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
    if (Flags & ~known) return CUDA_ERROR_INVALID_VALUE;
    if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
      return CUDA_ERROR_INVALID_VALUE;
    auto* e = new Event;
    e->flags = Flags;
    d.events.insert(e);
    *phEvent = reinterpret_cast<CUevent>(e);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream,
                                              unsigned int flags) {
  return call([&](Driver& d) {
    Event* ev = event_of(d, hEvent);
    if (!ev) return CUDA_ERROR_INVALID_HANDLE;
    if (const CUresult e = check_stream(d, hStream)) return e;
    if (Capture* c = capture_of(d, hStream)) {
      if (flags & CU_EVENT_RECORD_EXTERNAL) {
        Node n;
        n.type = CU_GRAPH_NODE_TYPE_EVENT_RECORD;
        n.event = ev;
        return submit(d, hStream, std::move(n));
      }
      ev->capture = c;
      ev->captured = c->tails[d.stream(hStream)];
      return CUDA_SUCCESS;
    }
    ev->capture = nullptr;
    ev->captured.clear();
    ev->recorded = true;
    ev->when = std::chrono::steady_clock::now();
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuEventRecordWithFlags, cuEventRecordWithFlags_ptsz)

BANKCHECK_API CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
  return cuEventRecordWithFlags(hEvent, hStream, 0);
}
BANKCHECK_ALIAS(cuEventRecord, cuEventRecord_ptsz)

BANKCHECK_API CUresult cuEventQuery(CUevent hEvent) {
  return call([&](Driver& d) {
    if (const CUresult e = fault_seen(d)) return e;
    return event_of(d, hEvent) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
  });
}

BANKCHECK_API CUresult cuEventSynchronize(CUevent hEvent) {
  at_synchronization();
  return call(
      [&](Driver& d) { return event_of(d, hEvent) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; });
}

BANKCHECK_API CUresult cuEventDestroy_v2(CUevent hEvent) {
  return call([&](Driver& d) {
    Event* ev = event_of(d, hEvent);
    if (!ev) return CUDA_ERROR_INVALID_HANDLE;
    d.events.erase(ev);
    delete ev;
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuEventDestroy_v2, cuEventDestroy)

BANKCHECK_API CUresult cuEventElapsedTime_v2(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
  return call([&](Driver& d) {
    if (!pMilliseconds) return CUDA_ERROR_INVALID_VALUE;
    Event* a = event_of(d, hStart);
    Event* b = event_of(d, hEnd);
    if (!a || !b) return CUDA_ERROR_INVALID_HANDLE;
    // Never recorded: an invalid handle (CUDA_ERROR_NOT_READY is for work not yet done, and
    // all work is done here).
    if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
    if (!a->recorded || !b->recorded) return CUDA_ERROR_INVALID_HANDLE;
    *pMilliseconds = std::chrono::duration<float, std::milli>(b->when - a->when).count();
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuEventElapsedTime_v2, cuEventElapsedTime)

// ---- Stream capture
// ------------------------------------------------------------------------------

BANKCHECK_API CUresult cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode) {
  return call([&](Driver& d) { return begin_capture(d, hStream, mode, nullptr, nullptr, 0); });
}
BANKCHECK_ALIAS(cuStreamBeginCapture_v2, cuStreamBeginCapture_v2_ptsz)

BANKCHECK_API CUresult cuStreamBeginCapture(CUstream hStream) {
  return cuStreamBeginCapture_v2(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL);
}
BANKCHECK_ALIAS(cuStreamBeginCapture, cuStreamBeginCapture_ptsz)

BANKCHECK_API CUresult cuStreamBeginCaptureToGraph(CUstream hStream, CUgraph hGraph,
                                                   const CUgraphNode* dependencies,
                                                   const CUgraphEdgeData*, size_t numDependencies,
                                                   CUstreamCaptureMode mode) {
  return call([&](Driver& d) {
    auto* g = reinterpret_cast<Graph*>(hGraph);
    if (!d.graphs.contains(g)) return CUDA_ERROR_INVALID_VALUE;
    return begin_capture(d, hStream, mode, g, dependencies, numDependencies);
  });
}
BANKCHECK_ALIAS(cuStreamBeginCaptureToGraph, cuStreamBeginCaptureToGraph_ptsz)

BANKCHECK_API CUresult cuStreamEndCapture(CUstream hStream, CUgraph* phGraph) {
  return call([&](Driver& d) {
    if (!phGraph) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult e = check_stream(d, hStream)) return e;
    Capture* c = capture_of(d, hStream);
    if (!c) return CUDA_ERROR_ILLEGAL_STATE;
    // Every stream that joined leaves with it.
    for (Stream* s : d.streams)
      if (s->capture == c) s->capture = nullptr;
    for (Event* e : d.events)
      if (e->capture == c) e->capture = nullptr;
    const bool invalidated = c->invalidated;
    Graph* g = c->graph;
    const bool owns = c->owns_graph;
    delete c;
    if (invalidated) {
      if (owns) delete g;
      *phGraph = nullptr;
      return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    }
    if (owns) d.graphs.insert(g);
    *phGraph = reinterpret_cast<CUgraph>(g);
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuStreamEndCapture, cuStreamEndCapture_ptsz)

BANKCHECK_API CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus* captureStatus) {
  return call([&](Driver& d) {
    if (!captureStatus) return CUDA_ERROR_INVALID_VALUE;
    return capture_info(d, hStream, captureStatus, nullptr, nullptr, nullptr, nullptr, nullptr);
  });
}
BANKCHECK_ALIAS(cuStreamIsCapturing, cuStreamIsCapturing_ptsz)

BANKCHECK_API CUresult cuStreamGetCaptureInfo(CUstream hStream,
                                              CUstreamCaptureStatus* captureStatus_out,
                                              cuuint64_t* id_out) {
  return call([&](Driver& d) {
    return capture_info(d, hStream, captureStatus_out, id_out, nullptr, nullptr, nullptr, nullptr);
  });
}
BANKCHECK_ALIAS(cuStreamGetCaptureInfo, cuStreamGetCaptureInfo_ptsz)

BANKCHECK_API CUresult cuStreamGetCaptureInfo_v2(CUstream hStream,
                                                 CUstreamCaptureStatus* captureStatus_out,
                                                 cuuint64_t* id_out, CUgraph* graph_out,
                                                 const CUgraphNode** dependencies_out,
                                                 size_t* numDependencies_out) {
  return call([&](Driver& d) {
    return capture_info(d, hStream, captureStatus_out, id_out, graph_out, dependencies_out, nullptr,
                        numDependencies_out);
  });
}
BANKCHECK_ALIAS(cuStreamGetCaptureInfo_v2, cuStreamGetCaptureInfo_v2_ptsz)

BANKCHECK_API CUresult cuStreamGetCaptureInfo_v3(CUstream hStream,
                                                 CUstreamCaptureStatus* captureStatus_out,
                                                 cuuint64_t* id_out, CUgraph* graph_out,
                                                 const CUgraphNode** dependencies_out,
                                                 const CUgraphEdgeData** edgeData_out,
                                                 size_t* numDependencies_out) {
  return call([&](Driver& d) {
    return capture_info(d, hStream, captureStatus_out, id_out, graph_out, dependencies_out,
                        edgeData_out, numDependencies_out);
  });
}
BANKCHECK_ALIAS(cuStreamGetCaptureInfo_v3, cuStreamGetCaptureInfo_v3_ptsz)

BANKCHECK_API CUresult cuStreamUpdateCaptureDependencies_v2(CUstream hStream,
                                                            CUgraphNode* dependencies,
                                                            const CUgraphEdgeData*,
                                                            size_t numDependencies,
                                                            unsigned int flags) {
  return call([&](Driver& d) {
    if (const CUresult e = check_stream(d, hStream)) return e;
    Capture* c = capture_of(d, hStream);
    if (!c) return CUDA_ERROR_ILLEGAL_STATE;
    std::vector<Node*>& tails = c->tails[d.stream(hStream)];
    if (flags == CU_STREAM_SET_CAPTURE_DEPENDENCIES)
      tails.clear();
    else if (flags != CU_STREAM_ADD_CAPTURE_DEPENDENCIES)
      return CUDA_ERROR_INVALID_VALUE;
    for (std::size_t i = 0; i < numDependencies; ++i)
      tails.push_back(reinterpret_cast<Node*>(dependencies[i]));
    return CUDA_SUCCESS;
  });
}
BANKCHECK_ALIAS(cuStreamUpdateCaptureDependencies_v2, cuStreamUpdateCaptureDependencies_v2_ptsz)

BANKCHECK_API CUresult cuStreamUpdateCaptureDependencies(CUstream hStream,
                                                         CUgraphNode* dependencies,
                                                         size_t numDependencies,
                                                         unsigned int flags) {
  return cuStreamUpdateCaptureDependencies_v2(hStream, dependencies, nullptr, numDependencies,
                                              flags);
}
BANKCHECK_ALIAS(cuStreamUpdateCaptureDependencies, cuStreamUpdateCaptureDependencies_ptsz)

BANKCHECK_API CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode* mode) {
  return query([&](Driver&) {
    if (!mode) return CUDA_ERROR_INVALID_VALUE;
    std::swap(*mode, thread_capture_mode);
    return CUDA_SUCCESS;
  });
}
