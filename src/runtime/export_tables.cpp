// cuGetExportTable: the driver's undocumented interfaces, which the CUDA runtime (static or
// shared, the program's or the one inside a library such as cuBLAS) asks for by UUID while
// it starts. Each table is an array of function pointers; slot 0 of most holds the table's
// size in bytes.
//
// What each slot does was read from public clean-room descriptions of these tables and
// settled against CUDA 13.0's own runtimes (libcudart_static.a, libcudart.so.13, and those
// inside libcublas.so.13 and libcublasLt.so.13): the slots those runtimes call are implemented,
// and any other slot says once which one it is and returns CUDA_ERROR_NOT_SUPPORTED, so that a
// runtime that needs more names it.
#include "export_tables.hpp"

#include <fmt/format.h>
#include <pthread.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <tuple>

#include "device_properties.hpp"
#include "driver.hpp"
#include "integrity.hpp"

namespace bankcheck::runtime {

namespace {

using Table = std::array<void*, 96>;

struct Uuid {
  std::uint8_t bytes[16];
  bool operator==(const CUuuid& u) const { return std::memcmp(bytes, u.bytes, 16) == 0; }
};

// {6bd5fb6c-5bf4-e74a-8987-d93912fd9df9}: what the runtime needs to start (the primary
// context, modules from its fat binaries).
constexpr Uuid kRuntimeInterface = {{0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87,
                                     0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9}};
// {a094798c-2e74-2e74-93f2-0800200c0a66}: tools' runtime callback hooks.
constexpr Uuid kToolsCallbacks = {{0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08,
                                   0x00, 0x20, 0x0c, 0x0a, 0x66}};
// {42d85a81-23f6-cb47-8298-f6e78a3aecdc}: tools' thread-local storage.
constexpr Uuid kToolsTls = {{0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7,
                             0x8a, 0x3a, 0xec, 0xdc}};
// {c693336e-1121-df11-a8c3-68f355d89593}: context-local storage.
constexpr Uuid kContextStorage = {{0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68,
                                   0xf3, 0x55, 0xd8, 0x95, 0x93}};
// {263e8860-7cd2-6143-92f6-bbd5006dfa7e}: context checks.
constexpr Uuid kContextChecks = {{0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb,
                                  0xd5, 0x00, 0x6d, 0xfa, 0x7e}};
// {21318c60-9714-3248-8ca6-41ff7324c8f2}: tools' view of contexts.
constexpr Uuid kToolsContext = {{0x21, 0x31, 0x8c, 0x60, 0x97, 0x14, 0x32, 0x48, 0x8c, 0xa6, 0x41,
                                 0xff, 0x73, 0x24, 0xc8, 0xf2}};
// {f8cff951-2146-8b4e-b9e2-fb469e7c0dd9}: the runtime asks for it as it starts and takes its
// usual start without it.
constexpr Uuid kRuntimeProbe = {{0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e, 0xb9, 0xe2, 0xfb,
                                 0x46, 0x9e, 0x7c, 0x0d, 0xd9}};
// {da9151d3-3ae6-cc41-a5c0-4f26d533e328}: NVRTC (13.0) asks for it as it compiles, and
// compiles the same without it (PTX and cubins alike).
constexpr Uuid kNvrtcProbe = {{0xda, 0x91, 0x51, 0xd3, 0x3a, 0xe6, 0xcc, 0x41, 0xa5, 0xc0, 0x4f,
                               0x26, 0xd5, 0x33, 0xe3, 0x28}};
// {d4082055-bde6-704b-8d34-ba123c66e1f2}: the integrity check (integrity.hpp).
constexpr Uuid kIntegrity = {{0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba,
                              0x12, 0x3c, 0x66, 0xe1, 0xf2}};

// A slot no runtime of CUDA 13.0 was seen to call: named once, then refused.
template <int TableNo, int Slot>
CUresult unknown_slot() {
  static constexpr const char* names[] = {
      "6bd5fb6c (runtime interface)", "a094798c (tools callbacks)", "42d85a81 (tools storage)",
      "c693336e (context storage)",   "263e8860 (context checks)",  "d4082055 (integrity)",
      "21318c60 (tools contexts)"};
  static_assert(TableNo < sizeof names / sizeof names[0], "every table has its name");
  diagnose_once(
      fmt::format("export {} {}", TableNo, Slot),
      fmt::format("a CUDA runtime or library called slot {} of the driver's export table {}, "
                  "which bankcheck's CUDA driver does not implement; it returned "
                  "CUDA_ERROR_NOT_SUPPORTED",
                  Slot, names[TableNo]));
  return CUDA_ERROR_NOT_SUPPORTED;
}

template <int TableNo, std::size_t... Slot>
Table unknown_slots(std::index_sequence<Slot...>) {
  return Table{reinterpret_cast<void*>(&unknown_slot<TableNo, static_cast<int>(Slot)>)...};
}

// A table of `slots` entries: slot 0 its size in bytes, every other slot unknown until set.
template <int TableNo>
Table make_table(std::size_t slots) {
  Table t = unknown_slots<TableNo>(std::make_index_sequence<std::tuple_size_v<Table>>());
  t[0] = reinterpret_cast<void*>(slots * sizeof(void*));
  for (std::size_t i = slots; i < t.size(); ++i) t[i] = nullptr;
  return t;
}

// --- the runtime interface -------------------------------------------------------------------

// Slot 2: the device's primary context, retained (the runtime releases it when it ends).
CUresult primary_context(CUcontext* ctx, CUdevice dev) {
  return cuDevicePrimaryCtxRetain(ctx, dev);
}

// Slots 1, 6 and 8: a module from a registration wrapper or a fat binary. CUDA 13.0's runtimes
// load through cuLibraryLoadData instead; these forms are kept for older ones.
CUresult module_from_wrapper(CUmodule* module, const void* wrapper) {
  return cuModuleLoadFatBinary(module, wrapper);
}
CUresult module_from_wrapper_ex(CUmodule* module, const void* wrapper, void*, void*, unsigned) {
  return cuModuleLoadFatBinary(module, wrapper);
}
CUresult module_from_fatbin_ex(const void* fatbin, CUmodule* module, void*, void*, unsigned) {
  return cuModuleLoadFatBinary(module, fatbin);
}
CUresult runtime_slot7(std::size_t) { return CUDA_SUCCESS; }

// --- tools callbacks: buffers the runtime writes its tool hooks into --------------------------

void callbacks_buffer(void** buffer, std::size_t* size) {
  static std::uintptr_t space[1024];
  *buffer = space;
  *size = sizeof space / sizeof space[0];
}
void callbacks_flags(void** buffer, std::size_t* size) {
  static std::uint8_t space[14];
  *buffer = space;
  *size = sizeof space;
}

Context* context_or_current(Driver& d, CUcontext ctx);

// --- tools storage ------------------------------------------------------------------------------

// Slot 2 (cuBLASLt asks): the calling thread's context, as cuCtxGetCurrent would give it, the
// primary context when the runtime made none current.
CUresult tools_current_context(CUcontext* ctx) {
  return query([&](Driver& d) -> CUresult {
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    *ctx = reinterpret_cast<CUcontext>(d.current());
    return *ctx ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
  });
}

// --- tools' view of contexts ---------------------------------------------------------------------

// Slot 3: a context's device.
CUresult tools_context_device(CUcontext ctx, CUdevice* dev) {
  return query([&](Driver& d) -> CUresult {
    Context* c = context_or_current(d, ctx);
    if (!c || !dev) return c ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_CONTEXT;
    *dev = c->device;
    return CUDA_SUCCESS;
  });
}

// Slot 4 (cuBLASLt keys its per-context state by it): a context's number, as cuCtxGetId.
CUresult tools_context_number(CUcontext ctx, unsigned long long* number) {
  return query([&](Driver& d) -> CUresult {
    Context* c = context_or_current(d, ctx);
    if (!c || !number) return c ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_INVALID_CONTEXT;
    *number = c->id;
    return CUDA_SUCCESS;
  });
}

// Slot 51 (cuBLAS asks, with the stream a call was given): the driver's object for a stream
// handle, the default streams' included; the last argument says the handle is the per-thread
// default stream. Slot 39 then gives that object's number, which cuBLAS keys per-stream
// state by. Both answer from the driver's own streams: the object is the Stream (for the
// default streams, a token of their own) and the number the executor's stream number.
int default_stream_token = 0;
int per_thread_stream_token = 0;

CUresult tools_stream_object(CUcontext, CUstream stream, void** object, int per_thread) {
  return query([&](Driver& d) -> CUresult {
    if (!object) return CUDA_ERROR_INVALID_VALUE;
    if (!d.valid_stream(stream)) return CUDA_ERROR_INVALID_HANDLE;
    if (Stream* s = d.stream(stream))
      *object = s;
    else
      *object = per_thread || stream == CU_STREAM_PER_THREAD ? &per_thread_stream_token
                                                             : &default_stream_token;
    return CUDA_SUCCESS;
  });
}

CUresult tools_stream_number(CUcontext, void* object, unsigned long long* number) {
  return query([&](Driver& d) -> CUresult {
    if (!number) return CUDA_ERROR_INVALID_VALUE;
    if (object == &default_stream_token || object == &per_thread_stream_token) {
      *number = object == &default_stream_token ? 0 : ~0ull;
      return CUDA_SUCCESS;
    }
    auto* s = static_cast<Stream*>(object);
    if (!d.streams.contains(s)) return CUDA_ERROR_INVALID_HANDLE;
    *number = s->number;
    return CUDA_SUCCESS;
  });
}

// --- context-local storage: one value per context and key ------------------------------------

Context* context_or_current(Driver& d, CUcontext ctx) {
  if (ctx) return d.valid_context(ctx) ? reinterpret_cast<Context*>(ctx) : nullptr;
  return d.current();
}

CUresult storage_set(CUcontext ctx, void* key, void* value,
                     void (*destroy)(CUcontext, void*, void*)) {
  return query([&](Driver& d) -> CUresult {
    Context* c = context_or_current(d, ctx);
    if (!c) return CUDA_ERROR_INVALID_CONTEXT;
    c->local_storage[key] = {value, destroy};
    return CUDA_SUCCESS;
  });
}
CUresult storage_remove(CUcontext ctx, void* key) {
  return query([&](Driver& d) -> CUresult {
    Context* c = context_or_current(d, ctx);
    if (!c) return CUDA_ERROR_INVALID_CONTEXT;
    c->local_storage.erase(key);
    return CUDA_SUCCESS;
  });
}
CUresult storage_get(void** value, CUcontext ctx, void* key) {
  return query([&](Driver& d) -> CUresult {
    Context* c = context_or_current(d, ctx);
    if (!c) return CUDA_ERROR_INVALID_CONTEXT;
    const auto it = c->local_storage.find(key);
    if (it == c->local_storage.end()) return CUDA_ERROR_INVALID_HANDLE;
    *value = it->second.value;
    return CUDA_SUCCESS;
  });
}

// --- context checks ----------------------------------------------------------------------------

// Slot 2: a flag the runtime reads after the context changed; 0, and the second answer left
// as the runtime set it.
CUresult context_check(CUcontext, std::uint32_t* flag, void**) {
  if (flag) *flag = 0;
  return CUDA_SUCCESS;
}
// Slot 3: whether the driver wants the runtime's alternative start path (1); it does not.
std::uint32_t context_mode() { return 0; }

// --- integrity ---------------------------------------------------------------------------------

Table& runtime_table();
Table& integrity_table();

CUresult integrity(std::uint32_t code, std::uint64_t timestamp, std::uint8_t* answer) {
  if (!answer) return CUDA_ERROR_INVALID_VALUE;
  Driver& d = Driver::get();
  int version = 0;
  cuDriverGetVersion(&version);
  IntegrityDevice dev;
  dev.uuid = device_uuid(d.device);
  dev.pci_domain = static_cast<std::uint32_t>(
      driver_attribute(d.device, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID).value_or(0));
  dev.pci_bus = static_cast<std::uint32_t>(
      driver_attribute(d.device, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID).value_or(0));
  dev.pci_device = static_cast<std::uint32_t>(
      driver_attribute(d.device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID).value_or(0));
  IntegrityQuestion q;
  q.driver_version = static_cast<std::uint32_t>(version);
  q.code = code;
  q.timestamp = timestamp;
  q.runtime_table = runtime_table().data();
  q.integrity_table = integrity_table().data();
  q.function = reinterpret_cast<const void*>(&integrity);
  q.process = static_cast<std::uint32_t>(::getpid());
  q.thread = static_cast<std::uint32_t>(::pthread_self());
  q.devices = {&dev, 1};
  const std::array<std::uint8_t, 16> a = integrity_answer(q);
  std::memcpy(answer, a.data(), a.size());
  return CUDA_SUCCESS;
}

template <class F>
void* fn(F* f) {
  return reinterpret_cast<void*>(f);
}

Table& runtime_table() {
  static Table t = [] {
    Table t = make_table<0>(10);
    t[1] = fn(module_from_wrapper);
    t[2] = fn(primary_context);
    t[6] = fn(module_from_wrapper_ex);
    t[7] = fn(runtime_slot7);
    t[8] = fn(module_from_fatbin_ex);
    return t;
  }();
  return t;
}

Table& callbacks_table() {
  static Table t = [] {
    Table t = make_table<1>(7);
    t[2] = fn(callbacks_buffer);
    t[6] = fn(callbacks_flags);
    return t;
  }();
  return t;
}

Table& tls_table() {
  static Table t = [] {
    Table t = make_table<2>(4);
    t[2] = fn(tools_current_context);
    return t;
  }();
  return t;
}

// No size in slot 0: the runtime calls every slot of this one.
Table& storage_table() {
  static Table t = [] {
    Table t = make_table<3>(4);
    t[0] = fn(storage_set);
    t[1] = fn(storage_remove);
    t[2] = fn(storage_get);
    return t;
  }();
  return t;
}

Table& checks_table() {
  static Table t = [] {
    Table t = make_table<4>(4);
    t[2] = fn(context_check);
    t[3] = fn(context_mode);
    return t;
  }();
  return t;
}

// As many slots as the driver's own (95, with the size): the runtime checks the size.
Table& tools_context_table() {
  static Table t = [] {
    Table t = make_table<6>(95);
    t[3] = fn(tools_context_device);
    t[4] = fn(tools_context_number);
    t[39] = fn(tools_stream_number);
    t[51] = fn(tools_stream_object);
    return t;
  }();
  return t;
}

Table& integrity_table() {
  static Table t = [] {
    Table t = make_table<5>(2);
    t[1] = fn(integrity);
    return t;
  }();
  return t;
}

}  // namespace

CUresult export_table(const void** table, const CUuuid* id, const void* caller) {
  if (!table || !id) return CUDA_ERROR_INVALID_VALUE;
  *table = nullptr;
  if (kRuntimeInterface == *id) *table = runtime_table().data();
  if (kToolsCallbacks == *id) *table = callbacks_table().data();
  if (kToolsTls == *id) *table = tls_table().data();
  if (kContextStorage == *id) *table = storage_table().data();
  if (kContextChecks == *id) *table = checks_table().data();
  if (kIntegrity == *id) *table = integrity_table().data();
  if (kToolsContext == *id) *table = tools_context_table().data();
  // Any other (f8cff951-2146-8b4e-b9e2-fb469e7c0dd9 among them, whose presence makes the
  // runtime skip its usual start): not found, as for a driver without it. A library that
  // needs one fails in its own words (cuFFT's plans: CUFFT_INTERNAL_ERROR), so the table
  // and the library are named; not the ones whose callers go on as well without them.
  if (*table) return CUDA_SUCCESS;
  if (!(kRuntimeProbe == *id) && !(kNvrtcProbe == *id)) {
    std::string hex;
    for (const unsigned char b : id->bytes) hex += fmt::format("{:02x}", b);
    const CodeOwner who = owner_of(caller);
    diagnose_once("export table " + hex,
                  fmt::format("{} asked for the driver's export table {}, which bankcheck's CUDA "
                              "driver does not have; it returned CUDA_ERROR_NOT_FOUND, and what "
                              "{} does with it cannot run here",
                              who.name.empty() ? "a CUDA library" : who.name, hex,
                              who.name.empty() ? "the library" : who.name));
  }
  return CUDA_ERROR_NOT_FOUND;
}

}  // namespace bankcheck::runtime
