// The decoder's form of the tensor copies of the TMA unit, with a tensor map:
//
//   cp.async.bulk.tensor.Nd.shared::cluster.global{.tile|.im2col}.mbarrier::complete_tx::bytes
//       {.multicast::cluster}{.L2::cache_hint}
//       [dstMem], [tensorMap, {c0, ...}], [mbar]{, {im2colOffsets}}{, ctaMask}{, policy};
//   cp.async.bulk.tensor.Nd.global.shared::cta{.tile|.im2col_no_offs}.bulk_group
//       {.L2::cache_hint} [tensorMap, {c0, ...}], [srcMem]{, policy};
//   cp.reduce.async.bulk.tensor.Nd.global.shared::cta.{add,min,max,inc,dec,and,or,xor}
//       {.tile|.im2col_no_offs}.bulk_group{.L2::cache_hint} [tensorMap, {...}], [srcMem]{, policy};
//
// The coordinates (and im2col offsets) go to Instr::frag, the map's address to mem2, the
// shared side to mem, the mbarrier to mem3, the multicast mask to src[0]. The gather4 and
// scatter4 modes and the im2col::w modes are sm_100's and refused.
#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "decode_instr.hpp"

namespace bankcheck::ptx::detail {

namespace {

bool has(const Instruction& in, std::string_view m) {
  return std::find(in.modifiers.begin(), in.modifiers.end(), m) != in.modifiers.end();
}

}  // namespace

void decode_tensor_copy(const Instruction& in, OperandDecoder& d, Instr& ins) {
  const auto fail = [&](const std::string& m) { throw d.error(in, m); };
  ins.op = Opc::CpAsyncBulkTensor;
  MbarMods& m = ins.mod.mbar;
  static constexpr std::string_view kDims[] = {".1d", ".2d", ".3d", ".4d", ".5d"};
  for (int n = 1; n <= 5; ++n)
    if (has(in, kDims[n - 1])) m.tensor_dims = static_cast<std::uint8_t>(n);
  if (m.tensor_dims == 0) fail("cp.async.bulk.tensor needs its dimensions (.1d to .5d)");
  if (has(in, ".tile::gather4") || has(in, ".tile::scatter4") || has(in, ".im2col::w") ||
      has(in, ".im2col::w::128") || has(in, ".cta_group::1") || has(in, ".cta_group::2"))
    fail("this cp.async.bulk.tensor mode is sm_100's and is not emulated");
  m.im2col = has(in, ".im2col") || has(in, ".im2col_no_offs");
  if (m.im2col && m.tensor_dims < 3) fail("cp.async.bulk.tensor .im2col needs 3 to 5 dimensions");
  m.reduce = in.opcode == "cp" && has(in, ".reduce");
  if (m.reduce) {
    static const std::pair<const char*, AtomOp> kOps[] = {
        {".add", AtomOp::Add}, {".min", AtomOp::Min}, {".max", AtomOp::Max}, {".inc", AtomOp::Inc},
        {".dec", AtomOp::Dec}, {".and", AtomOp::And}, {".or", AtomOp::Or},   {".xor", AtomOp::Xor}};
    bool found = false;
    for (const auto& [n, op] : kOps)
      if (has(in, n)) {
        m.reduce_op = op;
        found = true;
      }
    if (!found) fail("cp.reduce.async.bulk.tensor needs its reduction (.add, .min, ...)");
  }
  // The first state space named is the destination.
  std::string_view first;
  for (const auto& x : in.modifiers)
    if (x == ".global" || x == ".shared::cluster" || x == ".shared::cta" || x == ".shared") {
      first = x;
      break;
    }
  m.to_global = first == ".global";
  if (m.reduce && !m.to_global) fail("cp.reduce.async.bulk.tensor writes global memory");
  m.multicast = has(in, ".multicast::cluster");
  if (m.to_global ? !has(in, ".bulk_group") : !has(in, ".mbarrier::complete_tx::bytes"))
    fail(m.to_global ? "cp.async.bulk.tensor to global memory completes through .bulk_group"
                     : "cp.async.bulk.tensor to shared memory completes on an mbarrier "
                       "(.mbarrier::complete_tx::bytes)");
  if (m.multicast && m.to_global) fail(".multicast::cluster applies to copies into shared memory");
  const bool hint = has(in, ".L2::cache_hint");
  const std::size_t tensor_at = m.to_global ? 0 : 1;
  if (in.operands.size() <= tensor_at)
    fail("cp.async.bulk.tensor needs [tensorMap, {coordinates}]");
  const Operand& tensor = in.operands[tensor_at];
  if (tensor.kind != Operand::Kind::Address || tensor.elems.size() != 1 ||
      tensor.elems[0].kind != Operand::Kind::Vector)
    fail("cp.async.bulk.tensor's tensor operand is [tensorMap, {c0, ...}]");
  const auto& coords = tensor.elems[0].elems;
  if (coords.size() != m.tensor_dims)
    fail(fmt::format("cp.async.bulk.tensor .{}d takes {} coordinates", m.tensor_dims,
                     m.tensor_dims));
  Space generic = Space::Generic;
  Operand map = tensor;
  map.elems.clear();
  ins.mem2 = d.memref(in, map, generic);
  // A kernel parameter named directly: its generic address (the map is read through the
  // generic address space, where a parameter lives in the param window).
  if (generic == Space::Param) ins.mem2.offset += static_cast<std::int64_t>(kParamWindow);
  for (const Operand& c : coords) ins.frag.push_back(d.operand(in, c, Ty::S32));
  ins.space = Space::Shared;
  Space shared = Space::Shared;
  if (m.to_global) {
    if (in.operands.size() != 2 + (hint ? 1u : 0u))
      fail(
          fmt::format("cp.async.bulk.tensor to global memory takes [tensorMap, {{...}}], "
                      "[srcMem]{}",
                      hint ? ", cache-policy" : ""));
    ins.mem = d.memref(in, in.operands[1], shared);
    return;
  }
  if (in.operands.size() < 3)
    fail("cp.async.bulk.tensor takes [dstMem], [tensorMap, {...}], [mbar]");
  ins.mem = d.memref(in, in.operands[0], shared);
  Space mbar = Space::Shared;
  ins.mem3 = d.memref(in, in.operands[2], mbar);
  std::size_t next = 3;
  if (m.im2col) {
    if (next >= in.operands.size() || in.operands[next].kind != Operand::Kind::Vector ||
        in.operands[next].elems.size() != static_cast<std::size_t>(m.tensor_dims - 2))
      fail(
          fmt::format("cp.async.bulk.tensor .im2col takes {} im2col offsets {{..}} after the "
                      "mbarrier",
                      m.tensor_dims - 2));
    for (const Operand& o : in.operands[next].elems) ins.frag.push_back(d.operand(in, o, Ty::U16));
    m.im2col_offsets = static_cast<std::uint8_t>(m.tensor_dims - 2);
    ++next;
  }
  if (m.multicast) {
    if (next >= in.operands.size()) fail(".multicast::cluster takes a ctaMask operand");
    ins.src[0] = d.operand(in, in.operands[next++], Ty::U16);
    ins.nsrc = 1;
  }
  if (hint) ++next;
  if (next != in.operands.size())
    fail(fmt::format("'{}' has {} operands, expected {}", in.text, in.operands.size(), next));
}

}  // namespace bankcheck::ptx::detail
