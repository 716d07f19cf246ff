// The modules of a running program (run_modules.hpp).
#include "run_modules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>

#include "bankcheck/ptx/ast.hpp"
#include "bankcheck/sass/elf.hpp"
#include "bankcheck/sass/fatbin_select.hpp"
#include "bankcheck/sass/module.hpp"

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

// A PTX or cubin image as the one entry of a unit, as a fat binary would hold it.
sass::FatbinEntry single_entry(const ModuleImage& image, std::uint32_t sm) {
  sass::FatbinEntry e;
  const auto* bytes = static_cast<const std::uint8_t*>(image.data);
  e.payload.assign(bytes, bytes + image.bytes);
  if (image.kind == ImageKind::Ptx) {
    e.kind = sass::FatbinKind::Ptx;
    e.kind_number = 1;
    // The architecture its .target names (sm_90a: arch-specific), else any.
    const std::string_view text = e.text();
    if (const auto t = text.find(".target"); t != std::string_view::npos) {
      const auto sm_at = text.find("sm_", t);
      if (sm_at != std::string_view::npos && sm_at < text.find('\n', t)) {
        e.sm =
            static_cast<std::uint32_t>(std::atoi(std::string(text.substr(sm_at + 3, 4)).c_str()));
        const std::size_t digits = std::to_string(e.sm).size();
        if (sm_at + 3 + digits < text.size() && text[sm_at + 3 + digits] == 'a')
          e.variant = sass::ArchVariant::ArchSpecific;
      }
    }
  } else {
    e.kind = sass::FatbinKind::Cubin;
    e.kind_number = 2;
    e.sm = sm;  // a cubin loaded on its own is the device's (the driver checks no more)
  }
  return e;
}

}  // namespace

void RunModules::place_cubin_variables(RunUnit& u, std::span<const std::uint8_t> cubin) {
  const auto elf = sass::read_elf(cubin);
  if (!elf.ok()) return;
  const sass::ElfFile& e = elf.value();
  for (const sass::Symbol& sym : e.symbols) {
    constexpr std::uint8_t kObject = 1;  // STT_OBJECT
    if (sym.type != kObject || sym.size == 0 || sym.section >= e.sections.size()) continue;
    const sass::Section& sec = e.sections[sym.section];
    const bool global = sec.name.starts_with(".nv.global");
    if (!global && !sec.name.starts_with(".nv.constant")) continue;
    ptx::GlobalVar g;
    g.name = sym.name;
    g.bytes = sym.size;
    g.space = global ? ptx::Space::Global : ptx::Space::Const;
    const auto bytes = e.bytes(sec);  // empty for .nv.global (zero-filled)
    if (sym.value + sym.size <= bytes.size())
      g.init.assign(bytes.begin() + static_cast<std::ptrdiff_t>(sym.value),
                    bytes.begin() + static_cast<std::ptrdiff_t>(sym.value + sym.size));
    auto storage = std::make_unique<std::uint8_t[]>(sym.size);
    std::memset(storage.get(), 0, sym.size);
    std::memcpy(storage.get(), g.init.data(), g.init.size());
    g.address = reinterpret_cast<std::uint64_t>(storage.get());
    memory_.add_external(g.name, storage.get(), g.bytes);
    u.sass_storage.push_back(std::move(storage));
    u.sass_variables.push_back(std::move(g));
  }
}

RunModules::RunModules(const RunOptions& options, const std::string& arch, std::uint32_t sm,
                       emu::GlobalMemory& memory)
    : options_(options), arch_(arch), sm_(sm), memory_(memory) {}

