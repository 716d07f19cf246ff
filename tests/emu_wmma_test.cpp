// wmma against the H100 (bench/hardware/wmma): the fragment formula reproduces the measured
// layouts; the two probes' PTX, run through the emulator, writes the fragments the H100
// wrote; their shared lines, through the emulator and the bank model, equal Nsight
// Compute's Source Counters; every launch runs the same with the fast tier on and off; the
// arithmetic is mma.sync's; other wmma forms are refused with a sentence naming them.
// The probes' PTX is committed, so none of this needs nvcc.
#include <cxxabi.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "bankcheck/driver/engine.hpp"
#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/emu/wmma_fragment.hpp"
#include "emu_differential.hpp"
#include "ncu_raw.hpp"

namespace drv = bankcheck::driver;
namespace emu = bankcheck::emu;
namespace ptx = bankcheck::ptx;
namespace fs = std::filesystem;
using bankcheck::test::read_gzip_lines;
using bankcheck::test::split_csv;

namespace {

const std::string kWmma = std::string(BANKCHECK_SOURCE_DIR) + "/bench/hardware/wmma/measured/";

// ---------------------------------------------------------------- the H100's fragments

// "FORM ldLD a|b|c laneL v0 v1 ..." (probe_forms.cu; probe_wmma.cu writes no FORM): the
// elements, by (form, ld, fragment, lane).
using Layouts = std::map<std::tuple<std::string, int, char, int>, std::vector<double>>;
Layouts read_layouts(const std::vector<std::string>& lines) {
  Layouts out;
  for (const std::string& line : lines) {
    std::istringstream in(line);
    std::string form, ld, frag, lane;
    in >> form;
    if (form.rfind("ld", 0) == 0) {
      ld = form;
      form.clear();
    } else {
      in >> ld;
    }
    in >> frag >> lane;
    if (ld.rfind("ld", 0) != 0 || lane.rfind("lane", 0) != 0) continue;
    std::vector<double> v;
    for (double x; in >> x;) v.push_back(x);
    out[{form, std::stoi(ld.substr(2)), frag[0], std::stoi(lane.substr(4))}] = v;
  }
  return out;
}
std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream f(path);
  EXPECT_TRUE(f) << "cannot open " << path;
  std::vector<std::string> v;
  for (std::string l; std::getline(f, l);) v.push_back(l);
  return v;
}

ptx::WmmaFrag frag_of(char c) {
  return c == 'a' ? ptx::WmmaFrag::A : c == 'b' ? ptx::WmmaFrag::B : ptx::WmmaFrag::C;
}

