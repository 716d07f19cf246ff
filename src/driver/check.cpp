// The check engine: input -> PTX -> program, kernel selection, argument binding, CTA
// selection, parallel emulation, report.
#include "bankcheck/driver/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <thread>

#include "bankcheck/analysis/site_stats.hpp"

namespace bankcheck::driver {
namespace {

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw DriverError(fmt::format("{}: cannot read '{}'", what, path));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Parameter types from a demangled signature: "reduce(float const*, float*, int)".
std::vector<std::string> signature_params(const std::string& sig) {
  std::vector<std::string> out;
  const auto open = sig.find('(');
  if (open == std::string::npos) return out;
  int depth = 0;
  std::string cur;
  for (size_t i = open + 1; i < sig.size(); ++i) {
    const char c = sig[i];
    if (c == '(' || c == '<') ++depth;
    if ((c == ')' || c == '>') && depth > 0) {
      --depth;
      cur += c;
      continue;
    }
    if (c == ')' && depth == 0) break;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!cur.empty() && cur != "void") out.push_back(cur);
  for (auto& p : out) {
    while (!p.empty() && p.front() == ' ') p.erase(p.begin());
    while (!p.empty() && p.back() == ' ') p.pop_back();
  }
  return out;
}

int pointee_size(const std::string& type) {
  if (type.find("double") != std::string::npos || type.find("long") != std::string::npos) return 8;
  if (type.find("short") != std::string::npos || type.find("half") != std::string::npos) return 2;
  if (type.find("char") != std::string::npos || type.find("bool") != std::string::npos) return 1;
  if (type.find("float4") != std::string::npos || type.find("int4") != std::string::npos) return 4;
  return 4;
}

// The default sample: first, last, then the midpoints of the largest gaps, so that
// stopping anywhere leaves CTAs spread over the grid.
std::vector<std::uint64_t> sample_order(std::uint64_t total) {
  std::vector<std::uint64_t> order;
  if (total == 0) return order;
  order.push_back(0);
  if (total > 1) order.push_back(total - 1);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> gaps = {{0, total - 1}};
  while (order.size() < total && order.size() < 4096) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> next;
    bool added = false;
    for (auto [a, b] : gaps) {
      if (b - a < 2) continue;
      const std::uint64_t m = a + (b - a) / 2;
      order.push_back(m);
      added = true;
      next.push_back({a, m});
      next.push_back({m, b});
      if (order.size() >= total || order.size() >= 4096) break;
    }
    if (!added) break;
    gaps = std::move(next);
  }
  return order;
}

emu::Dim3 to_emu(const Dim3& d) { return {d.x, d.y, d.z}; }

}  // namespace

Loaded load(const CheckOptions& o) {
  Loaded l;
  l.input = o.input;
  std::string ptx_text;
  if (ends_with(o.input, ".ptx")) {
    ptx_text = read_file(o.input, "check");
  } else {
    NvccOptions n = o.nvcc;
    n.input = o.input;
    n.arch = o.arch;
    l.source_text = read_file(o.input, "check");
    l.comments = parse_launch_comments(l.source_text, o.input);
    ptx_text = compile_to_ptx(n);
  }
  l.ptx_text = ptx_text;
  l.module =
      ptx::parse(ptx_text, ends_with(o.input, ".ptx") ? o.input : o.input + " (PTX from nvcc)");
  l.program = ptx::decode(l.module, o.input, ends_with(o.input, ".ptx") ? "" : o.input);
  if (!l.comments.empty()) {
    std::vector<std::string> names;
    for (const auto& k : l.program.kernels) names.push_back(k.name);
    check_comment_kernels(l.comments, names, o.input);
  }
  return l;
}