void RunModules::add(ModuleId id, const ModuleImage& image) {
  auto m = std::make_unique<RunModule>();
  m->id = id;
  m->kind = image.kind;
  m->origin = image.origin;
  m->library = image.library;
  auto add_unit = [&](const void* data, std::size_t bytes) {
    auto u = std::make_unique<RunUnit>();
    u->data = data;
    u->bytes = bytes;
    m->units.push_back(std::move(u));
  };
  if (image.kind == ImageKind::Fatbin) {
    add_unit(image.data, image.bytes);
    // -rdc=true: the device-linked image has the linked cubin and no PTX; each object's own
    // container has its PTX (and a cubin built from it, whose lines name that PTX).
    for (const void* object : image.prelinked) add_unit(object, 0);
  } else {
    add_unit(nullptr, 0);
    m->units.back()->entries.push_back(single_entry(image, sm_));
  }
  modules_[id] = std::move(m);
}

std::string RunModules::take_device_output() {
  std::lock_guard<std::mutex> lock(output_mutex_);
  return std::exchange(device_output_, {});
}

void RunModules::remove(ModuleId id) {
  // What was loaded stays for the report; the image itself may go now.
  if (const auto it = modules_.find(id); it != modules_.end())
    for (auto& u : it->second->units) u->data = nullptr;
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
  for (auto& u : m.units) {
    if (!u->data) continue;  // a single PTX or cubin image: its entry is already there
    auto entries = read_image(u->data, u->bytes);
    if (!entries.ok()) {
      m.read_error = "its fat binary could not be read: " + entries.error().message;
      continue;
    }
    u->entries = std::move(entries.value());
  }
  // -rdc=true: each object's PTX parsed first, so that a unit can take the device functions
  // and variables another unit defines; the units that declare nothing from elsewhere load
  // first (a library's object before the code that calls it).
  std::vector<std::size_t> order;
  if (m.units.size() > 1) {
    std::vector<std::size_t> later;
    for (std::size_t i = 0; i < m.units.size(); ++i) {
      RunUnit& u = *m.units[i];
      if (const sass::FatbinSelection pick = sass::select_for_arch(u.entries, sm_); pick.ptx) {
        try {
          u.parsed = ptx::parse(std::string(pick.ptx->text()), "PTX");
        } catch (const std::exception&) {
        }
      }
      bool declares = false;
      if (u.parsed) {
        for (const ptx::Function& f : u.parsed->functions) declares = declares || f.is_extern;
        for (const ptx::Variable& v : u.parsed->variables) declares = declares || v.is_extern;
      }
      (declares ? later : order).push_back(i);
    }
    order.insert(order.end(), later.begin(), later.end());
  } else {
    order.push_back(0);
  }
  for (const std::size_t i : order) load(*m.units[i], m, i);
}

void RunModules::link(RunUnit& u, const RunModule& m, driver::PtxSource& src) {
  std::vector<const ptx::Module*> others;
  for (const auto& o : m.units)
    if (o.get() != &u && o->parsed) others.push_back(&*o->parsed);
  if (!u.parsed) return;
  if (others.empty()) {  // nothing to link with: parsed once, as it is
    src.module = std::move(*u.parsed);
    u.parsed.reset();
    return;
  }
  ptx::Module linked = *u.parsed;
  std::set<std::string> names = ptx::link_functions(linked, others);
  for (const ptx::Variable& v : linked.variables)
    if (v.is_extern && (v.space == ptx::StateSpace::Global || v.space == ptx::StateSpace::Const))
      names.insert(v.name);
  // Each at the address of the unit that defines it, once that unit is loaded.
  for (const std::string& name : names)
    for (const auto& o : m.units) {
      if (o.get() == &u || !o->loaded || !o->parsed) continue;
      bool defines = false;
      for (const ptx::Variable& v : o->parsed->variables)
        defines = defines || (v.name == name && !v.is_extern);
      if (!defines) continue;
      for (const ptx::GlobalVar& g : o->loaded->program.globals)
        if (g.name == name) src.external_globals[name] = g.address;
      break;
    }
  src.module = std::move(linked);
}

