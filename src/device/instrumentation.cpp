// The GPU backend's instrumentation decisions (instrumentation.hpp).
#include "bankcheck/device/instrumentation.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <utility>

namespace bankcheck::device {

bool KernelTable::complete() const {
  return read && read_launches == launches && read_expected == expected_threads &&
         (!exits_known || exited_threads == expected_threads);
}

std::string KernelTable::incomplete_reason() const {
  if (!read)
    return "its counters could not be read back" +
           (unreadable.empty() ? "" : " (" + unreadable + ")");
  if (read_launches < launches)
    return fmt::format(
        "{} of its {} analysed launches had not finished when its counters were last read{}",
        launches - read_launches, launches, unreadable.empty() ? "" : " (" + unreadable + ")");
  if (!exits_known) return "";
  if (exited_threads < expected_threads)
    return fmt::format(
        "{} of the {} threads of its analysed launches were counted to their exit: the others "
        "ran before bankcheck's instrumentation was in place or had not finished",
        exited_threads, expected_threads);
  if (exited_threads > expected_threads)
    return fmt::format("{} thread exits were counted for the {} threads of its analysed launches",
                       exited_threads, expected_threads);
  return "";
}

Instrumentation::Instrumentation(DeviceApi& api, Options options,
                                 std::function<void(const std::string&)> trace,
                                 std::function<double()> clock)
    : api_(api), options_(options), trace_(std::move(trace)), clock_(std::move(clock)) {}

double Instrumentation::now() const {
  if (clock_) return clock_();
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

void Instrumentation::say(const std::string& line) const {
  if (trace_) trace_(line);
}

std::string Instrumentation::patch(Module& m, Handle module) {
  if (!m.patch_error.empty()) return m.patch_error;
  if (!contexts_.count(m.context)) {
    if (auto e = context_errors_.find(m.context); e != context_errors_.end()) {
      m.patch_error = e->second;
      return m.patch_error;
    }
    if (std::string e = api_.load_patches(m.context); !e.empty()) {
      context_errors_[m.context] = "cannot load bankcheck's device functions: " + e;
      m.patch_error = context_errors_[m.context];
      return m.patch_error;
    }
    contexts_.insert(m.context);
  }
  const double t0 = now();
  if (std::string e = api_.patch(module); !e.empty()) {
    m.patch_error = "cannot patch the module: " + e;
    say(fmt::format("patch module {} failed: {}", module, e));
    return m.patch_error;
  }
  const double t = now() - t0;
  m.patched = true;
  ++stats_.patches;
  stats_.patch_s += t;
  say(fmt::format("patch module {} ({:.6f} s)", module, t));
  return "";
}

std::string Instrumentation::module_loaded(Handle context, Handle module) {
  Module& m = modules_[module];
  m = Module{};
  m.context = context;
  return patch(m, module);
}

bool Instrumentation::patched(Handle module) const {
  const auto it = modules_.find(module);
  return it != modules_.end() && it->second.patched;
}

void Instrumentation::finished(Handle stream) {
  for (auto& [h, m] : modules_) m.in_flight.erase(stream);
  for (KernelTable& t : tables_) {
    t.in_flight.erase(stream);
    if (t.init_stream == stream) t.initialized = true;
  }
}

void Instrumentation::wait_for(const std::set<Handle>& streams) {
  for (Handle s : std::set<Handle>(streams)) {
    const double t0 = now();
    const std::string e = api_.synchronize(s);
    const double t = now() - t0;
    ++stats_.waits;
    stats_.wait_s += t;
    say(fmt::format("wait for stream {} ({:.6f} s){}", s, t, e.empty() ? "" : ": " + e));
    if (e.empty()) finished(s);
  }
}

std::string Instrumentation::prepare(Handle module, bool analysed, bool graph_node) {
  const auto it = modules_.find(module);
  if (it == modules_.end()) return "";  // not seen loaded: begin() makes it known
  Module& m = it->second;
  if (analysed) return m.patched ? "" : patch(m, module);
  if (!m.patched || m.unpatchable || graph_node) return "";
  // The instrumented launches still running finish on the patched code first.
  if (!m.in_flight.empty()) wait_for(m.in_flight);
  if (!m.in_flight.empty()) {
    say(fmt::format("module {} stays patched: its instrumented launches could not be waited for",
                    module));
    return "";
  }
  const double t0 = now();
  if (std::string e = api_.unpatch(module); !e.empty()) {
    m.unpatchable = true;
    say(fmt::format("unpatch module {} failed: {}; it stays patched", module, e));
    return "cannot remove bankcheck's patches from a module: " + e;
  }
  const double t = now() - t0;
  m.patched = false;
  unpatched_now_ = module;
  ++stats_.unpatches;
  stats_.unpatch_s += t;
  say(fmt::format("unpatch module {} ({:.6f} s)", module, t));
  return "";
}

KernelTable* Instrumentation::begin(const Launch& l, const std::function<TableSetup()>& setup,
                                    std::string& error) {
  Module& m = modules_[l.module];
  if (!m.context) m.context = l.context;
  if (!m.patched) {
    if (std::string e = prepare(l.module, true, l.graph_node); !e.empty() || !m.patched) {
      error = e.empty() ? "its module could not be patched" : e;
      return nullptr;
    }
  }
  unpatched_now_ = nullptr;
  KernelTable* t = nullptr;
  if (const auto it = live_.find(l.function); it != live_.end()) {
    t = it->second;
  } else {
    const TableSetup s = setup();
    KernelTable made;
    made.context = l.context;
    made.module = l.module;
    made.function = l.function;
    made.mangled = l.mangled;
    std::uint64_t pc = 0;
    if (std::string e = api_.function_pc(l.module, l.mangled, pc); !e.empty()) {
      error = "cannot find its code: " + e;
      return nullptr;
    }
    const std::size_t table_bytes = sizeof(PcCounter) * s.capacity;
    made.read_bytes = sizeof(LaunchRecord) + table_bytes;
    const std::size_t bytes = made.read_bytes + s.forms.size();
    if (std::string e = api_.alloc(l.context, bytes, made.device); !e.empty()) {
      error = fmt::format("cannot allocate {} bytes of GPU memory for its counters: {}", bytes, e);
      return nullptr;
    }
    tables_.push_back(std::move(made));
    t = &tables_.back();
    t->forms = s.forms;
    auto* base = static_cast<unsigned char*>(t->device);
    t->record.counters = reinterpret_cast<PcCounter*>(base + sizeof(LaunchRecord));
    t->record.capacity = s.capacity;
    t->record.base_pc = pc;
    t->record.forms = t->forms.empty() ? nullptr : base + t->read_bytes;
    t->record.forms_count = static_cast<unsigned>(t->forms.size());
    t->record.arch = s.arch;
    t->counts.mangled = t->mangled;
    t->counts.base_pc = pc;
    // Written on the launch's stream, before it: zeros, the forms, the record.
    std::string e = api_.zero(base + sizeof(LaunchRecord), table_bytes, l.stream);
    if (e.empty() && !t->forms.empty())
      e = api_.to_device(base + t->read_bytes, t->forms.data(), t->forms.size(), l.stream);
    if (e.empty()) e = api_.to_device(base, &t->record, sizeof(LaunchRecord), l.stream);
    if (!e.empty()) {
      t->retired = true;  // never given to a launch
      error = "cannot write its counter table: " + e;
      return nullptr;
    }
    t->init_stream = l.stream;
    live_[l.function] = t;
    m.tables.push_back(t);
    say(fmt::format("table for {} ({} counters, {} bytes)", l.mangled, s.capacity, bytes));
  }
  t->exits_known = t->exits_known && api_.exits_counted(l.module);
  // The table is written on its first launch's stream: a launch on another stream waits for it.
  if (!t->initialized && l.stream != t->init_stream) {
    wait_for({t->init_stream});
    t->initialized = true;
  }
  if (std::string e = api_.set_launch_data(l.handle, l.function, l.stream, t->device); !e.empty()) {
    error = "cannot give the launch its counters: " + e;
    return nullptr;
  }
  ++t->launches;
  t->expected_threads += l.threads;
  t->in_flight.insert(l.stream);
  t->dirty = true;
  m.in_flight.insert(l.stream);
  return t;
}

void Instrumentation::begin_unanalysed(const Launch& l) {
  // Unpatched only now, the launch may already have taken the patched code: no table either.
  if (patched(l.module) || unpatched_now_ == l.module)
    api_.set_launch_data(l.handle, l.function, l.stream, nullptr);
  unpatched_now_ = nullptr;
}

bool Instrumentation::any_unpatched() const {
  for (const auto& [h, m] : modules_)
    if (!m.patched && m.patch_error.empty()) return true;
  return false;
}

void Instrumentation::read(KernelTable& t, Handle stream, const char* why) {
  std::vector<unsigned char> bytes(t.read_bytes);
  const double t0 = now();
  const std::string e = api_.to_host(bytes.data(), t.device, bytes.size(), stream);
  const double took = now() - t0;
  ++stats_.reads;
  stats_.read_s += took;
  if (!e.empty()) {
    t.unreadable = e;
    say(fmt::format("read {} ({}) failed: {}", t.mangled, why, e));
    return;
  }
  LaunchRecord back;
  std::memcpy(&back, bytes.data(), sizeof back);
  std::vector<PcCounter> used;
  for (std::size_t i = 0; i < t.record.capacity; ++i) {
    PcCounter c;
    std::memcpy(&c, bytes.data() + sizeof(LaunchRecord) + i * sizeof(PcCounter), sizeof c);
    if (c.pc) used.push_back(c);
  }
  t.counts.counters = std::move(used);
  t.exited_threads = back.exited;
  t.overflowed = back.overflowed;
  t.read_launches = t.launches;
  t.read_expected = t.expected_threads;
  t.read = true;
  t.dirty = false;
  t.unreadable.clear();
  t.last_read_s = now();
  say(fmt::format("read {} ({}): {} launches, {} of {} threads, {:.6f} s", t.mangled, why,
                  t.launches, t.exited_threads, t.expected_threads, took));
}

void Instrumentation::read_quiet(Handle context, Handle stream, bool whole_context) {
  const double at = now();
  for (auto& [f, t] : live_) {
    if (t->context != context || !t->dirty || !t->in_flight.empty()) continue;
    if (at - t->last_read_s < options_.read_interval_s) continue;
    read(*t, whole_context ? nullptr : stream,
         whole_context ? "context synchronized" : "stream synchronized");
  }
}

void Instrumentation::stream_synchronized(Handle context, Handle stream) {
  finished(stream);
  read_quiet(context, stream, false);
}

void Instrumentation::context_synchronized(Handle context) {
  for (auto& [h, m] : modules_)
    if (m.context == context) m.in_flight.clear();
  for (KernelTable& t : tables_)
    if (t.context == context) {
      t.in_flight.clear();
      t.initialized = true;
    }
  read_quiet(context, nullptr, true);
}

void Instrumentation::stream_destroying(Handle stream) {
  bool busy = false;
  for (const auto& [h, m] : modules_) busy = busy || m.in_flight.count(stream);
  for (const KernelTable& t : tables_) busy = busy || (!t.initialized && t.init_stream == stream);
  if (busy) wait_for({stream});
  finished(stream);  // its handle is not used again, whatever the wait said
}

void Instrumentation::module_unloading(Handle module) {
  const auto it = modules_.find(module);
  if (it == modules_.end()) return;
  Module& m = it->second;
  if (!m.in_flight.empty()) wait_for(m.in_flight);
  for (KernelTable* t : m.tables) {
    if (t->dirty || !t->read) read(*t, nullptr, "module unloading");
    t->retired = true;
    live_.erase(t->function);
  }
  modules_.erase(it);
}

void Instrumentation::context_destroying(Handle context) {
  std::vector<Handle> gone;
  for (const auto& [h, m] : modules_)
    if (m.context == context) gone.push_back(h);
  for (Handle h : gone) module_unloading(h);
  contexts_.erase(context);
  context_errors_.erase(context);
}

void Instrumentation::finish() {
  for (auto& [h, m] : modules_) {
    if (!m.in_flight.empty()) wait_for(m.in_flight);
    for (KernelTable* t : m.tables)
      if (t->dirty || !t->read) read(*t, nullptr, "exit");
  }
}

}  // namespace bankcheck::device