// Every lane and element of results/wmma_layout.txt, at every leading dimension: the value
// r * 16 + c names the element's place in memory, which the formula must give (A stored
// row-major, B column-major, C row-major there).
TEST(WmmaFragment, FormulaReproducesTheMeasuredLayout) {
  const Layouts layouts = read_layouts(read_lines(kWmma + "wmma_layout.txt"));
  ASSERT_EQ(layouts.size(), 4u * 3 * 32);
  std::size_t checked = 0;
  for (const auto& [key, values] : layouts) {
    const auto& [form, ld, frag, lane] = key;
    ASSERT_EQ(values.size(), frag == 'c' ? 8u : 16u);
    for (std::size_t e = 0; e < values.size(); ++e) {
      const emu::WmmaPos at = emu::wmma_memory(
          emu::wmma_element(frag_of(frag), lane, static_cast<int>(e)), frag == 'b');
      EXPECT_EQ(at.row * 16 + at.col, values[e])
          << "ld " << ld << " " << frag << " lane " << lane << " x[" << e << "]";
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4u * 32 * (16 + 16 + 8));
}

// Property: each fragment holds every element of its matrix exactly once per lane set
// (x[8..15] of A and B repeat x[0..7]), and lanes of one quad hold one row of A.
TEST(WmmaFragment, EveryElementOnce) {
  for (ptx::WmmaFrag f : {ptx::WmmaFrag::A, ptx::WmmaFrag::B, ptx::WmmaFrag::C}) {
    std::set<std::pair<int, int>> seen;
    for (int lane = 0; lane < 32; ++lane)
      for (int e = 0; e < 8; ++e) {
        const emu::WmmaPos p = emu::wmma_element(f, lane, e);
        EXPECT_TRUE(seen.insert({p.row, p.col}).second);
        EXPECT_EQ(emu::wmma_element(f, lane, e + 8), p);
      }
    EXPECT_EQ(seen.size(), 256u);
  }
}

// ---------------------------------------------------------------- running the probes

// A probe's PTX (gunzipped into the test's scratch directory when it is .gz), loaded once.
const drv::Loaded& probe(const std::string& path) {
  static std::map<std::string, std::unique_ptr<drv::Loaded>> cache;
  auto& slot = cache[path];
  if (slot) return *slot;
  std::string input = path;
  if (path.ends_with(".gz")) {
    input = testing::TempDir() + "/bankcheck-wmma-" + fs::path(path).stem().string();
    std::ofstream out(input);
    for (const std::string& l : read_gzip_lines(path)) out << l << "\n";
  }
  drv::CheckOptions o;
  o.input = input;
  o.arch = "sm_90";
  slot = std::make_unique<drv::Loaded>(drv::load(o));
  return *slot;
}

// "void layout<(int)16>(float *, ...)" and "void layout<16>(float*, ...)" alike: the name
// and template arguments, without spaces and "(int)".
std::string kernel_key(std::string s) {
  for (std::size_t p; (p = s.find("(int)")) != std::string::npos;) s.erase(p, 5);
  std::erase(s, ' ');
  const std::size_t close = s.find(">(");
  return close == std::string::npos ? s.substr(0, s.find('(')) : s.substr(0, close + 1);
}
std::string demangled_key(const std::string& mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string s = status == 0 && d ? d : mangled;
  std::free(d);
  return kernel_key(s);
}

std::string file_arg(const std::string& name, const void* data, std::size_t bytes) {
  const std::string p = testing::TempDir() + "/bankcheck-wmma-" + name;
  std::ofstream(p, std::ios::binary)
      .write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  return "@" + p;
}

// One warp of `kernel`, with the fast tier on and off (the same memory and events, or the
// test fails); the fast run's result.
drv::KernelRun run_probe(const drv::Loaded& l, const ptx::Kernel& k,
                         const std::vector<std::pair<std::string, std::string>>& args) {
  auto run = [&](const emu::Emulator::Options& eo) {
    drv::LaunchSettings s;
    s.grid = drv::Dim3{1, 1, 1};
    s.block = drv::Dim3{32, 1, 1};
    s.args = args;
    s.blocks = "all";
    drv::CheckOptions o;
    o.input = l.input;
    o.arch = "sm_90";
    o.threads = 1;
    o.emulator = eo;
    return drv::run_kernel(l, k, s, *bankcheck::model::find_arch("sm_90"), o);
  };
  return emu::testing::run_both_tiers<drv::KernelRun>(
      k.name, run, [](drv::KernelRun& r) -> emu::GlobalMemory& { return *r.memory; });
}

std::vector<float> floats(const drv::KernelRun& r, std::size_t param, std::size_t n) {
  std::vector<float> v(n);
  std::memcpy(v.data(), r.memory->find(r.arg_buffers[param], 1)->data(), 4 * n);
  return v;
}

// The forms of probe_forms.cu: the name main() prints, the kernel's template arguments.
struct Form {
  const char* name;
  const char* key;  // kernel_key without the leading "void " and the ld
  bool global;
};
const Form kForms[] = {
    {"f16_acol_brow_f32_ccol",
     "shared_form<__half,nvcuda::wmma::col_major,nvcuda::wmma::row_major,float,(nvcuda::wmma::"
     "layout_t)1,",
     false},
    {"f16_arow_brow_f16_crow",
     "shared_form<__half,nvcuda::wmma::row_major,nvcuda::wmma::row_major,__half,(nvcuda::wmma::"
     "layout_t)0,",
     false},
    {"f16_acol_bcol_f16_ccol",
     "shared_form<__half,nvcuda::wmma::col_major,nvcuda::wmma::col_major,__half,(nvcuda::wmma::"
     "layout_t)1,",
     false},
    {"f16_arow_bcol_f16_ccol",
     "shared_form<__half,nvcuda::wmma::row_major,nvcuda::wmma::col_major,__half,(nvcuda::wmma::"
     "layout_t)1,",
     false},
    {"bf16_arow_bcol_f32_crow",
     "shared_form<__nv_bfloat16,nvcuda::wmma::row_major,nvcuda::wmma::col_major,float,(nvcuda::"
     "wmma::layout_t)0,",
     false},
    {"bf16_acol_brow_f32_ccol",
     "shared_form<__nv_bfloat16,nvcuda::wmma::col_major,nvcuda::wmma::row_major,float,(nvcuda::"
     "wmma::layout_t)1,",
     false},
    {"global_arow_bcol_f32_crow",
     "global_form<nvcuda::wmma::row_major,nvcuda::wmma::col_major,float,(nvcuda::wmma::layout_t)0,",
     true},
    {"global_acol_brow_f16_ccol",
     "global_form<nvcuda::wmma::col_major,nvcuda::wmma::row_major,__half,(nvcuda::wmma::layout_t)"
     "1,",
     true},
};

std::uint16_t f16_bits(float f) {  // exact for the probes' small integers
  if (f == 0) return 0;
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t e = ((u >> 23) & 0xff) - 127 + 15;
  return static_cast<std::uint16_t>(((u >> 16) & 0x8000) | (e << 10) | ((u >> 13) & 0x3ff));
}

// The global tiles main() fills: element (r, c) of a 16 x ld tile holds r * 16 + c, -1 past
// column 15; A and B f16, C f16 or f32.
std::vector<std::pair<std::string, std::string>> global_args(int ld, bool c_f16) {
  std::vector<std::uint16_t> h(16 * 64);
  std::vector<float> f(16 * 64);
  for (int i = 0; i < 16 * ld; ++i) {
    const int r = i / ld, c = i % ld;
    f[static_cast<std::size_t>(i)] = c < 16 ? static_cast<float>(r * 16 + c) : -1.0f;
    h[static_cast<std::size_t>(i)] = f16_bits(f[static_cast<std::size_t>(i)]);
  }
  const std::string tag = std::to_string(ld) + (c_f16 ? "h" : "f");
  return {{"p0", file_arg("a" + tag, h.data(), 2 * h.size())},
          {"p1", file_arg("b" + tag, h.data(), 2 * h.size())},
          {"p2", c_f16 ? file_arg("c" + tag, h.data(), 2 * h.size())
                       : file_arg("c" + tag, f.data(), 4 * f.size())},
          {"p3", "zeros:2048"},
          {"p4", "zeros:2048"},
          {"p5", "zeros:2048"}};
}

// A probe kernel run: which launch of which file, and its report.
struct ProbeRun {
  std::string key;  // kernel_key, as the Source Counters name the function
  const drv::Loaded* loaded = nullptr;
  drv::KernelRun run;
};

// Every kernel of both probes, run once each.
const std::vector<ProbeRun>& probe_runs() {
  static const std::vector<ProbeRun> runs = [] {
    std::vector<ProbeRun> out;
    const drv::Loaded& p1 = probe(kWmma + "wmma.ptx");
    for (const ptx::Kernel& k : p1.program.kernels)
      out.push_back(
          {demangled_key(k.name), &p1,
           run_probe(p1, k, {{"p0", "zeros:2048"}, {"p1", "zeros:2048"}, {"p2", "zeros:2048"}})});
    const drv::Loaded& p2 = probe(kWmma + "forms/probe_forms.ptx.gz");
    for (const ptx::Kernel& k : p2.program.kernels) {
      const std::string key = demangled_key(k.name);
      const bool global = key.find("global_form") != std::string::npos;
      const int ld = std::stoi(key.substr(key.rfind(',') + 1));
      out.push_back(
          {key, &p2,
           run_probe(p2, k,
                     global
                         ? global_args(ld, key.find("__half,(") != std::string::npos)
                         : std::vector<std::pair<std::string, std::string>>{
                               {"p0", "zeros:2048"}, {"p1", "zeros:2048"}, {"p2", "zeros:2048"}})});
    }
    return out;
  }();
  return runs;
}

// probe_wmma.cu's and probe_forms.cu's fragments, every lane and element, as the H100 wrote
// them (results/wmma_layout.txt, results/forms/probe_forms.run.txt.gz).
TEST(WmmaProbe, FragmentsEqualTheH100) {
  const Layouts measured = read_layouts(read_lines(kWmma + "wmma_layout.txt"));
  const Layouts forms = read_layouts(read_gzip_lines(kWmma + "forms/probe_forms.run.txt.gz"));
  ASSERT_EQ(forms.size(), (6u * 3 + 2 * 2) * 3 * 32);
  std::size_t compared = 0;
  for (const ProbeRun& r : probe_runs()) {
    SCOPED_TRACE(r.key);
    const bool global = r.key.find("global_form") != std::string::npos;
    const int ld = std::stoi(r.key.substr(r.key.find_last_of("<,") + 1));
    std::string form;
    for (const Form& f : kForms)
      if (r.key.find(f.key) != std::string::npos) form = f.name;
    const Layouts& want = form.empty() ? measured : forms;
    for (char frag : {'a', 'b', 'c'}) {
      const auto it = want.find({form, ld, frag, 0});
      ASSERT_NE(it, want.end()) << form << " ld" << ld << " " << frag;
      const std::size_t n = it->second.size();
      const std::vector<float> got =
          floats(r.run, static_cast<std::size_t>((global ? 3 : 0) + frag - 'a'), 32 * n);
      for (int lane = 0; lane < 32; ++lane) {
        const std::vector<double>& v = want.at({form, ld, frag, lane});
        for (std::size_t e = 0; e < n; ++e, ++compared)
          EXPECT_EQ(got[lane * n + e], v[e]) << frag << " lane " << lane << " x[" << e << "]";
      }
    }
  }
  EXPECT_EQ(compared, 4u * 32 * 40 + (4u * 3 * 32 * 40 + 2u * 3 * 32 * 24) + 4u * 32 * 40);
}

// ---------------------------------------------------------------- against the Source Counters

struct Counts {
  std::uint64_t instructions = 0, wavefronts = 0, ideal = 0, sectors = 0, ideal_sectors = 0;
  bool operator==(const Counts&) const = default;
};
using LineKey = std::tuple<std::string, std::string, int>;  // kernel, file name, line

// Nsight Compute's Source Counters: per kernel, file and line, the shared-memory
// ("Shared") and global instructions' counts, each SASS instruction once (by address). The
// columns are found by name in each section's header: sections differ (some lack the
// warp-stall columns).
std::map<LineKey, Counts> read_source_counters(const std::string& path) {
  std::map<LineKey, Counts> out;
  std::string kernel, file;
  int line = 0;
  std::map<std::string, std::size_t> col;
  std::set<std::tuple<std::string, std::string, int, std::string>> seen;
  for (const std::string& text : read_gzip_lines(path)) {
    const std::vector<std::string> f = split_csv(text);
    if (f.size() >= 2 && f[0] == "File Path") file = fs::path(f[1]).filename().string();
    if (f.size() >= 2 && f[0] == "Function Name") kernel = kernel_key(f[1]);
    if (!f.empty() && f[0] == "Line No") {
      col.clear();
      for (std::size_t i = 0; i < f.size(); ++i) col.emplace(f[i], i);  // the first of a name
      continue;
    }
    if (f.size() < 3 || col.empty()) continue;
    if (!f[0].empty()) {
      line = std::stoi(f[0]);
      continue;
    }
    const auto at = [&](const char* name) { return f.at(col.at(name)); };
    const std::string space = at("Address Space");
    if ((space != "Shared" && space != "Global") || !seen.insert({kernel, file, line, f[2]}).second)
      continue;
    Counts& c = out[{kernel, file, line}];
    c.instructions += std::stoull(at("Instructions Executed"));
    if (space == "Shared") {
      c.wavefronts += std::stoull(at("L1 Wavefronts Shared"));
      c.ideal += std::stoull(at("L1 Wavefronts Shared Ideal"));
    } else {
      c.sectors += std::stoull(at("L2 Theoretical Sectors Global"));
      c.ideal_sectors += std::stoull(at("L2 Theoretical Sectors Global Ideal"));
    }
  }
  return out;
}

// The emulator's counts where the Source Counters list them in full: an inlined
// instruction on the innermost line of its inline stack (the helper's line: <mma.h>'s in
// mma.hpp, the probes' fill and dump loops); `callers` gets the counts of the stack's other
// lines, the lines that call a helper, where Nsight lists only some of the helper's
// instructions, or none.
struct Emulated {
  std::map<LineKey, Counts> lines, callers;
};
Emulated emulated(const ProbeRun& r) {
  Emulated out;
  const auto& files = r.loaded->program.files;
  const auto name = [&](int f) {
    return fs::path(files[static_cast<std::size_t>(f)]).filename().string();
  };
  const auto add = [](Counts& o, const Counts& c) {
    o.instructions += c.instructions;
    o.wavefronts += c.wavefronts;
    o.ideal += c.ideal;
    o.sectors += c.sectors;
    o.ideal_sectors += c.ideal_sectors;
  };
  for (const auto& s : r.run.report.sites) {
    if (s.stats.space != ptx::Space::Shared && s.stats.space != ptx::Space::Global) continue;
    const Counts c{s.stats.requests, s.stats.wavefronts, s.stats.ideal_wavefronts, s.stats.sectors,
                   s.stats.ideal_sectors};
    if (s.stack.empty()) {  // not inlined, or only its innermost frame per file is known
      add((s.inlined.empty() ? out.lines : out.callers)[{r.key, name(s.file), s.line}], c);
      for (const auto& f : s.inlined) add(out.lines[{r.key, name(f.file), f.line}], c);
      continue;
    }
    for (std::size_t i = 0; i < s.stack.size(); ++i)  // innermost first
      add((i == 0 ? out.lines : out.callers)[{r.key, name(s.stack[i].file), s.stack[i].line}], c);
  }
  return out;
}

// Every line of both probes with shared or global instructions, per kernel: instructions,
// wavefronts and ideal wavefronts (global lines: sectors and ideal sectors) equal the H100's,
// each instruction on the innermost line of its inline stack, where Nsight lists it. Pinned, not
// compared: the lines that call an inlined helper (wmma::load_matrix_sync, the probes' fill and
// dump loops), where Nsight lists only some of the helper's instructions, or none (probe_wmma.cu:
// its three loads' lines list nothing, its store's line the first STS.64 of four). There the test
// checks that Nsight lists no more than the emulator has.
TEST(WmmaProbe, LinesEqualTheSourceCounters) {
  std::map<LineKey, Counts> truth = read_source_counters(kWmma + "wmma_source.csv.gz");
  for (auto& [k, v] : read_source_counters(kWmma + "forms/probe_forms.source.csv.gz")) truth[k] = v;
  std::size_t compared = 0, wmma_lines = 0, pinned = 0;
  std::set<LineKey> covered;
  for (const ProbeRun& r : probe_runs()) {
    const Emulated got = emulated(r);
    for (const auto& [key, c] : got.lines) {
      SCOPED_TRACE(std::get<0>(key) + " " + std::get<1>(key) + ":" +
                   std::to_string(std::get<2>(key)));
      covered.insert(key);
      const auto it = truth.find(key);
      ASSERT_NE(it, truth.end());
      EXPECT_EQ(c.instructions, it->second.instructions);
      EXPECT_EQ(c.wavefronts, it->second.wavefronts);
      EXPECT_EQ(c.ideal, it->second.ideal);
      EXPECT_EQ(c.sectors, it->second.sectors);
      EXPECT_EQ(c.ideal_sectors, it->second.ideal_sectors);
      ++compared;
      if (std::get<1>(key) == "mma.hpp") ++wmma_lines;
    }
    for (const auto& [key, c] : got.callers) {
      if (got.lines.count(key)) continue;  // also some instruction's own line: compared
      SCOPED_TRACE(std::get<0>(key) + " caller " + std::get<1>(key) + ":" +
                   std::to_string(std::get<2>(key)));
      covered.insert(key);
      ++pinned;
      const auto it = truth.find(key);
      if (it == truth.end()) continue;
      EXPECT_LE(it->second.instructions, c.instructions);
      EXPECT_LE(it->second.wavefronts, c.wavefronts);
      EXPECT_LE(it->second.sectors, c.sectors);
    }
  }
  // Nothing the H100 counted is missing from the emulator's lines.
  for (const auto& [key, c] : truth)
    EXPECT_TRUE(covered.count(key))
        << std::get<0>(key) << " " << std::get<1>(key) << ":" << std::get<2>(key);
  // 4 + 22 kernels, each with its wmma.load.a, .b, .c and wmma.store.d lines in mma.hpp.
  EXPECT_EQ(wmma_lines, 26u * 4);
  RecordProperty("lines_compared", static_cast<int>(compared));
  RecordProperty("caller_lines_pinned", static_cast<int>(pinned));
}

// ---------------------------------------------------------------- arithmetic

// global_form<col_major, row_major, half, mem_col_major> and its f32 row-major sibling
// with random inputs: D = A B + C as mma.sync computes it (exact products, summed in
// float64 in k order, rounded once), read back from the stored C tile.
TEST(WmmaArithmetic, MmaIsMmaSyncs) {
  const drv::Loaded& l = probe(kWmma + "forms/probe_forms.ptx.gz");
  std::mt19937_64 rng(77);
  for (const bool f16 : {false, true}) {
    SCOPED_TRACE(f16 ? "f16 column-major" : "f32 row-major");
    const int ld = 16;
    std::vector<std::uint16_t> a(16 * 64), b(16 * 64), ch(16 * 64);
    std::vector<float> cf(16 * 64);
    const auto value = [](std::uint16_t h) {
      const int e = (h >> 10) & 31, m = h & 1023;
      const double v = e ? std::ldexp(1024 + m, e - 25) : std::ldexp(m, -24);
      return (h & 0x8000) ? -v : v;
    };
    const auto random_half = [&] {  // magnitude 2^-3 .. 2^2
      const std::uint32_t r = static_cast<std::uint32_t>(rng());
      return static_cast<std::uint16_t>(((r & 1) << 15) | ((12 + (r >> 1) % 6) << 10) |
                                        ((r >> 8) & 1023));
    };
    for (auto& x : a) x = random_half();
    for (auto& x : b) x = random_half();
    for (auto& x : ch) x = random_half();
    for (auto& x : cf) x = static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 64.0f;
    std::string kernel;
    for (const ptx::Kernel& k : l.program.kernels) {
      const std::string key = demangled_key(k.name);
      if (key.find(f16 ? kForms[7].key : kForms[6].key) != std::string::npos &&
          key.ends_with(",16>"))
        kernel = k.name;
    }
    const ptx::Kernel* k = nullptr;
    for (const ptx::Kernel& x : l.program.kernels)
      if (x.name == kernel) k = &x;
    ASSERT_NE(k, nullptr);
    const drv::KernelRun r = run_probe(l, *k,
                                       {{"p0", file_arg("ra", a.data(), 2 * a.size())},
                                        {"p1", file_arg("rb", b.data(), 2 * b.size())},
                                        {"p2", f16 ? file_arg("rch", ch.data(), 2 * ch.size())
                                                   : file_arg("rcf", cf.data(), 4 * cf.size())},
                                        {"p3", "zeros:2048"},
                                        {"p4", "zeros:2048"},
                                        {"p5", "zeros:2048"}});
    const std::uint8_t* d = r.memory->find(r.arg_buffers[2], 1)->data();
    // Column-major (f16 kernel): A(m, k) at k * ld + m, B(k, n) at k * ld + n (row-major),
    // C(m, n) at n * ld + m. Row-major (f32 kernel): A at m * ld + k, B(k, n) at n * ld + k.
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 16; ++n) {
        const int at_c = f16 ? n * ld + m : m * ld + n;
        double s =
            f16 ? value(ch[static_cast<std::size_t>(at_c)]) : cf[static_cast<std::size_t>(at_c)];
        for (int kk = 0; kk < 16; ++kk)
          s += value(a[static_cast<std::size_t>(f16 ? kk * ld + m : m * ld + kk)]) *
               value(b[static_cast<std::size_t>(f16 ? kk * ld + n : n * ld + kk)]);
        if (f16) {
          std::uint16_t got;
          std::memcpy(&got, d + 2 * at_c, 2);
          // f16 .rn of the float64 sum; the sums here are far from f16's range limits.
          const double g = value(got);
          EXPECT_LE(std::fabs(g - s), std::ldexp(std::fabs(s), -11)) << m << "," << n;
        } else {
          float got;
          std::memcpy(&got, d + 4 * at_c, 4);
          EXPECT_EQ(got, static_cast<float>(s)) << m << "," << n;
        }
      }
  }
}

