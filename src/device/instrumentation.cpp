// The GPU backend's instrumentation decisions (instrumentation.hpp).
#include "bankcheck/device/instrumentation.hpp"

#include <fmt/format.h>

#include <algorithm>
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

std::string Instrumentation::prepare(Handle module, bool analysed, bool no_wait) {
  const auto it = modules_.find(module);
  if (it == modules_.end()) return "";  // not seen loaded: begin() makes it known
  Module& m = it->second;
  if (analysed) return m.patched ? "" : patch(m, module);
  if (!m.patched || m.unpatchable || no_wait) return "";
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
    const unsigned shards = std::max(1u, s.shards);
    const std::size_t counter_bytes = sizeof(PcCounter) * s.capacity * shards;
    // The exits per shard (none with one shard: the record's own).
    const std::size_t exit_bytes =
        shards > 1 ? sizeof(unsigned long long) * kExitStride * shards : 0;
    const std::size_t table_bytes = counter_bytes + exit_bytes;
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
    t->record.shards = shards;
    t->record.probe = s.probe;
    t->record.exits =
        exit_bytes
            ? reinterpret_cast<unsigned long long*>(base + sizeof(LaunchRecord) + counter_bytes)
            : nullptr;
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
    // Not inside a graph's launch, where nothing waits.
    const bool check = options_.check_written && !l.graph_node;
    if (e.empty() && check) e = written(*t, l.stream);
    if (!e.empty()) {
      t->retired = true;  // never given to a launch
      error = "cannot write its counter table: " + e;
      return nullptr;
    }
    t->init_stream = l.stream;
    t->initialized = check;
    live_[l.function] = t;
    m.tables.push_back(t);
    say(fmt::format("table for {} ({} counters x {} shards, {} bytes)", l.mangled, s.capacity,
                    shards, bytes));
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
  unread_ = true;
  t->expected_threads += l.threads;
  t->in_flight.insert(l.stream);
  t->last_stream = l.stream;
  t->dirty = true;
  m.in_flight.insert(l.stream);
  return t;
}

// The sanitizer's copies on a stream are not always done before a launch made on it after
// them (seen on an H200 with several processes on the GPU: a launch that read the table before
// its writing, the record then written over its counts). The table is waited for, and read
// back until it is as written, before any launch is given it: once per kernel.
std::string Instrumentation::written(KernelTable& t, Handle stream) {
  const std::size_t bytes = t.read_bytes + t.forms.size();
  std::vector<unsigned char> back(bytes);
  std::string e;
  for (int attempt = 0; attempt < 4; ++attempt) {
    const double t0 = now();
    e = api_.synchronize(stream);
    if (e.empty() && attempt > 0) e = api_.synchronize(nullptr);
    ++stats_.waits;
    stats_.wait_s += now() - t0;
    if (e.empty()) e = api_.to_host(back.data(), t.device, bytes, stream);
    if (!e.empty()) return e;
    const unsigned char* counters = back.data() + sizeof(LaunchRecord);
    const unsigned char* counters_end = back.data() + t.read_bytes;
    const bool as_written =
        std::memcmp(back.data(), &t.record, sizeof(LaunchRecord)) == 0 &&
        std::all_of(counters, counters_end, [](unsigned char c) { return c == 0; }) &&
        (t.forms.empty() ||
         std::memcmp(back.data() + t.read_bytes, t.forms.data(), t.forms.size()) == 0);
    say(fmt::format("table for {} written: {} (attempt {})", t.mangled,
                    as_written ? "as written" : "NOT as written yet", attempt + 1));
    if (as_written) return "";
  }
  return "it was not on the GPU as written after waiting for it";
}

void Instrumentation::begin_unanalysed(const Launch& l) {
  // Unpatched only now, the launch may already have taken the patched code: no table either.
  if (patched(l.module) || unpatched_now_ == l.module)
    api_.set_launch_data(l.handle, l.function, l.stream, nullptr);
  unpatched_now_ = nullptr;
}

void Instrumentation::abandon(KernelTable& t, std::uint64_t threads) {
  if (t.launches) --t.launches;
  t.expected_threads -= std::min(t.expected_threads, threads);
  t.dirty = true;
  say(fmt::format("launch of {} abandoned: {} threads no longer expected", t.mangled, threads));
}

bool Instrumentation::any_unpatched() const {
  for (const auto& [h, m] : modules_)
    if (!m.patched && m.patch_error.empty()) return true;
  return false;
}