void RunModules::load(RunUnit& u, const RunModule& m, std::size_t index) {
  const sass::FatbinSelection pick = sass::select_for_arch(u.entries, sm_);
  if (!pick.ptx) {
    // A unit with a cubin and no PTX beside objects that have PTX is the device link's
    // (-rdc=true): nothing to say about it.
    if (m.units.size() > 1 && index == 0) return;
    u.options.input = m.library ? m.origin : options_.program;
    std::string why;
    if (m.library && pick.cubin) {
      // A library's: what it holds, without the advice to rebuild that a program's gets.
      why = fmt::format("its module has {} SASS and no PTX, and bankcheck emulates PTX only",
                        pick.cubin->arch_name());
    } else {
      why = fmt::format("{} has no PTX that an {} device can run",
                        m.kind == ImageKind::Cubin ? "its module is a cubin: it" : "its fat binary",
                        arch_);
      if (m.kind == ImageKind::Fatbin)
        for (const auto& s : pick.missing) why += "; " + s;
    }
    u.why_not = why;
    // Its kernels and variables exist all the same when the cubin for the device is there.
    if (pick.cubin) {
      const auto cubin = sass::read_module(pick.cubin->payload, nullptr);
      if (cubin.ok())
        for (const sass::Kernel& k : cubin.value().kernels) u.sass_only[k.name] = k.registers;
      place_cubin_variables(u, pick.cubin->payload);
    }
    return;
  }
  driver::PtxSource src;
  // Named after its source file (nvcc's -lineinfo keeps it), else after who loaded it.
  const std::string who = m.library                  ? m.origin
                          : options_.program.empty() ? "the program"
                                                     : options_.program;
  src.input = pick.ptx->identifier.empty() ? fmt::format("{} (module {})", who, m.id)
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
  u.options.native = options_.native;
  // Device printf prints where the GPU's driver prints it: the program's standard output,
  // through its own stream, when the program synchronizes (take_device_output).
  u.options.emulator.printf = true;
  u.options.device_output = [this](const std::string& text) {
    std::lock_guard<std::mutex> lock(output_mutex_);
    device_output_ += text;
  };
  // Every shared request kept (each distinct one once) for fix's advisor at exit.
  u.options.record_shared = options_.fix.suggest || options_.fix.report;
  u.options.nvcc.nvcc = options_.nvcc;
  u.options.input = src.input;
  if (m.units.size() > 1) link(u, m, src);
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
      if (why.empty() && u->sass_only.empty()) why = u->why_not;
      continue;
    }
    for (const auto& k : u->loaded->program.kernels)
      if (k.name == name) return {u.get(), &k, nullptr, nullptr};
    for (const auto& k : u->loaded->program.unsupported)
      if (k.name == name) return {u.get(), nullptr, &k, nullptr};
  }
  for (auto& u : m->units)
    if (const auto it = u->sass_only.find(name); it != u->sass_only.end()) {
      f.unit = u.get();
      f.sass_only = true;
      f.registers = it->second;
      return f;
    }
  return f;
}

std::vector<std::string> RunModules::kernel_names(ModuleId id) {
  std::vector<std::string> names;
  RunModule* m = get(id);
  if (!m) return names;
  for (auto& u : m->units) {
    if (u->loaded) {
      for (const auto& k : u->loaded->program.kernels) names.push_back(k.name);
      for (const auto& k : u->loaded->program.unsupported) names.push_back(k.name);
    }
    for (const auto& [name, regs] : u->sass_only) names.push_back(name);
  }
  return names;
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
  for (auto& u : m->units)
    for (const auto& g : u->sass_variables)
      if (g.name == name) return {u.get(), nullptr, nullptr, &g};
  return f;
}

void RunModules::reset_variables() {
  for (auto& [id, m] : modules_)
    for (auto& u : m->units) {
      if (u->globals && !u->initial.empty())
        std::memcpy(u->globals.get(), u->initial.data(), u->initial.size());
      for (const auto& g : u->sass_variables) {
        auto* at = reinterpret_cast<std::uint8_t*>(g.address);
        std::memset(at, 0, g.bytes);
        std::memcpy(at, g.init.data(), g.init.size());
      }
    }
}

}  // namespace bankcheck::runtime