// ---------------------------------------------------------------- refused forms

std::string refusal(const std::string& instruction, const std::string& regs) {
  const std::string text =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry k(.param .u64 p)\n{\n" +
      regs + "\n  .shared .align 128 .b8 sh[2048];\n" + instruction + "\n  ret;\n}\n";
  static int n = 0;
  const std::string path =
      testing::TempDir() + "/bankcheck-wmma-refused" + std::to_string(n++) + ".ptx";
  std::ofstream(path) << text;
  drv::CheckOptions o;
  o.input = path;
  const drv::Loaded l = drv::load(o);
  if (l.program.unsupported.empty()) return "";
  return l.program.unsupported[0].reason;
}

TEST(WmmaDecode, OtherFormsAreRefusedByName) {
  const std::string regs = "  .reg .b32 %r<40>;\n  .reg .f32 %f<40>;";
  EXPECT_EQ(refusal("  wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r0, %r1, %r2, %r3, "
                    "%r4, %r5, %r6, %r7}, [sh], 16;",
                    regs),
            "");
  EXPECT_NE(refusal("  wmma.load.a.sync.aligned.row.m32n8k16.shared.f16 {%r0, %r1, %r2, %r3, "
                    "%r4, %r5, %r6, %r7}, [sh], 16;",
                    regs)
                .find("wmma.load.a with shape .m32n8k16 is not emulated"),
            std::string::npos);
  EXPECT_NE(
      refusal("  wmma.load.a.sync.aligned.row.m16n16k16.shared.s8 {%r0, %r1}, [sh], 16;", regs)
          .find("wmma.load.a.s8 is not emulated"),
      std::string::npos);
  EXPECT_NE(refusal("  wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32 {%r0, %r1, %r2, %r3, "
                    "%r4, %r5, %r6, %r7}, {%r8, %r9}, {%r10, %r11}, {%r12, %r13, %r14, %r15, "
                    "%r16, %r17, %r18, %r19};",
                    regs)
                .find("wmma.mma.s32.s8.s8.s32 is not emulated"),
            std::string::npos);
  EXPECT_NE(refusal("  wmma.load.a.sync.aligned.row.m16n16k8.shared.tf32 {%r0, %r1, %r2, %r3}, "
                    "[sh], 16;",
                    regs)
                .find("shape .m16n16k8 is not emulated"),
            std::string::npos);
  EXPECT_NE(refusal("  wmma.load.c.sync.aligned.row.m16n16k16.shared.f32 {%f0, %f1, %f2, %f3}, "
                    "[sh], 16;",
                    regs)
                .find("takes 8 registers"),
            std::string::npos);
}

}  // namespace
