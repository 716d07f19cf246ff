// The modules of a running program (run_modules.hpp).
#include "run_modules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "bankcheck/ptx/ast.hpp"
#include "bankcheck/sass/fatbin_select.hpp"

namespace bankcheck::runtime {
namespace {

// The entries of the one container at `data` (`bytes` long when known).
sass::Result<std::vector<sass::FatbinEntry>> read_image(const void* data, std::size_t bytes) {
  if (!data) return sass::Error{"no fat binary"};
  std::uint64_t size = bytes;
  if (size == 0) {
    auto s = sass::fatbin_container_size(data, std::uint64_t(4) << 30);
    if (!s.ok()) return s.error();
    size = s.value();
  }
  return sass::read_fatbin({static_cast<const std::uint8_t*>(data), size});
}

// The first line of an error, for a one-sentence reason.
std::string first_line(std::string s) {
  if (const auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  return s;
}

}  // namespace

RunModules::RunModules(const RunOptions& options, const std::string& arch, std::uint32_t sm,
                       emu::GlobalMemory& memory)
    : options_(options), arch_(arch), sm_(sm), memory_(memory) {}

void RunModules::add(ModuleId id, const ModuleImage& image) {
  auto m = std::make_unique<RunModule>();
  m->id = id;
  auto add_unit = [&](const void* data, std::size_t bytes) {
    auto entries = read_image(data, bytes);
    if (!entries.ok()) {
      m->read_error = "its fat binary could not be read: " + entries.error().message;
      return;
    }
    auto u = std::make_unique<RunUnit>();
    u->entries = std::move(entries.value());
    m->units.push_back(std::move(u));
  };
  add_unit(image.fatbin, image.bytes);
  // -rdc=true: the device-linked image has the linked cubin and no PTX; each object's own
  // container has its PTX (and a cubin built from it, whose lines name that PTX).
  for (const void* object : image.prelinked) add_unit(object, 0);
  modules_[id] = std::move(m);
}

RunModule* RunModules::get(ModuleId id) {
  const auto it = modules_.find(id);
  if (it == modules_.end()) return nullptr;
  if (!it->second->loaded) load(*it->second);
  return it->second.get();
}

std::vector<RunModule*> RunModules::all() {
  std::vector<RunModule*> out;
  for (auto& [id, m] : modules_) out.push_back(m.get());
  return out;
}

void RunModules::load(RunModule& m) {
  m.loaded = true;
  for (std::size_t i = 0; i < m.units.size(); ++i) load(*m.units[i], i, m.units.size());
}

void RunModules::load(RunUnit& u, std::size_t index, std::size_t units) {
  const sass::FatbinSelection pick = sass::select_for_arch(u.entries, sm_);
  if (!pick.ptx) {
    // A unit with a cubin and no PTX beside objects that have PTX is the device link's
    // (-rdc=true): nothing to say about it.
    if (units > 1 && index == 0) return;
    std::string why = fmt::format("its fat binary has no PTX that an {} device can run", arch_);
    for (const auto& s : pick.missing) why += "; " + s;
    u.why_not = why;
    return;
  }
  driver::PtxSource src;
  src.input = pick.ptx->identifier.empty()
                  ? fmt::format("{} (module {})", options_.program.empty() ? "the program"
                                                                           : options_.program,
                                index + 1)
                  : pick.ptx->identifier;
  while (!src.input.empty() && src.input.back() == ' ') src.input.pop_back();
  src.ptx_text = std::string(pick.ptx->text());
  src.main_file = src.input;
  src.read_source = true;
  if (pick.cubin && pick.same_arch) src.cubin = pick.cubin->payload;
  src.place_globals = [&u](std::uint64_t bytes) {
    u.globals_bytes = std::max<std::uint64_t>(bytes, 1);
    // 256-byte aligned as decode() lays the variables out, zeroed as a module's are.
    const std::uint64_t size = (u.globals_bytes + 255) / 256 * 256;
    u.globals.reset(static_cast<std::uint8_t*>(std::aligned_alloc(256, size)));
    if (!u.globals) throw driver::DriverError("out of memory for the module's variables");
    std::memset(u.globals.get(), 0, size);
    return reinterpret_cast<std::uint64_t>(u.globals.get());
  };
  u.options.arch = arch_;
  u.options.sass = options_.sass;
  u.options.threads = options_.threads;
  u.options.emulator.stop_on_fault = options_.stop_on_fault;
  u.options.skip_repeats = options_.skip_repeats;
  u.options.fast_tier = options_.fast_tier;
  u.options.nvcc.nvcc = options_.nvcc;
  u.options.input = src.input;
  try {
    u.loaded = std::make_unique<driver::Loaded>(driver::load_ptx(src, u.options));
  } catch (const ptx::ParseError& e) {
    u.why_not = fmt::format("its PTX could not be read: {}:{}:{}: {}", e.source, e.pos.line,
                            e.pos.col, e.what());
  } catch (const ptx::DecodeError& e) {
    u.why_not = fmt::format("its PTX could not be decoded: PTX line {}: {}", e.line, e.what());
  } catch (const std::exception& e) {
    u.why_not = first_line(e.what());
  }
  if (!u.loaded) return;
  u.options.input = u.loaded->input;
  // The variables: their initial bytes, each a buffer kernels may access.
  const std::uint64_t base = reinterpret_cast<std::uint64_t>(u.globals.get());
  for (const ptx::GlobalVar& g : u.loaded->program.globals) {
    std::uint8_t* at = u.globals.get() + (g.address - base);
    std::memcpy(at, g.init.data(), std::min<std::uint64_t>(g.init.size(), g.bytes));
    memory_.add_external(g.name, at, g.bytes);
  }
  u.initial.assign(u.globals.get(), u.globals.get() + u.globals_bytes);
}

Found RunModules::kernel(ModuleId id, const std::string& name, std::string& why) {
  Found f;
  RunModule* m = get(id);
  if (!m) return f;
  if (!m->read_error.empty()) why = m->read_error;
  for (auto& u : m->units) {
    if (!u->loaded) {
      if (why.empty()) why = u->why_not;
      continue;
    }
    for (const auto& k : u->loaded->program.kernels)
      if (k.name == name) return {u.get(), &k, nullptr, nullptr};
    for (const auto& k : u->loaded->program.unsupported)
      if (k.name == name) return {u.get(), nullptr, &k, nullptr};
  }
  return f;
}

Found RunModules::variable(ModuleId id, const std::string& name, std::string& why) {
  Found f;
  RunModule* m = get(id);
  if (!m) return f;
  if (!m->read_error.empty()) why = m->read_error;
  for (auto& u : m->units) {
    if (!u->loaded) {
      if (why.empty()) why = u->why_not;
      continue;
    }
    for (const auto& g : u->loaded->program.globals)
      if (g.name == name) return {u.get(), nullptr, nullptr, &g};
  }
  return f;
}

void RunModules::reset_variables() {
  for (auto& [id, m] : modules_)
    for (auto& u : m->units)
      if (u->globals && !u->initial.empty())
        std::memcpy(u->globals.get(), u->initial.data(), u->initial.size());
}

}  // namespace bankcheck::runtime