std::vector<std::pair<const ptx::Kernel*, LaunchSettings>> select_kernels(const Loaded& l,
                                                                          const CheckOptions& o) {
  std::vector<std::pair<const ptx::Kernel*, LaunchSettings>> out;
  const auto& ks = l.program.kernels;
  auto list = [&]() {
    std::string s;
    for (const auto& k : ks) s += "\n  " + demangle(k.name);
    return s;
  };
  if (ks.empty()) throw DriverError(fmt::format("{}: no kernel (.entry) in the program", o.input));
  auto settings_for = [&](const ptx::Kernel& k) {
    LaunchSettings comment;
    if (auto c = comment_for_kernel(l.comments, k.name, ks.size(), o.input)) comment = *c;
    return merge(o.flags, comment);
  };
  if (o.flags.kernel) {
    for (const auto& k : ks)
      if (kernel_matches(k.name, *o.flags.kernel)) out.push_back({&k, settings_for(k)});
    if (out.empty())
      throw DriverError(fmt::format("--kernel: no kernel named '{}'; the kernels are:{}",
                                    *o.flags.kernel, list()));
    if (out.size() > 1)
      throw DriverError(
          fmt::format("--kernel: '{}' names several kernels; give the full signature:{}",
                      *o.flags.kernel, list()));
    return out;
  }
  for (const auto& k : ks) {
    const auto c = comment_for_kernel(l.comments, k.name, ks.size(), o.input);
    if (c) out.push_back({&k, merge(o.flags, *c)});
  }
  if (!out.empty()) return out;
  if (ks.size() == 1) return {{&ks[0], settings_for(ks[0])}};
  throw DriverError(
      fmt::format("{}: {} kernels and no --kernel or launch comment to choose; the kernels are:{}",
                  o.input, ks.size(), list()));
}

