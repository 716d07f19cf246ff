// The taint of addresses by loaded data (address_taint.hpp): one fixpoint over the kernel's
// instructions with three facts per register: the first input load whose value reaches it,
// the pointer sources of the buffers whose data reach it, and the pointer sources of its own
// value (a pointer read with ld.param and moved, converted or offset).
#include "bankcheck/analysis/address_taint.hpp"

#include <algorithm>

namespace bankcheck::analysis {
namespace {

// Where a value can come from memory the input fills: global and generic loads (a generic
// pointer is global unless proven otherwise), and atomics on them; param and const hold the
// launch's own values.
bool reads_input(const ptx::Instr& in) {
  if (in.op != ptx::Opc::Ld && in.op != ptx::Opc::Atom) return false;
  return in.space == ptx::Space::Global || in.space == ptx::Space::Generic;
}

// A memory the kernel writes and reads back: a value stored there carries its origin to
// every load from it (the taint is flow-insensitive: one cell per space).
int space_cell(ptx::Space s) {
  switch (s) {
    case ptx::Space::Shared:
      return 0;
    case ptx::Space::Local:
      return 1;
    default:
      return -1;
  }
}

// At most 64 pointer sources are told apart (a bit each); a kernel reading more pointers
// than that names the first 64.
using Mask = std::uint64_t;

struct Fact {
  int origin = -1;   // an input load's site
  Mask data = 0;     // sources of the buffers whose data reach the value
  Mask pointer = 0;  // sources of the value itself, as a pointer
  // Adds `o`; whether anything changed.
  bool add(const Fact& o) {
    const Fact before = *this;
    if (origin < 0) origin = o.origin;
    data |= o.data;
    pointer |= o.pointer;
    return origin != before.origin || data != before.data || pointer != before.pointer;
  }
};

class Taint {
 public:
  explicit Taint(const ptx::Kernel& k) : k_(k), reg_(k.num_regs), pred_(k.num_preds) {}

  std::vector<AddressInputs> run() {
    for (bool changed = true; changed;) {  // each pass only adds; finitely many facts
      changed = false;
      for (const ptx::Instr& in : k_.code) changed |= step(in);
    }
    std::vector<AddressInputs> out(k_.sites.size());
    for (std::size_t s = 0; s < k_.sites.size(); ++s) {
      const ptx::Instr& in = k_.code[k_.sites[s].instr];
      if (!in.mem.has_reg || in.mem.reg >= reg_.size()) continue;
      const Fact& f = reg_[in.mem.reg];
      out[s].origin = f.origin;
      for (std::size_t b = 0; b < sources_.size(); ++b)
        if (f.data >> b & 1) out[s].pointers.push_back(sources_[b]);
    }
    return out;
  }

 private:
  Fact of(const ptx::Opnd& o) const {
    if (o.kind == ptx::Opnd::Kind::Reg && o.reg < reg_.size()) return reg_[o.reg];
    if (o.kind == ptx::Opnd::Kind::Pred && o.reg < pred_.size()) return pred_[o.reg];
    return {};
  }
  bool define(const ptx::Opnd& o, const Fact& f) {
    if (o.kind == ptx::Opnd::Kind::Reg && o.reg < reg_.size()) return reg_[o.reg].add(f);
    if (o.kind == ptx::Opnd::Kind::Pred && o.reg < pred_.size()) return pred_[o.reg].add(f);
    return false;
  }
  Mask source_bit(ptx::Space space, std::uint64_t offset) {
    const PointerSource s{space, offset};
    auto it = std::find(sources_.begin(), sources_.end(), s);
    if (it == sources_.end()) {
      if (sources_.size() == 64) return 0;
      sources_.push_back(s);
      it = sources_.end() - 1;
    }
    return Mask{1} << (it - sources_.begin());
  }

  bool step(const ptx::Instr& in) {
    bool changed = false;
    Fact f;
    for (int i = 0; i < in.nsrc; ++i) f.add(of(in.src[i]));
    for (std::size_t i = in.frag_defs; i < in.frag.size(); ++i) f.add(of(in.frag[i]));
    if (in.guard >= 0 && static_cast<std::size_t>(in.guard) < pred_.size())
      f.add(pred_[static_cast<std::size_t>(in.guard)]);
    const bool load = in.op == ptx::Opc::Ld || in.op == ptx::Opc::Atom;
    if (load) {
      Fact address;
      if (in.mem.has_reg && in.mem.reg < reg_.size()) address = reg_[in.mem.reg];
      // A value read at a data-dependent address depends on that data; what it points to is
      // not known (a pointer read from a buffer is not followed).
      f.origin = f.origin < 0 ? address.origin : f.origin;
      f.data |= address.data;
      if (reads_input(in)) {
        if (f.origin < 0) f.origin = in.site;
        f.data |= address.pointer;
      }
      // A pointer read from the parameters or from a module variable by its symbol.
      if (!in.mem.has_reg && in.op == ptx::Opc::Ld &&
          (in.space == ptx::Space::Param || in.space == ptx::Space::Const ||
           in.space == ptx::Space::Global))
        f.pointer |= source_bit(in.space, static_cast<std::uint64_t>(in.mem.offset));
    }
    const int c = space_cell(in.space);
    if (c >= 0) {
      if (load) f.add(cell_[c]);
      if (in.op == ptx::Opc::St || in.op == ptx::Opc::Atom || in.op == ptx::Opc::Red)
        changed |= cell_[c].add(Fact{f.origin, f.data, 0});
    }
    if (in.op == ptx::Opc::CpAsync || (in.op == ptx::Opc::CpAsyncBulk && !in.mod.mbar.to_global))
      changed |= cell_[0].add(Fact{in.site2, f.data | f.pointer, 0});     // global -> shared
    if (in.op == ptx::Opc::St || in.op == ptx::Opc::Red) return changed;  // no register written
    for (int i = 0; i < in.ndst; ++i) changed |= define(in.dst[i], f);
    for (std::size_t i = 0; i < in.frag_defs && i < in.frag.size(); ++i)
      changed |= define(in.frag[i], f);
    return changed;
  }

  const ptx::Kernel& k_;
  std::vector<Fact> reg_, pred_;
  Fact cell_[2];
  std::vector<PointerSource> sources_;
};

}  // namespace

std::vector<AddressInputs> address_inputs(const ptx::Kernel& k) { return Taint(k).run(); }

std::vector<int> address_origins(const ptx::Kernel& k) {
  const std::vector<AddressInputs> in = address_inputs(k);
  std::vector<int> out(k.sites.size(), -1);
  for (std::size_t s = 0; s < k.sites.size(); ++s)
    if (k.code[k.sites[s].instr].space == ptx::Space::Shared) out[s] = in[s].origin;
  return out;
}

}  // namespace bankcheck::analysis
