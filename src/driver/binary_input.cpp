// Binaries as input (binary_input.hpp): what a file is, the PTX and cubin its fat binaries
// carry for the architecture, and the translation unit a run asks for, loaded.
#include "bankcheck/driver/binary_input.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "bankcheck/driver/kernel_names.hpp"
#include "bankcheck/driver/launch.hpp"
#include "bankcheck/sass/cuda_elf.hpp"
#include "bankcheck/sass/fatbin.hpp"
#include "bankcheck/sass/fatbin_select.hpp"
#include "bankcheck/sass/module.hpp"

namespace bankcheck::driver {
namespace {

constexpr std::uint16_t kEmCuda = 190;
constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;

bool named_ptx(const std::string& path) {
  if (path.size() < 4) return false;
  std::string tail = path.substr(path.size() - 4);
  for (char& c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return tail == ".ptx";
}

// Whether the text's first directive, after white space and comments, is `.version`.
bool starts_like_ptx(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size()) {
    if (std::isspace(static_cast<unsigned char>(t[i]))) {
      ++i;
    } else if (t.substr(i, 2) == "//") {
      const std::size_t nl = t.find('\n', i);
      if (nl == std::string_view::npos) return false;
      i = nl + 1;
    } else if (t.substr(i, 2) == "/*") {
      const std::size_t end = t.find("*/", i + 2);
      if (end == std::string_view::npos) return false;
      i = end + 2;
    } else {
      return t.substr(i, 8) == ".version";
    }
  }
  return false;
}

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw DriverError(fmt::format("{}: cannot read: is a directory", path));
  std::ifstream f(path, std::ios::binary);
  if (!f) throw DriverError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  std::vector<std::uint8_t> out{std::istreambuf_iterator<char>(f),
                                std::istreambuf_iterator<char>()};
  if (f.bad()) throw DriverError(fmt::format("{}: cannot read", path));
  return out;
}

// "sm_90" -> 90; "sm_90a" -> 90.
std::uint32_t sm_of(const std::string& arch) {
  const char* p = arch.c_str() + (arch.starts_with("sm_") ? 3 : 0);
  return static_cast<std::uint32_t>(std::strtoul(p, nullptr, 10));
}

// The -gencode that puts both the SASS and the PTX of `arch` into a build.
std::string gencode(const std::string& arch) {
  const std::string n = arch.starts_with("sm_") ? arch.substr(3) : arch;
  return fmt::format("-gencode arch=compute_{0},code=[sm_{0},compute_{0}]", n);
}

std::string listed(const std::vector<std::string>& mangled) {
  std::string s;
  for (const auto& k : mangled) s += "\n  " + demangle(k);
  return s;
}

// The unit's source file and kernels, from its PTX. A PTX that does not parse is left for
// load_ptx to report with its position.
void describe_unit(BinaryUnit& u, const std::string& identifier, const std::string& path) {
  ptx::Module m;
  try {
    m = ptx::parse(u.ptx, path + " (PTX from the fat binary)");
  } catch (const ptx::ParseError&) {
    return;
  }
  for (const auto& f : m.functions)
    if (f.is_entry) u.kernels.push_back(f.name);
  std::string id = identifier;
  while (!id.empty() && id.back() == ' ') id.pop_back();
  const std::string base = std::filesystem::path(id).filename().string();
  auto named = [&](const std::string& f) {
    return !base.empty() && (f == id || std::filesystem::path(f).filename().string() == base);
  };
  auto cu = [](const std::string& f) {
    return f.size() >= 3 && std::tolower(static_cast<unsigned char>(f[f.size() - 1])) == 'u' &&
           std::tolower(static_cast<unsigned char>(f[f.size() - 2])) == 'c' &&
           f[f.size() - 3] == '.';
  };
  for (int pass = 0; pass < 3 && u.source.empty(); ++pass)
    for (const auto& f : m.files)
      if (u.source.empty() && !f.empty() && (pass == 2 || (pass == 0 ? named(f) : cu(f))))
        u.source = f;
}

// `path` as the report shows it: relative to the working directory when it lies under it.
std::string shown_path(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  if (ec || path.empty() || path[0] != '/') return path;
  const std::filesystem::path rel = std::filesystem::path(path).lexically_relative(cwd);
  if (rel.empty() || rel.string().starts_with("..")) return path;
  return rel.string();
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return {};
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

InputKind input_kind(const std::string& path) {
  char head[4096] = {};
  std::size_t got = 0;
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    std::ifstream f(path, std::ios::binary);
    if (f) {
      f.read(head, sizeof head);
      got = static_cast<std::size_t>(f.gcount());
    }
  }
  if (got >= 20 && std::memcmp(head, "\x7f" "ELF", 4) == 0) {
    std::uint16_t machine = 0;
    std::memcpy(&machine, head + 18, 2);  // e_machine, little-endian on every CUDA host
    return machine == kEmCuda ? InputKind::Cubin : InputKind::HostElf;
  }
  if (got >= 4) {
    std::uint32_t magic = 0;
    std::memcpy(&magic, head, 4);
    if (magic == kFatbinMagic) return InputKind::Fatbin;
  }
  if (named_ptx(path) || starts_like_ptx({head, got})) return InputKind::Ptx;
  return InputKind::Source;
}

bool is_binary(InputKind kind) {
  return kind == InputKind::Cubin || kind == InputKind::Fatbin || kind == InputKind::HostElf;
}

BinaryCode read_binary(const std::string& path, InputKind kind, const std::string& arch) {
  if (kind == InputKind::Cubin)
    throw DriverError(fmt::format(
        "{} is a cubin: SASS only, without the PTX that bankcheck emulates; give the PTX "
        "(nvcc -ptx -lineinfo), or a fat binary, object file or executable built with both: "
        "nvcc {} -lineinfo",
        path, gencode(arch)));
  const std::vector<std::uint8_t> bytes = read_bytes(path);
  // Each section's entries on their own: containers are told apart by their offsets.
  std::vector<std::vector<sass::FatbinEntry>> sections;
  bool relocatable = false;
  auto add = [&](std::span<const std::uint8_t> section, const char* where) {
    auto e = sass::read_fatbin(section);
    if (!e.ok())
      throw DriverError(
          fmt::format("{}: its fat binary{} cannot be read: {}", path, where, e.error().message));
    sections.push_back(std::move(e.value()));
  };
  if (kind == InputKind::Fatbin) {
    add(bytes, "");
  } else {
    auto elf = sass::read_cuda_elf(bytes);
    if (!elf.ok())
      throw DriverError(fmt::format("{}: an ELF file bankcheck cannot read: {}", path,
                                    elf.error().message));
    const sass::CudaElf& e = elf.value();
    if (e.fatbin.empty() && e.relocatable_fatbin.empty())
      throw DriverError(fmt::format(
          "no CUDA code in {}: an ELF file without a fat binary (no .nv_fatbin or "
          "__nv_relfatbin section); give the executable, object file, fat binary, PTX or .cu "
          "that has the kernels",
          path));
    // -rdc=true: each object's PTX is in __nv_relfatbin; .nv_fatbin then holds only the
    // device link's cubin, built from those objects.
    relocatable = !e.relocatable_fatbin.empty();
    if (relocatable) add(e.relocatable_fatbin, " (__nv_relfatbin)");
    if (!e.fatbin.empty()) add(e.fatbin, " (.nv_fatbin)");
  }
  BinaryCode out;
  std::set<std::string> sass_only;
  std::vector<std::string> missing;
  const std::uint32_t sm = sm_of(arch);
  for (const auto& entries : sections)
    for (const auto& container : sass::split_by_container(entries)) {
      const sass::FatbinSelection pick = sass::select_for_arch(container, sm);
      if (pick.ptx) {
        BinaryUnit u;
        u.ptx = std::string(pick.ptx->text());
        if (pick.cubin && pick.same_arch) u.cubin = pick.cubin->payload;
        describe_unit(u, pick.ptx->identifier, path);
        out.units.push_back(std::move(u));
      } else if (pick.cubin) {
        // A cubin without kernels is the device link's (whole-program builds).
        const auto m = sass::read_module(pick.cubin->payload, nullptr);
        if (!m.ok() || m.value().kernels.empty()) continue;
        for (const auto& k : m.value().kernels) sass_only.insert(k.name);
      } else {
        for (const auto& s : pick.missing) missing.push_back(s);
      }
    }
  // An -rdc program's linked cubin has the kernels whose PTX its objects carry.
  if (relocatable && !out.units.empty()) sass_only.clear();
  out.sass_only_kernels.assign(sass_only.begin(), sass_only.end());
  if (!sass_only.empty())
    out.sass_only_fix = fmt::format(
        "SASS for {} but no PTX, which bankcheck emulates: rebuild with {} (SASS and PTX), or "
        "give the .cu or its PTX (nvcc -ptx -lineinfo)",
        arch, gencode(arch));
  if (!out.units.empty()) return out;
  if (!sass_only.empty())
    throw DriverError(fmt::format("{}: its kernels have {}; the kernels:{}", path,
                                  out.sass_only_fix, listed(out.sass_only_kernels)));
  if (!missing.empty())
    throw DriverError(fmt::format("{}: no PTX for {}: {}", path, arch, missing.front()));
  throw DriverError(fmt::format("no CUDA code in {}: its fat binary has no kernels", path));
}

Loaded load_binary(const CheckOptions& o, InputKind kind) {
  BinaryCode code = read_binary(o.input, kind, o.arch);
  const std::vector<BinaryUnit>& units = code.units;
  // The unit the run asks for: --kernel's (the first that has it), else the one whose
  // source has launch comments, else the only one with kernels.
  const BinaryUnit* unit = nullptr;
  auto kernels_of_all = [&]() {
    std::string s;
    for (const auto& u : units) {
      if (u.kernels.empty()) continue;
      s += fmt::format("\n  {}:", u.source.empty() ? "(no line table)" : shown_path(u.source));
      for (const auto& k : u.kernels) s += "\n    " + demangle(k);
    }
    return s;
  };
  if (o.flags.kernel) {
    std::vector<const BinaryUnit*> having;
    for (const auto& u : units)
      if (std::any_of(u.kernels.begin(), u.kernels.end(),
                      [&](const std::string& k) { return kernel_matches(k, *o.flags.kernel); }))
        having.push_back(&u);
    // Kernels of that name in several translation units: which one is meant, no name says
    // (a static kernel of the same name in two files); refused, not the first picked.
    if (having.size() > 1) {
      std::string where;
      for (const BinaryUnit* u : having) {
        where +=
            fmt::format("\n  {}:", u->source.empty() ? "(no line table)" : shown_path(u->source));
        for (const auto& k : u->kernels)
          if (kernel_matches(k, *o.flags.kernel)) where += "\n    " + demangle(k);
      }
      throw DriverError(fmt::format(
          "{}: --kernel '{}' matches kernels in {} translation units; check the object file of "
          "the one meant (nvcc -c FILE.cu, then bankcheck check FILE.o --kernel ...) or its "
          "source:{}",
          o.input, *o.flags.kernel, having.size(), where));
    }
    if (!having.empty()) unit = having.front();
    if (!unit) {
      for (const auto& k : code.sass_only_kernels)
        if (kernel_matches(k, *o.flags.kernel))
          throw DriverError(fmt::format("{}: kernel {} has {}", o.input, demangle(k),
                                        code.sass_only_fix));
      if (o.kernel_may_be_absent) unit = &units.front();  // no kernel of that name: none run
    }
  } else {
    std::vector<const BinaryUnit*> with_kernels, with_comments;
    for (const auto& u : units) {
      if (u.kernels.empty()) continue;
      with_kernels.push_back(&u);
      if (!u.source.empty()) {
        const std::string text = read_text(u.source);
        if (!text.empty() && !parse_launch_comments(text, u.source).empty())
          with_comments.push_back(&u);
      }
    }
    if (with_kernels.size() == 1)
      unit = with_kernels.front();
    else if (with_comments.size() == 1)
      unit = with_comments.front();
    else if (with_kernels.empty())
      unit = &units.front();  // select_kernels says there is no kernel
    else
      throw DriverError(fmt::format(
          "{}: {} translation units with kernels and no --kernel{} to choose; the kernels:{}",
          o.input, with_kernels.size(),
          with_comments.empty() ? "" : " or one source with launch comments", kernels_of_all()));
  }
  if (!unit)  // --kernel matches nothing: the first unit, for select_kernels' message
    unit = &units.front();
  if (o.flags.kernel && units.size() > 1 &&
      std::none_of(unit->kernels.begin(), unit->kernels.end(),
                   [&](const std::string& k) { return kernel_matches(k, *o.flags.kernel); }) &&
      !o.kernel_may_be_absent)
    throw DriverError(fmt::format("--kernel: no kernel named '{}' in {}; the kernels:{}",
                                  *o.flags.kernel, o.input, kernels_of_all()));

  PtxSource src;
  src.input = unit->source.empty() ? o.input : unit->source;
  src.ptx_text = unit->ptx;
  src.main_file = unit->source;
  src.read_source = !unit->source.empty();
  src.cubin = unit->cubin;
  Loaded l = load_ptx(src, o);
  l.binary = o.input;
  // The source file as nvcc named it: shown relative to the working directory when it is
  // under it, as a path typed for a .cu would be.
  l.input = shown_path(unit->source.empty() ? o.input : l.input);
  if (!l.source_text.empty()) {
    l.comments = parse_launch_comments(l.source_text, l.input);
    if (!l.comments.empty()) check_comment_kernels(l.comments, l.kernel_names(), l.input);
  }
  return l;
}

}  // namespace bankcheck::driver
