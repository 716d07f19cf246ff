// Loading a module: the input through nvcc (or a .ptx as is), the PTX parsed and decoded,
// the cubin ptxas builds from it read for SASS and registers, and each kernel's signature
// resolved once.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>

#include "args.hpp"
#include "bankcheck/driver/binary_input.hpp"
#include "bankcheck/driver/engine.hpp"
#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/driver/launch.hpp"
#include "bankcheck/sass/decoder.hpp"

namespace bankcheck::driver {
namespace {

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw DriverError(fmt::format("{}: cannot read '{}'", what, path));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// With --kernel, the other kernels' bodies are not read (ptx::ParseOptions): a module of
// thousands of kernels, or of a few enormous ones, costs one scan of the others' text.
ptx::ParseOptions parse_options(const CheckOptions& o) {
  ptx::ParseOptions p;
  if (o.flags.kernel)
    p.keep_entry = [wanted = *o.flags.kernel](std::string_view name) {
      return kernel_matches(std::string(name), wanted);
    };
  return p;
}

// The PTX ptxas assembles: the text as it is, or with the bodies the parser skipped blanked
// (their line breaks kept, so that the cubin's line table still names the text's lines):
// ptxas reads a whole module even when --entry names one kernel.
std::string assembled_text(const Loaded& l) {
  std::string text;
  for (const ptx::Function& f : l.module.functions) {
    if (!f.body_skipped || f.body_end <= f.body_begin + 2 || f.body_end > l.ptx_text.size())
      continue;
    if (text.empty()) text = l.ptx_text;
    for (std::size_t i = f.body_begin + 1; i + 1 < f.body_end; ++i)
      if (text[i] != '\n') text[i] = ' ';
  }
  return text.empty() ? l.ptx_text : text;
}

// The cubin ptxas builds from the same PTX: its SASS, where shared requests are counted as
// the GPU issues them (decoding covers Hopper, sm_90), and each kernel's registers (the
// ELF's EIATTR_REGCOUNT, what `ptxas -v` prints) for fix's occupancy. Without SASS the
// counts stay at PTX level, with the reason. A program's own cubin for the architecture
// (`embedded`, from its fat binary) is what ran on the GPU: read when it has the SASS-to-PTX
// line table (-lineinfo), else ptxas builds one from the same PTX.
void read_cubin(Loaded& l, const CheckOptions& o, std::span<const std::uint8_t> embedded = {},
                const std::vector<std::string>& entries = {}) {
  // The decoder of the architecture's SASS family; a virtual one (compute_90) has no SASS.
  const model::Arch* arch = o.arch.starts_with("sm_") ? model::find_arch(o.arch) : nullptr;
  const sass::Decoder decoder = sass::decoder_for(arch ? arch->sass : model::SassFamily::None);
  if (!o.sass)
    l.ptx_level_reason = "--ptx-level";
  else if (!decoder)
    l.ptx_level_reason = fmt::format("SASS is read for sm_90 only, not {}", o.arch);
  const bool decode = o.sass && decoder;
  if (!decode && !o.record_shared && embedded.empty()) return;
  auto unavailable = [&](const std::string& why) {
    if (decode) l.ptx_level_reason = why;
    l.registers_note = "registers unknown: " + why;
  };
  try {
    if (!embedded.empty()) {
      auto m = sass::read_module(embedded, decoder);
      if (m.ok() && (m.value().has_line_info || !decode)) {
        for (const sass::Kernel& k : m.value().kernels)
          l.registers[k.name] = static_cast<int>(k.registers);
        if (decode) l.sass = std::make_shared<const sass::Module>(std::move(m.value()));
        return;
      }
    }
    // ptxas of the toolkit that compiled the file (the nvcc of --nvcc's or the build's
    // command).
    const Assembled a = assemble(assembled_text(l), o.arch, nvcc_of(nvcc_command(o.nvcc)), entries,
                                 o.nvcc.cache, o.nvcc.timeout_seconds);
    auto m = sass::read_module(a.cubin, decoder);
    if (!m.ok()) return unavailable("the cubin could not be read: " + m.error().message);
    for (const sass::Kernel& k : m.value().kernels)
      l.registers[k.name] = static_cast<int>(k.registers);
    if (!decode) return;
    if (!m.value().has_line_info) {
      l.ptx_level_reason = "the cubin has no SASS-to-PTX line table";
      return;
    }
    l.sass = std::make_shared<const sass::Module>(std::move(m.value()));
  } catch (const DriverError& e) {
    std::string why = e.what();
    if (auto nl = why.find('\n'); nl != std::string::npos) why.resize(nl);
    unavailable(why);
  }
}

// The kernels ptxas compiles (--entry): those --kernel selects, so that a file of many
// kernels is not assembled whole to check one. Empty (all of them) without --kernel: the
// launch comments select some kernels, and the host code's launches may select others.
std::vector<std::string> assembled_entries(const Loaded& l, const CheckOptions& o) {
  std::vector<std::string> out;
  if (!o.flags.kernel) return out;
  try {
    for (const ptx::Kernel& k : l.program.kernels)
      if (selected(l, o, k.name)) out.push_back(k.name);
  } catch (const DriverError&) {
    return {};  // a launch comment in error: reported where the kernels are selected
  }
  return out;
}

// Headers nvcc names through its own directory ("/usr/local/cuda/bin/../targets/...")
// are shown by their real path: the same header reads the same whichever nvcc found it
// (a symlinked toolkit, another PATH), and without the "bin/..".
std::string real_path(const std::string& f) {
  std::error_code ec;
  const std::filesystem::path c = std::filesystem::weakly_canonical(f, ec);
  return ec ? std::filesystem::path(f).lexically_normal().string() : c.string();
}

void canonical_header_paths(ptx::Program& p) {
  for (size_t i = 0; i < p.files.size(); ++i) {
    std::string& f = p.files[i];
    if (static_cast<int>(i) == p.main_file || f.empty() || f[0] != '/') continue;
    if (f.find("/../") == std::string::npos && f.find("/./") == std::string::npos) continue;
    f = real_path(f);
  }
}

// The program's file index of each of the cubin's .debug_line files (-1: none), by path.
std::vector<int> program_files_of_sass(const Loaded& l) {
  std::vector<int> out;
  if (!l.sass) return out;
  std::vector<std::string> program;
  for (const std::string& f : l.program.files) program.push_back(f.empty() ? f : real_path(f));
  for (const std::string& f : l.sass->source_files) {
    int index = -1;
    if (!f.empty()) {
      const std::string want = real_path(f);
      for (std::size_t p = 0; p < program.size() && index < 0; ++p)
        if (!program[p].empty() && program[p] == want) index = static_cast<int>(p);
    }
    out.push_back(index);
  }
  return out;
}

// Each kernel's demangled signature, base name, and parameter names and types.
std::vector<KernelSignature> kernel_signatures(const Loaded& l, const CheckOptions& o) {
  std::vector<KernelSignature> out;
  for (const ptx::Kernel& k : l.program.kernels) {
    KernelSignature s;
    s.mangled = k.name;
    s.signature = demangle(k.name);
    s.name = base_name(s.signature);
    s.param_names = param_names(l, k, s.signature, o);  // the signature tells overloads apart
    s.param_types = signature_params(s.signature);
    out.push_back(std::move(s));
  }
  return out;
}

// What every load does once the program is decoded: header paths made real, the cubin's
// files matched to the program's, each kernel's signature.
void finish_load(Loaded& l, const CheckOptions& o) {
  canonical_header_paths(l.program);
  l.sass_files = program_files_of_sass(l);
  l.signatures = kernel_signatures(l, o);
}

}  // namespace

std::vector<std::string> Loaded::kernel_names() const {
  std::vector<std::string> names;
  for (const auto& k : program.kernels) names.push_back(k.name);
  for (const auto& u : program.unsupported) names.push_back(u.name);
  for (const auto& k : program.skipped) names.push_back(k);
  return names;
}

const KernelSignature& Loaded::signature(const ptx::Kernel& k) const {
  const auto i = static_cast<std::size_t>(&k - program.kernels.data());
  return signatures.at(i);
}

Loaded load(const CheckOptions& o) {
  std::error_code ec;
  if (std::filesystem::is_directory(o.input, ec))  // read as empty, it had "no kernel"
    throw DriverError(fmt::format("{}: cannot read: is a directory", o.input));
  const InputKind kind = input_kind(o.input);
  if (is_binary(kind)) return load_binary(o, kind);
  Loaded l;
  l.input = o.input;
  std::string ptx_text;
  const bool ptx = kind == InputKind::Ptx;
  if (ptx) {
    ptx_text = read_file(o.input, "check");
  } else {
    NvccOptions n = o.nvcc;
    n.input = o.input;
    n.arch = o.arch;
    l.source_text = read_file(o.input, "check");
    l.comments = parse_launch_comments(l.source_text, o.input);
    std::string said;
    ptx_text = compile_to_ptx(n, &said);
    if (!said.empty() && o.nvcc_output) o.nvcc_output(said);
  }
  l.ptx_text = ptx_text;
  l.module = ptx::parse(ptx_text, ptx ? o.input : o.input + " (PTX from nvcc)", parse_options(o));
  l.program = ptx::decode(l.module, o.input, ptx ? "" : o.input);
  // Nothing to assemble when no kernel was decoded (--kernel names none of them).
  if (!l.program.kernels.empty()) read_cubin(l, o, {}, assembled_entries(l, o));
  finish_load(l, o);
  if (!l.comments.empty()) check_comment_kernels(l.comments, l.kernel_names(), o.input);
  return l;
}

Loaded load_ptx(const PtxSource& src, const CheckOptions& o) {
  Loaded l;
  l.input = src.input;
  l.source_text = src.source_text;
  l.ptx_text = src.ptx_text;
  // A running program's module (place_globals) is read whole: its launches pick the kernels.
  l.module = src.module ? *src.module
                        : ptx::parse(l.ptx_text, src.input + " (PTX from the fat binary)",
                                     src.place_globals ? ptx::ParseOptions{} : parse_options(o));
  read_cubin(l, o, src.cubin);
  const std::uint64_t base =
      src.place_globals ? src.place_globals(ptx::globals_extent(l.module)) : ptx::kGlobalVarBase;
  l.program = ptx::decode(l.module, src.input, src.main_file, base,
                          src.external_globals.empty() ? nullptr : &src.external_globals);
  if (src.read_source && l.source_text.empty() && !src.main_file.empty()) {
    const auto main = static_cast<std::size_t>(l.program.main_file);
    if (main < l.program.files.size() && !l.program.files[main].empty()) {
      std::ifstream f(l.program.files[main], std::ios::binary);
      if (f) {
        std::stringstream ss;
        ss << f.rdbuf();
        l.source_text = ss.str();
        l.input = l.program.files[main];
      }
    }
  }
  finish_load(l, o);
  return l;
}

const model::Arch& find_arch(const CheckOptions& o) {
  const model::Arch* arch = model::find_arch(o.arch);
  if (!arch) throw DriverError(fmt::format("--arch: unknown architecture '{}'", o.arch));
  return *arch;
}

}  // namespace bankcheck::driver