void Instrumentation::read(KernelTable& t, Handle stream, const char* why) {
  std::vector<unsigned char> bytes(t.read_bytes);
  const double t0 = now();
  t.last_try_s = t0;
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
  // The shards' counters of one instruction added up (the first claim's description kept).
  KernelCounts slots_used;
  const std::size_t slots = std::size_t{t.record.capacity} * std::max(1u, t.record.shards);
  for (std::size_t i = 0; i < slots; ++i) {
    PcCounter c;
    std::memcpy(&c, bytes.data() + sizeof(LaunchRecord) + i * sizeof(PcCounter), sizeof c);
    if (c.pc) slots_used.counters.push_back(c);
  }
  KernelCounts used;
  merge_counts(used, slots_used);
  t.counts.counters = std::move(used.counters);
  std::uint64_t exited = back.exited;
  if (t.record.exits) {
    const std::size_t exits_at = sizeof(LaunchRecord) + slots * sizeof(PcCounter);
    for (unsigned s = 0; s < t.record.shards; ++s) {
      unsigned long long n = 0;
      std::memcpy(&n, bytes.data() + exits_at + std::size_t{s} * kExitStride * sizeof n, sizeof n);
      exited += n;
    }
  }
  t.exited_threads = exited;
  t.overflowed = back.overflowed;
  t.read_launches = t.launches;
  t.read_expected = t.expected_threads;
  t.read = true;
  // A read that did not see every thread's exit is tried again at the next occasion (a later
  // synchronization, the module's unloading, the exit): it may have come too early.
  t.dirty = t.exits_known && t.exited_threads < t.expected_threads;
  t.unreadable.clear();
  t.last_read_s = now();
  // The record as the GPU has it (written before the first launch): a capacity or pc other
  // than the one written says the writing had not landed when a launch read it.
  const bool as_written = back.capacity == t.record.capacity && back.base_pc == t.record.base_pc &&
                          back.counters == t.record.counters;
  say(fmt::format("read {} ({}): {} launches, {} of {} threads, {} counters, record {}, {:.6f} s",
                  t.mangled, why, t.launches, t.exited_threads, t.expected_threads,
                  t.counts.counters.size(), as_written ? "as written" : "NOT as written", took));
}

void Instrumentation::read_quiet(Handle context, Handle stream, bool whole_context) {
  const double at = now();
  for (auto& [f, t] : live_) {
    if ((context && t->context != context) || !t->dirty || !t->in_flight.empty()) continue;
    if (at - t->last_read_s < options_.read_interval_s) continue;
    read(*t, whole_context ? t->last_stream : stream,
         whole_context ? "context synchronized" : "stream synchronized");
  }
}

void Instrumentation::stream_synchronized(Handle context, Handle stream) {
  finished(stream);
  read_quiet(context, stream, false);
}

bool Instrumentation::read_launched(double min_age_s) {
  if (!unread_) return false;  // the common case: nothing analysed since the last look
  const double at = now();
  bool left = false, any = false;
  for (auto& [f, t] : live_) {
    // Not again for a read that saw every launch but not every exit (the program's next
    // synchronization or its exit tries again): no launch waits for that.
    if (!t->dirty || (t->read && t->read_launches == t->launches)) continue;
    if (at - t->last_try_s < min_age_s) {
      left = true;
      continue;
    }
    t->last_try_s = at;
    // Read on a stream its launches ran on, once the others are known finished (a read on the
    // NULL stream would wait for every blocking stream's work).
    Handle on = t->in_flight.empty() ? t->last_stream : *t->in_flight.begin();
    if (t->in_flight.size() > 1) {
      std::set<Handle> others = t->in_flight;
      others.erase(on);
      wait_for(others);
      if (t->in_flight.size() > 1) continue;  // a wait failed: read at a later occasion
    }
    read(*t, on, "launched before");
    any = true;
    if (t->read && t->unreadable.empty()) finished(on);
  }
  unread_ = left;
  return any;
}

void Instrumentation::context_synchronized(Handle context) {
  for (auto& [h, m] : modules_)
    if (!context || m.context == context) m.in_flight.clear();
  for (KernelTable& t : tables_)
    if (!context || t.context == context) {
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
  for (KernelTable& t : tables_)
    if (t.last_stream == stream) t.last_stream = nullptr;
}

void Instrumentation::read_last(KernelTable& t, const char* why) {
  // A read that saw every launch but not every thread's exit may have come before the launches
  // ended: their stream is waited for this time.
  if (t.read && t.read_launches == t.launches && t.in_flight.empty()) wait_for({t.last_stream});
  read(t, t.last_stream, why);
}

void Instrumentation::module_unloading(Handle module) {
  const auto it = modules_.find(module);
  if (it == modules_.end()) return;
  Module& m = it->second;
  if (!m.in_flight.empty()) wait_for(m.in_flight);
  for (KernelTable* t : m.tables) {
    if (t->dirty || !t->read) read_last(*t, "module unloading");
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
      if (t->dirty || !t->read) read_last(*t, "exit");
  }
}

}  // namespace bankcheck::device
