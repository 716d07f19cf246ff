// bankcheck's NVTX injection library (libbankcheck-nvtx.so). When NVTX_INJECTION64_PATH names
// it, the program's NVTX (nvtx3's header-only loader, or libnvToolsExt) loads it on its first
// call and calls InitializeInjectionNvtx2, which fills NVTX's function tables (the core module:
// nvtxRangePush/Pop/Start/End{A,W,Ex}; core2: the domain versions, domain creation, registered
// strings) with the handlers below. They keep what NVTX itself must answer (the nesting level a
// push or pop returns, the ids of start/end ranges, domain and string handles) and pass each
// range on, as text, to the sink the process connected (sink.hpp). Nothing else is hooked:
// marks, categories, names and the CUDA modules stay NVTX's no-ops.
#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "bankcheck/nvtx/sink.hpp"

namespace bankcheck::nvtx {
namespace {

// A domain's handle points at its name; the default domain is the null handle.
struct Domain {
  std::string name;
};
// A registered string's handle points at its text.
struct Registered {
  std::string text;
};

struct State {
  std::shared_mutex mutex;
  bankcheck_nvtx_sink sink{};  // sink.push null: none connected
  std::map<std::string, Domain*, std::less<>> domains;
  std::deque<Domain> domain_store;  // stable addresses: handles never dangle
  std::deque<Registered> string_store;
  std::atomic<std::uint64_t> next_range{1};
};

State& state() {
  static State* s = new State;  // never destroyed: NVTX may be called during exit
  return *s;
}

// The calling thread's open push ranges per domain (NVTX's return values).
thread_local std::unordered_map<const void*, int> depth;

std::string utf8(const wchar_t* w) {
  std::string s;
  if (!w) return s;
  for (; *w; ++w) {
    auto c = static_cast<std::uint32_t>(*w);
    if (c < 0x80) {
      s += static_cast<char>(c);
    } else if (c < 0x800) {
      s += static_cast<char>(0xc0 | (c >> 6));
      s += static_cast<char>(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
      s += static_cast<char>(0xe0 | (c >> 12));
      s += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
      s += static_cast<char>(0x80 | (c & 0x3f));
    } else {
      s += static_cast<char>(0xf0 | ((c >> 18) & 0x07));
      s += static_cast<char>(0x80 | ((c >> 12) & 0x3f));
      s += static_cast<char>(0x80 | ((c >> 6) & 0x3f));
      s += static_cast<char>(0x80 | (c & 0x3f));
    }
  }
  return s;
}

std::string_view domain_name(nvtxDomainHandle_t d) {
  return d ? std::string_view(reinterpret_cast<const Domain*>(d)->name) : std::string_view();
}

std::string message_of(const nvtxEventAttributes_t* a) {
  if (!a) return {};
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return a->message.ascii ? a->message.ascii : "";
    case NVTX_MESSAGE_TYPE_UNICODE:
      return utf8(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED:
      return a->message.registered
                 ? reinterpret_cast<const Registered*>(a->message.registered)->text
                 : std::string();
    default:
      return {};
  }
}

bankcheck_nvtx_sink current_sink() {
  State& s = state();
  std::shared_lock lock(s.mutex);
  return s.sink;
}

int push(nvtxDomainHandle_t domain, std::string_view message) {
  const int level = depth[domain]++;
  const bankcheck_nvtx_sink k = current_sink();
  if (k.push) {
    const std::string_view d = domain_name(domain);
    k.push(k.self, d.data(), d.size(), message.data(), message.size());
  }
  return level;
}

int pop(nvtxDomainHandle_t domain) {
  auto it = depth.find(domain);
  if (it == depth.end() || it->second == 0) return -1;  // NVTX's error: nothing to pop
  const int level = --it->second;
  const bankcheck_nvtx_sink k = current_sink();
  if (k.pop) {
    const std::string_view d = domain_name(domain);
    k.pop(k.self, d.data(), d.size());
  }
  return level;
}

nvtxRangeId_t start(nvtxDomainHandle_t domain, std::string_view message) {
  const nvtxRangeId_t id = state().next_range.fetch_add(1);
  const bankcheck_nvtx_sink k = current_sink();
  if (k.start) {
    const std::string_view d = domain_name(domain);
    k.start(k.self, id, d.data(), d.size(), message.data(), message.size());
  }
  return id;
}

void end(nvtxRangeId_t id) {
  const bankcheck_nvtx_sink k = current_sink();
  if (k.end) k.end(k.self, id);
}

// The handlers NVTX's function tables get.
int NVTX_API push_a(const char* m) { return push(nullptr, m ? m : ""); }
int NVTX_API push_w(const wchar_t* m) { return push(nullptr, utf8(m)); }
int NVTX_API push_ex(const nvtxEventAttributes_t* a) { return push(nullptr, message_of(a)); }
int NVTX_API pop_core() { return pop(nullptr); }
nvtxRangeId_t NVTX_API start_a(const char* m) { return start(nullptr, m ? m : ""); }
nvtxRangeId_t NVTX_API start_w(const wchar_t* m) { return start(nullptr, utf8(m)); }
nvtxRangeId_t NVTX_API start_ex(const nvtxEventAttributes_t* a) {
  return start(nullptr, message_of(a));
}
void NVTX_API end_core(nvtxRangeId_t id) { end(id); }

int NVTX_API domain_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  return push(d, message_of(a));
}
int NVTX_API domain_pop(nvtxDomainHandle_t d) { return pop(d); }
nvtxRangeId_t NVTX_API domain_start(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  return start(d, message_of(a));
}
void NVTX_API domain_end(nvtxDomainHandle_t, nvtxRangeId_t id) { end(id); }

// One handle per name: a domain created twice is the same domain.
nvtxDomainHandle_t create_domain(std::string name) {
  State& s = state();
  std::unique_lock lock(s.mutex);
  auto it = s.domains.find(name);
  if (it == s.domains.end()) {
    s.domain_store.push_back(Domain{name});
    it = s.domains.emplace(std::move(name), &s.domain_store.back()).first;
  }
  return reinterpret_cast<nvtxDomainHandle_t>(it->second);
}
nvtxDomainHandle_t NVTX_API domain_create_a(const char* name) {
  return create_domain(name ? name : "");
}
nvtxDomainHandle_t NVTX_API domain_create_w(const wchar_t* name) {
  return create_domain(utf8(name));
}
// Handles stay valid after a domain's destruction: a range still open in it can be popped.
void NVTX_API domain_destroy(nvtxDomainHandle_t) {}

nvtxStringHandle_t register_string(std::string text) {
  State& s = state();
  std::unique_lock lock(s.mutex);
  s.string_store.push_back(Registered{std::move(text)});
  return reinterpret_cast<nvtxStringHandle_t>(&s.string_store.back());
}
nvtxStringHandle_t NVTX_API register_a(nvtxDomainHandle_t, const char* text) {
  return register_string(text ? text : "");
}
nvtxStringHandle_t NVTX_API register_w(nvtxDomainHandle_t, const wchar_t* text) {
  return register_string(utf8(text));
}
void NVTX_API initialize(const void*) {}

template <class F>
void set(NvtxFunctionTable table, unsigned size, unsigned id, F fn) {
  if (id < size && table[id]) *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
}

bool fill(const NvtxExportTableCallbacks* callbacks) {
  NvtxFunctionTable table = nullptr;
  unsigned size = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) || !table)
    return false;
  set(table, size, NVTX_CBID_CORE_RangePushA, &push_a);
  set(table, size, NVTX_CBID_CORE_RangePushW, &push_w);
  set(table, size, NVTX_CBID_CORE_RangePushEx, &push_ex);
  set(table, size, NVTX_CBID_CORE_RangePop, &pop_core);
  set(table, size, NVTX_CBID_CORE_RangeStartA, &start_a);
  set(table, size, NVTX_CBID_CORE_RangeStartW, &start_w);
  set(table, size, NVTX_CBID_CORE_RangeStartEx, &start_ex);
  set(table, size, NVTX_CBID_CORE_RangeEnd, &end_core);
  table = nullptr;
  size = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size) || !table)
    return false;
  set(table, size, NVTX_CBID_CORE2_DomainRangePushEx, &domain_push);
  set(table, size, NVTX_CBID_CORE2_DomainRangePop, &domain_pop);
  set(table, size, NVTX_CBID_CORE2_DomainRangeStartEx, &domain_start);
  set(table, size, NVTX_CBID_CORE2_DomainRangeEnd, &domain_end);
  set(table, size, NVTX_CBID_CORE2_DomainCreateA, &domain_create_a);
  set(table, size, NVTX_CBID_CORE2_DomainCreateW, &domain_create_w);
  set(table, size, NVTX_CBID_CORE2_DomainDestroy, &domain_destroy);
  set(table, size, NVTX_CBID_CORE2_DomainRegisterStringA, &register_a);
  set(table, size, NVTX_CBID_CORE2_DomainRegisterStringW, &register_w);
  set(table, size, NVTX_CBID_CORE2_Initialize, &initialize);
  return true;
}

}  // namespace
}  // namespace bankcheck::nvtx

extern "C" {

// NVTX's entry point: 1 when the tables are filled (NVTX then calls the handlers), 0 to make
// every NVTX call a no-op.
__attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  if (!get_export_table) return 0;
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (!callbacks || callbacks->struct_size < sizeof(NvtxExportTableCallbacks)) return 0;
  return bankcheck::nvtx::fill(callbacks) ? 1 : 0;
}

__attribute__((visibility("default"))) int bankcheck_nvtx_set_sink(
    const bankcheck::nvtx::bankcheck_nvtx_sink* sink) {
  using namespace bankcheck::nvtx;
  State& s = state();
  std::unique_lock lock(s.mutex);
  s.sink = sink && sink->version == kSinkVersion ? *sink : bankcheck_nvtx_sink{};
  return static_cast<int>(kSinkVersion);
}

}  // extern "C"