KernelRun run_kernel(const Loaded& l, const ptx::Kernel& k, const LaunchSettings& s,
                     const model::Arch& arch, const CheckOptions& o) {
  KernelRun run;
  run.memory = std::make_unique<emu::GlobalMemory>();
  auto& mem = *run.memory;
  auto& rep = run.report;
  rep.mangled = k.name;
  rep.signature = demangle(k.name);
  rep.name = base_name(rep.signature);
  const std::string where = s.line ? fmt::format("{}:{}", o.input, s.line) : std::string("flags");
  if (!s.grid || !s.block)
    throw DriverError(
        fmt::format("kernel {}: no launch configuration: give --grid and --block, or a comment "
                    "'// bankcheck: kernel={} grid=X,Y block=X,Y' in the source",
                    rep.name, rep.name));
  emu::Launch launch;
  launch.grid = to_emu(*s.grid);
  launch.block = to_emu(*s.block);
  launch.dynamic_smem = s.smem.value_or(0);
  launch.budget = o.budget;
  rep.grid = launch.grid;
  rep.block = launch.block;
  rep.dynamic_smem = launch.dynamic_smem;
  rep.static_smem = k.static_shared_bytes;
  if (launch.block.count() > 1024)
    throw DriverError(
        fmt::format("{}: a block of {} threads (at most 1024)", where, launch.block.count()));
  if (k.dynamic_shared_offset + launch.dynamic_smem > 227 * 1024)
    throw DriverError(
        fmt::format("{}: {} bytes of shared memory per block (at most 232448 on sm_90)", where,
                    k.dynamic_shared_offset + launch.dynamic_smem));

  // Module variables.
  for (const auto& g : l.program.globals) {
    mem.add(g.name, g.bytes, g.address);
    if (!g.init.empty()) {
      auto* b = mem.find(g.address, 1);
      std::memcpy(b->data(), g.init.data(), std::min<std::uint64_t>(g.init.size(), b->size));
    }
  }
  // Arguments.
  auto names = kernel_param_names(l.source_text, rep.name);
  if (names.size() != k.params.size()) names.clear();  // not this kernel's declaration
  const auto types = signature_params(rep.signature);
  launch.params.assign(static_cast<size_t>(k.param_bytes), 0);
  std::vector<bool> used(s.args.size(), false);
  // splitmix64: a fast, well-mixed generator; a 1 GiB buffer fills in about a second.
  std::uint64_t rng_state = 12345;
  auto rng = [&rng_state]() {
    std::uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  // A value in [0, n) from the high bits, without a division.
  auto below = [](std::uint64_t r, std::uint64_t n) {
    return ((r >> 32) * n) >> 32;  // n < 2^32
  };
  for (size_t i = 0; i < k.params.size(); ++i) {
    const auto& p = k.params[i];
    analysis::ArgReport ar;
    ar.name = i < names.size() && !names[i].empty() ? names[i] : fmt::format("p{}", i);
    const std::string type = i < types.size() ? types[i] : "";
    const bool pointer = type.empty() ? p.is_pointer_sized : type.find('*') != std::string::npos;
    std::optional<std::string> value;
    for (size_t a = 0; a < s.args.size(); ++a)
      if (s.args[a].first == ar.name || s.args[a].first == fmt::format("p{}", i)) {
        value = s.args[a].second;
        used[a] = true;
      }
    const std::string arg_where = s.line ? fmt::format("{}:{}: arg {}", o.input, s.line, ar.name)
                                         : fmt::format("--arg {}", ar.name);
    std::uint8_t* slot = launch.params.data() + p.offset;
    if (pointer) {
      ArgValue v;
      if (value) {
        v = parse_arg_value(*value, arg_where);
        if (v.kind != ArgValue::Kind::Buffer)
          throw DriverError(
              fmt::format("{}: '{}' is a pointer ({}): give zeros, random, iota[:BYTES] or @FILE",
                          arg_where, *value, type.empty() ? "64-bit parameter" : type));
      } else {
        v.kind = ArgValue::Kind::Buffer;
        v.fill = ArgValue::Fill::Zeros;
        ar.defaulted = true;
      }
      std::vector<std::uint8_t> file_bytes;
      std::uint64_t bytes = v.bytes.value_or(0);
      if (v.fill == ArgValue::Fill::File) {
        const std::string data = read_file(v.path, arg_where);
        file_bytes.assign(data.begin(), data.end());
        if (!v.bytes) bytes = file_bytes.size();
      }
      if (bytes == 0) bytes = 1ull << 30;  // a lazily zeroed 1 GiB: only touched pages cost
      const std::uint64_t base = mem.add(ar.name, bytes);
      auto* b = mem.find(base, 1);
      const int es = pointee_size(type);
      if (v.fill == ArgValue::Fill::Random) {
        const bool is_float =
            type.find("float") != std::string::npos || type.find("double") != std::string::npos;
        // Chunks of 1M elements, each from its own seed, filled on all cores: the same
        // bytes whatever the number of threads.
        const std::uint64_t n = bytes / static_cast<std::uint64_t>(es);
        std::uint8_t* data = b->data();  // calloc'd: aligned for any element type
        constexpr std::uint64_t kChunk = 1u << 20;
        const std::uint64_t chunks = (n + kChunk - 1) / kChunk;
        const std::uint64_t seed = rng();
        std::atomic<std::uint64_t> next_chunk{0};
        auto fill = [&]() {
          for (std::uint64_t c; (c = next_chunk.fetch_add(1)) < chunks;) {
            std::uint64_t state = seed ^ (c * 0xD1B54A32D192ED03ull);
            auto gen = [&state]() {
              std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
              z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
              z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
              return z ^ (z >> 31);
            };
            const std::uint64_t from = c * kChunk, to = std::min(n, from + kChunk);
            if (is_float && es == 4) {
              auto* p = reinterpret_cast<float*>(data);
              for (std::uint64_t i = from; i < to; ++i)
                p[i] = static_cast<float>(below(gen(), 2000001)) / 1000.0f - 1000.0f;
            } else if (is_float && es == 8) {
              auto* p = reinterpret_cast<double*>(data);
              for (std::uint64_t i = from; i < to; ++i)
                p[i] = static_cast<double>(below(gen(), 2000001)) / 1000.0 - 1000.0;
            } else {
              for (std::uint64_t i = from; i < to; ++i) {
                const std::uint64_t r = below(gen(), 1000);
                std::memcpy(data + i * static_cast<std::uint64_t>(es), &r,
                            static_cast<size_t>(es));
              }
            }
          }
        };
        const unsigned fillers = static_cast<unsigned>(std::min<std::uint64_t>(
            chunks, std::max(1u, o.threads ? o.threads : std::thread::hardware_concurrency())));
        std::vector<std::thread> pool;
        for (unsigned t = 1; t < fillers; ++t) pool.emplace_back(fill);
        fill();
        for (auto& th : pool) th.join();
      } else if (v.fill == ArgValue::Fill::Iota) {
        const bool is_float = type.find("float") != std::string::npos;
        std::uint64_t idx = 0;
        for (std::uint64_t off = 0; off + static_cast<std::uint64_t>(es) <= bytes;
             off += static_cast<std::uint64_t>(es), ++idx) {
          if (is_float && es == 4) {
            const float f = static_cast<float>(idx);
            std::memcpy(b->data() + off, &f, 4);
          } else {
            std::memcpy(b->data() + off, &idx, static_cast<size_t>(es));
          }
        }
      } else if (v.fill == ArgValue::Fill::File) {
        std::memcpy(b->data(), file_bytes.data(),
                    std::min<std::uint64_t>(file_bytes.size(), bytes));
      }
      std::memcpy(slot, &base, 8);
      ar.is_buffer = true;
      ar.bytes = bytes;
      ar.value = value ? *value : fmt::format("zeros ({} bytes, lazily allocated)", bytes);
      run.arg_buffers.push_back(base);
    } else {
      if (!value)
        throw DriverError(fmt::format(
            "kernel {}: missing argument {} ({}): give --arg {}=VALUE or arg={}=VALUE in "
            "the launch comment",
            rep.name, ar.name, type.empty() ? p.type : type, ar.name, ar.name));
      const ArgValue v = parse_arg_value(*value, arg_where);
      const bool is_float =
          p.type == ".f32" || p.type == ".f64" || type == "float" || type == "double";
      if (v.kind == ArgValue::Kind::Buffer)
        throw DriverError(fmt::format("{}: '{}' is a buffer, but {} is a scalar ({})", arg_where,
                                      *value, ar.name, type.empty() ? p.type : type));
      if (is_float) {
        const double d = v.kind == ArgValue::Kind::Float ? v.f : static_cast<double>(v.i);
        if (p.size == 4) {
          const float f = static_cast<float>(d);
          std::memcpy(slot, &f, 4);
        } else {
          std::memcpy(slot, &d, 8);
        }
      } else {
        if (v.kind == ArgValue::Kind::Float)
          throw DriverError(fmt::format("{}: '{}' is not an integer, but {} is {}", arg_where,
                                        *value, ar.name, type.empty() ? p.type : type));
        std::memcpy(slot, &v.i, static_cast<size_t>(std::min(p.size, 8)));
      }
      ar.value = *value;
      run.arg_buffers.push_back(0);
    }
    rep.args.push_back(ar);
  }
  for (size_t a = 0; a < s.args.size(); ++a)
    if (!used[a]) {
      std::string known;
      for (const auto& ar : rep.args) known += (known.empty() ? "" : ", ") + ar.name;
      throw DriverError(
          fmt::format("{}: kernel {} has no parameter '{}' (its parameters: {})",
                      s.line ? fmt::format("{}:{}", o.input, s.line) : std::string("--arg"),
                      rep.name, s.args[a].first, known.empty() ? "none" : known));
    }

  // CTAs.
  const std::uint64_t total = launch.grid.count();
  rep.ctas_total = total;
  std::vector<std::uint64_t> order;
  bool sampling = true;
  std::uint64_t limit = total;
  if (s.blocks) {
    const BlockSelection sel = parse_blocks(*s.blocks, "--blocks");
    if (sel.all) {
      sampling = false;
    } else {
      limit = std::min<std::uint64_t>(sel.count, total);
    }
  }
  if (sampling && s.blocks) {
    // An explicit count: first, last and evenly spaced between.
    const std::uint64_t n = limit;
    for (std::uint64_t i = 0; i < n; ++i)
      order.push_back(n == 1 ? 0
                             : static_cast<std::uint64_t>(static_cast<long double>(i) *
                                                          static_cast<long double>(total - 1) /
                                                          static_cast<long double>(n - 1)));
  } else if (sampling) {
    order = sample_order(total);
  } else {
    order.resize(static_cast<size_t>(total));
    for (std::uint64_t i = 0; i < total; ++i) order[static_cast<size_t>(i)] = i;
  }
  const bool adaptive = !s.blocks;
  const unsigned threads =
      std::max(1u, o.threads ? o.threads : std::thread::hardware_concurrency());
  std::vector<std::unique_ptr<analysis::SiteStatsListener>> stats;
  std::vector<std::unique_ptr<emu::Emulator>> emus;
  std::vector<std::unique_ptr<analysis::SharedRecorder>> recorders;
  for (unsigned t = 0; t < threads; ++t) {
    stats.push_back(std::make_unique<analysis::SiteStatsListener>(arch, k.sites.size()));
    emus.push_back(std::make_unique<emu::Emulator>(l.program, k, mem));
    emus.back()->add_listener(stats.back().get());
    if (o.record_shared) {
      recorders.push_back(std::make_unique<analysis::SharedRecorder>());
      emus.back()->add_listener(recorders.back().get());
    }
  }
  std::atomic<std::uint64_t> next{0}, done{0}, executed{0};
  if (o.progress) {
    o.progress->ctas_done = 0;
    o.progress->ctas_planned = adaptive ? 0 : order.size();
  }
  std::atomic<bool> stop{false};
  std::mutex error_mutex;
  std::optional<std::string> error;
  const auto t0 = std::chrono::steady_clock::now();
  auto locate = [&](int instr) {
    if (instr < 0 || static_cast<size_t>(instr) >= k.locs.size()) return std::string(o.input);
    const auto& loc = k.locs[static_cast<size_t>(instr)];
    std::string file = o.input;
    if (loc.file != l.program.main_file && loc.file > 0 &&
        static_cast<size_t>(loc.file) < l.program.files.size())
      file = l.program.files[static_cast<size_t>(loc.file)];
    return loc.line > 0 ? fmt::format("{}:{}:{}", file, loc.line, loc.col) : file;
  };
  auto worker = [&](unsigned t) {
    while (!stop.load()) {
      const std::uint64_t i = next.fetch_add(1);
      if (i >= order.size()) break;
      if (adaptive && i > 1 && executed.load() >= o.sample_instructions)
        break;  // first and last always
      const std::uint64_t cta = order[static_cast<size_t>(i)];
      emu::Dim3 id;
      id.x = static_cast<std::uint32_t>(cta % launch.grid.x);
      id.y = static_cast<std::uint32_t>((cta / launch.grid.x) % launch.grid.y);
      id.z = static_cast<std::uint32_t>(cta / (std::uint64_t{launch.grid.x} * launch.grid.y));
      const std::uint64_t before = emus[t]->executed();
      try {
        emus[t]->run_cta(launch, id);
      } catch (const emu::EmuError& e) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) {
          std::string ptx_line;
          if (e.instr >= 0 && static_cast<size_t>(e.instr) < k.ptx_lines.size())
            ptx_line = fmt::format(" (PTX line {}: {})", k.ptx_lines[static_cast<size_t>(e.instr)],
                                   k.texts[static_cast<size_t>(e.instr)]);
          error = fmt::format("{}: {}{} in CTA ({},{},{}) of kernel {}", locate(e.instr), e.what(),
                              ptx_line, id.x, id.y, id.z, rep.name);
        }
        stop = true;
        break;
      }
      executed += emus[t]->executed() - before;
      ++done;
      if (o.progress) o.progress->ctas_done.fetch_add(1, std::memory_order_relaxed);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (auto& th : pool) th.join();
  if (error) throw EmulationError(*error);
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rep.ctas_analysed = done.load();
  rep.warp_instructions = executed.load();
  for (unsigned t = 1; t < threads; ++t) stats[0]->merge(*stats[t]);
  if (o.record_shared) {
    for (unsigned t = 1; t < threads; ++t) recorders[0]->merge(*recorders[t]);
    run.recorder = std::move(recorders[0]);
  }
  for (const int site : stats[0]->refused_sites()) {
    const auto& st = k.sites[static_cast<size_t>(site)];
    rep.notes.push_back(
        {st.file, st.line, st.col,
         fmt::format("no bank rule for this shared access ({}); it is left out of the counts",
                     st.text)});
  }
  // Notes (barriers), de-duplicated per instruction.
  std::vector<int> noted;
  for (const auto& e : emus)
    for (const auto& n : e->notes()) {
      if (std::find(noted.begin(), noted.end(), n.instr) != noted.end()) continue;
      noted.push_back(n.instr);
      const auto loc = n.instr >= 0 ? k.locs[static_cast<size_t>(n.instr)] : ptx::SourcePos{};
      rep.notes.push_back({loc.file, loc.line, loc.col, n.message});
    }
  // Sites in source order.
  for (size_t i = 0; i < k.sites.size(); ++i) {
    const auto& st = stats[0]->sites()[i];
    if (!st.seen) continue;
    const auto& site = k.sites[i];
    analysis::SiteReport sr;
    sr.site = static_cast<int>(i);
    sr.file = site.file;
    sr.line = site.line;
    sr.col = site.col;
    sr.ptx_line = site.ptx_line;
    sr.ptx = site.text;
    sr.stats = st;
    rep.sites.push_back(std::move(sr));
  }
  std::stable_sort(rep.sites.begin(), rep.sites.end(),
                   [](const analysis::SiteReport& a, const analysis::SiteReport& b) {
                     return std::tie(a.file, a.line, a.col) < std::tie(b.file, b.line, b.col);
                   });
  for (size_t i = 0; i < rep.args.size(); ++i)
    if (rep.args[i].is_buffer)
      if (auto* b = mem.find(run.arg_buffers[i], 1)) rep.args[i].touched = b->max_touched.load();
  rep.shared_vars = k.shared;
  analysis::total(rep, arch);
  return run;
}

const model::Arch& find_arch(const CheckOptions& o) {
  const model::Arch* arch = model::find_arch(o.arch);
  if (!arch) throw DriverError(fmt::format("--arch: unknown architecture '{}'", o.arch));
  return *arch;
}

analysis::CheckReport start_report(const Loaded& l, const CheckOptions& o,
                                   const model::Arch& arch) {
  analysis::CheckReport r;
  r.input = o.input;
  r.files = l.program.files;
  r.main_file = l.program.main_file;
  r.arch = &arch;
  std::istringstream ss(l.source_text);
  std::string line;
  while (std::getline(ss, line)) r.source_lines.push_back(line);
  return r;
}

void run_selected(const Loaded& l, const CheckOptions& o, const model::Arch& arch,
                  const std::function<void(const ptx::Kernel&, KernelRun&)>& each) {
  const auto selected = select_kernels(l, o);
  CheckOptions per_kernel = o;  // the default sample budget is shared by the run's kernels
  per_kernel.sample_instructions =
      std::max<std::uint64_t>(o.sample_instructions / selected.size(), 1);
  if (o.progress) o.progress->kernels = static_cast<int>(selected.size());
  for (auto& [kernel, settings] : selected) {
    if (o.progress) ++o.progress->kernel;
    KernelRun run = run_kernel(l, *kernel, settings, arch, per_kernel);
    each(*kernel, run);
  }
}

analysis::CheckReport check(const CheckOptions& o) {
  const model::Arch& arch = find_arch(o);
  Loaded l = load(o);
  analysis::CheckReport r = start_report(l, o, arch);
  run_selected(l, o, arch, [&](const ptx::Kernel&, KernelRun& run) {
    r.kernels.push_back(std::move(run.report));
  });
  return r;
}

}  // namespace bankcheck::driver
