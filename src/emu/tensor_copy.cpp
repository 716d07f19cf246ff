// cp.async.bulk.tensor and cp.reduce.async.bulk.tensor: the TMA unit's copies of a box of a
// tensor that a tensor map (emu/tensor_map.hpp, bankcheck's encoding) describes, between
// global memory and the shared memory of a CTA (or, with .multicast::cluster, of several
// CTAs of its cluster), each issued by one thread, done at issue as cp.async.bulk's are
// (bulk_copy.cpp).
//
// Tile mode: the box starts at the coordinates (signed, one per dimension) and takes
// ceil(box[d] / elementStrides[d]) elements along each dimension d, element i at coordinate
// c[d] + i * elementStrides[d] (dimension 0's stride is ignored without interleave, as the
// driver documents). In shared memory the box is dense, dimension 0 fastest, each 16-byte
// chunk placed by the map's swizzle (swizzle_address: CuTe's Swizzle<B,4,3> on the shared
// address, the pattern of 256, 512 or 1024 bytes that 32B, 64B and 128B swizzles repeat).
// Elements outside the tensor read as zero (or, with OOB_FILL_NAN_REQUEST_ZERO_FMA, as the
// type's canonical NaN) and are not written by a store; the mbarrier's transaction count
// always completes the whole box's bytes.
//
// im2col mode (3 to 5 dimensions: C, then W, H, D, then N): pixelsPerColumn pixels of
// channelsPerPixel channels each; the pixels walk the bounding box (lower corner to the
// dimension's size - 1 plus the upper corner, W fastest, then H, D, N), starting at the
// coordinates' pixel, stepping by the element strides; each pixel's elements come from the
// pixel moved by the im2col offsets (W, H, D). As the PTX ISA describes it; not measured.
//
// Requests (AccessKind::Bulk): the global side 16 bytes per lane, 32 lanes per request, over
// each row of the box inside the tensor (Instr::site2); the shared side the same chunks where
// the swizzle put them (Instr::site). The TMA unit moves them, not the LSU: Nsight Compute
// lists one execution per warp and no wavefront or sector on either side (measured:
// model::tma_copy); the events carry the tile's addresses for the fix advisor.
#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "bankcheck/emu/tensor_map.hpp"
#include "cta.hpp"

namespace bankcheck::emu::detail {

namespace {

constexpr unsigned kChunk = 16;

// The canonical NaN of a tensor's element type (what the NaN fill writes).
std::uint64_t nan_of(const TensorMap& t) {
  switch (t.element_bytes) {
    case 2:
      return 0x7FFF;
    case 4:
      return 0x7FFFFFFF;
    default:
      return 0x7FFFFFFFFFFFFFFFull;
  }
}

// The 128 bytes of the tensor map at generic address `a`, decoded (faults name the lane).
TensorMap read_map(Ctx& c, const Instr& in, int pc, std::uint64_t a, int w, int lane) {
  std::uint8_t bytes[kTensorMapBytes];
  for (std::size_t half = 0; half < 2; ++half) {
    Space actual;
    const std::uint8_t* p = c.resolve(in, pc, Space::Generic, a + 64 * half, 64, w, lane, actual);
    if (actual == Space::Shared || actual == Space::Local)
      c.fail(EmuError::Kind::Unsupported, pc,
             fmt::format("cp.async.bulk.tensor's tensor map at 0x{:x} is in {} memory; it lives in "
                         "a kernel parameter, constant or global memory (lane {} of warp {})",
                         a, ptx::space_name(actual), lane, w));
    std::memcpy(bytes + 64 * half, p, 64);
  }
  TensorMap t;
  std::string why;
  if (!decode_tensor_map(bytes, t, &why))
    c.fail(EmuError::Kind::Unsupported, pc,
           fmt::format("cp.async.bulk.tensor's tensor map at 0x{:x}: {} (lane {} of warp {})", a,
                       why, lane, w));
  return t;
}

// One element of the box: its global address when it lies in the tensor.
struct Element {
  bool inside = false;
  std::uint64_t global = 0;
};

// The box's elements in shared-memory order (dimension 0 fastest), for tile mode.
std::vector<Element> tile_elements(const TensorMap& t, const std::int64_t* coord) {
  std::uint64_t count[5] = {1, 1, 1, 1, 1};
  for (unsigned d = 0; d < t.rank; ++d) {
    const std::uint32_t es =
        d == 0 && t.interleave == TensorInterleave::None ? 1 : t.element_stride[d];
    count[d] = (t.box[d] + es - 1) / es;
  }
  std::vector<Element> out;
  out.reserve(count[0] * count[1] * count[2] * count[3] * count[4]);
  std::uint64_t i[5] = {};
  for (i[4] = 0; i[4] < count[4]; ++i[4])
    for (i[3] = 0; i[3] < count[3]; ++i[3])
      for (i[2] = 0; i[2] < count[2]; ++i[2])
        for (i[1] = 0; i[1] < count[1]; ++i[1])
          for (i[0] = 0; i[0] < count[0]; ++i[0]) {
            Element e;
            e.inside = true;
            for (unsigned d = 0; d < t.rank; ++d) {
              const std::uint32_t es =
                  d == 0 && t.interleave == TensorInterleave::None ? 1 : t.element_stride[d];
              const std::int64_t g = coord[d] + static_cast<std::int64_t>(i[d] * es);
              if (g < 0 || static_cast<std::uint64_t>(g) >= t.dim[d]) e.inside = false;
              e.global += static_cast<std::uint64_t>(g) * t.stride[d];
            }
            e.global += t.address;
            out.push_back(e);
          }
  return out;
}

// The pixels' elements in shared-memory order (channels fastest), for im2col mode.
std::vector<Element> im2col_elements(const TensorMap& t, const std::int64_t* coord,
                                     const std::int64_t* offsets) {
  const unsigned spatial = t.rank - 2;  // W, H, D in dimensions 1..spatial
  std::int64_t lo[3] = {}, hi[3] = {}, at[3] = {};
  for (unsigned s = 0; s < spatial; ++s) {
    lo[s] = t.lower[s];
    hi[s] = static_cast<std::int64_t>(t.dim[1 + s]) - 1 + t.upper[s];
    at[s] = coord[1 + s];
  }
  std::int64_t n = coord[t.rank - 1];
  std::vector<Element> out;
  out.reserve(std::uint64_t{t.pixels} * t.channels);
  for (std::uint32_t p = 0; p < t.pixels; ++p) {
    for (std::uint32_t ch = 0; ch < t.channels; ++ch) {
      Element e;
      e.inside = true;
      const std::int64_t cc = coord[0] + ch;
      if (cc < 0 || static_cast<std::uint64_t>(cc) >= t.dim[0]) e.inside = false;
      e.global = static_cast<std::uint64_t>(cc) * t.stride[0];
      for (unsigned s = 0; s < spatial; ++s) {
        const std::int64_t g = at[s] + offsets[s];
        if (g < 0 || static_cast<std::uint64_t>(g) >= t.dim[1 + s]) e.inside = false;
        e.global += static_cast<std::uint64_t>(g) * t.stride[1 + s];
      }
      if (n < 0 || static_cast<std::uint64_t>(n) >= t.dim[t.rank - 1]) e.inside = false;
      e.global += static_cast<std::uint64_t>(n) * t.stride[t.rank - 1] + t.address;
      out.push_back(e);
    }
    // The next pixel: W first, wrapping to the box's lower corner into H, D, then N.
    for (unsigned s = 0;; ++s) {
      if (s == spatial) {
        ++n;
        break;
      }
      at[s] += t.element_stride[1 + s];
      if (at[s] <= hi[s]) break;
      at[s] = lo[s];
    }
  }
  return out;
}

// A swizzled chunk past the end of shared memory (a box whose last 128-byte row is
// partial, swizzled within its row).
[[noreturn]] void swizzled_out(Ctx& c, int pc, const char* what, std::uint64_t at,
                               std::uint64_t size, int w, int lane) {
  c.fail(EmuError::Kind::OutOfBounds, pc,
         fmt::format("{}: the swizzle places bytes at shared offset {}, past the {}-byte shared "
                     "window (lane {} of warp {})",
                     what, at, size, lane, w));
}

// Sends 16-byte chunk addresses as requests of 32 lanes (AccessKind::Bulk); `sent` says
// whether the warp's execution already sent an event on `site` (the first one counts it).
void emit_chunks(Ctx& c, const Instr& in, int site, int w, Space space,
                 const std::vector<std::uint64_t>& chunks, AccessEvent proto, bool& sent) {
  std::uint64_t a[32] = {};
  proto.kind = AccessKind::Bulk;
  for (std::size_t i = 0; i < chunks.size(); i += 32) {
    std::uint32_t mask = 0;
    for (std::size_t l = 0; l < 32 && i + l < chunks.size(); ++l) {
      a[l] = chunks[i + l];
      mask |= 1u << l;
    }
    proto.continues = sent;
    c.emit_kind(in, site, w, mask, space, a, kChunk, proto);
    sent = true;
  }
}

// One element of a reducing store: global combined with the shared value.
void reduce_into(const TensorMap& t, ptx::AtomOp op, std::uint8_t* g, const std::uint8_t* s) {
  const unsigned n = t.element_bytes;
  std::uint64_t a = 0, b = 0;
  std::memcpy(&a, g, n);
  std::memcpy(&b, s, n);
  Ty ty = Ty::None;
  switch (t.type) {
    case TensorDataType::F16:
      ty = Ty::F16;
      break;
    case TensorDataType::BF16:
      ty = Ty::BF16;
      break;
    case TensorDataType::F32:
    case TensorDataType::F32Ftz:
    case TensorDataType::TF32:
    case TensorDataType::TF32Ftz:
      ty = Ty::F32;
      break;
    case TensorDataType::F64:
      ty = Ty::F64;
      break;
    case TensorDataType::S32:
      ty = Ty::S32;
      break;
    case TensorDataType::S64:
      ty = Ty::S64;
      break;
    default:
      ty = n == 1 ? Ty::U8 : n == 2 ? Ty::U16 : n == 4 ? Ty::U32 : Ty::U64;
  }
  const std::uint64_t r = reduce_values(op, ty, a, b);
  std::memcpy(g, &r, n);
}

}  // namespace

void tensor_copy(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec) {
  const ptx::MbarMods& m = in.mod.mbar;
  const char* what = m.reduce ? "cp.reduce.async.bulk.tensor" : "cp.async.bulk.tensor";
  bool sent = false, sent2 = false;  // the warp's events on site and site2
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    const TensorMap t = read_map(c, in, pc, c.address_of(in.mem2, w, l), w, l);
    if (m.im2col != (t.mode == TensorMap::Mode::Im2col) || t.rank != m.tensor_dims)
      c.fail(EmuError::Kind::Unsupported, pc,
             fmt::format("{} .{}d{} with a {}-dimensional {} tensor map (lane {} of warp {})", what,
                         m.tensor_dims, m.im2col ? " .im2col" : " .tile", t.rank,
                         t.mode == TensorMap::Mode::Im2col ? "im2col" : "tiled", l, w));
    std::int64_t coord[5] = {}, offsets[3] = {};
    for (unsigned d = 0; d < m.tensor_dims; ++d)
      coord[d] = static_cast<std::int32_t>(static_cast<std::uint32_t>(c.val(in.frag[d], w, l)));
    for (unsigned o = 0; o < m.im2col_offsets; ++o)
      offsets[o] = static_cast<std::uint16_t>(c.val(in.frag[m.tensor_dims + o], w, l));
    const std::vector<Element> elems =
        m.im2col ? im2col_elements(t, coord, offsets) : tile_elements(t, coord);
    const std::uint64_t es = t.element_bytes;
    const std::uint64_t bytes = elems.size() * es;
    const unsigned swz = static_cast<unsigned>(t.swizzle);  // 0..3: the B of Swizzle<B,4,3>
    // The box's row in shared memory: its inner dimension's bytes.
    const auto row_bytes = static_cast<std::uint16_t>(
        m.im2col ? t.channels * es
                 : (t.interleave == TensorInterleave::None
                        ? t.box[0]
                        : (t.box[0] + t.element_stride[0] - 1) / t.element_stride[0]) *
                       es);
    const std::uint64_t smem = c.address(in, w, l);
    if (smem % 128 != 0)
      c.fail(EmuError::Kind::Misaligned, pc,
             fmt::format("{}: shared address 0x{:x} is not 128-byte aligned (lane {} of warp {})",
                         what, smem, l, w));
    Ctx* owner = nullptr;
    std::uint64_t base = 0;
    c.shared_range(in, pc, smem, bytes, w, l, what, owner, base);
    // Where element i lies in shared memory (its CTA's offset), and its global bytes.
    const auto shared_at = [&](std::size_t i) { return swizzle_address(base + i * es, swz); };
    const auto global_at = [&](const Element& e, std::uint64_t n) -> std::uint8_t* {
      GlobalMemory::Buffer* b = c.mem.find(e.global, n);
      if (!b)
        c.fail(EmuError::Kind::OutOfBounds, pc,
               fmt::format("{}: element at 0x{:x} of the tensor at 0x{:x} is outside every buffer "
                           "(lane {} of warp {})",
                           what, e.global, t.address, l, w));
      if (c.bookkeeping) touch(*b, e.global - b->base + n, !m.to_global);
      if (c.footprint)
        c.footprint->mark(*b, e.global - b->base, n,
                          !m.to_global ? Footprint::Access::Read
                          : m.reduce   ? Footprint::Access::ReadWrite
                                       : Footprint::Access::Write);
      return b->data() + (e.global - b->base);
    };
    // The requests: each inside row's 16-byte chunks, global and shared.
    std::vector<std::uint64_t> gchunks, schunks;
    if (c.has_listeners)
      for (std::size_t i = 0; i < elems.size(); i += kChunk / es) {
        bool inside = false;
        for (std::size_t j = i; j < elems.size() && j < i + kChunk / es; ++j)
          inside = inside || elems[j].inside;
        if (!inside) continue;
        for (std::size_t j = i; j < elems.size() && j < i + kChunk / es; ++j)
          if (elems[j].inside) {
            gchunks.push_back(elems[j].global - (j - i) * es);
            break;
          }
        schunks.push_back(shared_at(i));
      }
    if (m.to_global) {
      if (owner != &c)
        c.fail(EmuError::Kind::OutOfBounds, pc,
               fmt::format("{} reads shared::cta memory: 0x{:x} names another CTA (lane {} of "
                           "warp {})",
                           what, smem, l, w));
      for (std::size_t i = 0; i < elems.size(); ++i) {
        if (!elems[i].inside) continue;
        const std::uint64_t s = shared_at(i);
        if (s + es > c.shared.size()) swizzled_out(c, pc, what, s, c.shared.size(), w, l);
        if (c.bookkeeping && c.test_reads(in.site) && !c.written->test(s, es))
          c.read_unwritten_at(in.site);
        std::uint8_t* g = global_at(elems[i], es);
        if (m.reduce)
          reduce_into(t, m.reduce_op, g, c.shared.data() + s);
        else
          std::memcpy(g, c.shared.data() + s, es);
      }
      if (c.has_listeners) {
        AccessEvent gside, sside;
        gside.op = model::Op::Store;
        sside.kind = AccessKind::Bulk;
        sside.op = model::Op::Load;
        sside.swizzle = static_cast<std::int8_t>(swz);
        sside.row_bytes = row_bytes;
        emit_chunks(c, in, in.site2, w, Space::Global, gchunks, gside, sent2);
        emit_chunks(c, in, in.site, w, Space::Shared, schunks, sside, sent);
      }
      continue;
    }
    // Into shared memory: the box's bytes from global memory (fills outside the tensor).
    std::vector<std::uint8_t> box(bytes);
    const std::uint64_t fill = t.oob_fill == TensorOobFill::NanRequestZeroFma ? nan_of(t) : 0;
    for (std::size_t i = 0; i < elems.size(); ++i) {
      if (elems[i].inside)
        std::memcpy(box.data() + i * es, global_at(elems[i], es), es);
      else
        std::memcpy(box.data() + i * es, &fill, es);
    }
    if (c.has_listeners) {
      AccessEvent gside;
      gside.op = model::Op::Load;
      emit_chunks(c, in, in.site2, w, Space::Global, gchunks, gside, sent2);
    }
    const std::uint64_t mbar = c.address_of(in.mem3, w, l);
    std::uint32_t targets = 1u << 31;  // the destination's own CTA
    if (m.multicast) {
      if (owner != &c)
        c.fail(EmuError::Kind::OutOfBounds, pc,
               fmt::format("{} .multicast::cluster to 0x{:x}: the destination is an offset in the "
                           "issuing CTA's shared memory (lane {} of warp {})",
                           what, smem, l, w));
      targets = static_cast<std::uint32_t>(c.val(in.src[0], w, l) & 0xFFFFu);
    }
    for (std::uint32_t r = 0; r < 32; ++r) {
      if (!((targets >> r) & 1u)) continue;
      Ctx* to = owner;
      std::uint64_t at = base, mbar_at = mbar;
      if (r != 31) {
        if (r >= c.cluster_size) continue;
        const std::uint64_t tag = std::uint64_t{r + 1} << ptx::kClusterRankShift;
        c.shared_range(in, pc, base | tag, bytes, w, l, what, to, at);
        mbar_at = (static_cast<std::uint32_t>(mbar) & ptx::kClusterOffsetMask) | tag;
      }
      for (std::size_t i = 0; i < elems.size(); ++i) {
        const std::uint64_t s = swizzle_address(at + i * es, swz);
        if (s + es > to->shared.size()) swizzled_out(c, pc, what, s, to->shared.size(), w, l);
        std::memcpy(to->shared.data() + s, box.data() + i * es, es);
        if (c.bookkeeping) to->written->mark(s, es);
      }
      if (c.has_listeners) {
        AccessEvent sside;
        sside.kind = AccessKind::Bulk;
        sside.op = model::Op::Store;
        sside.swizzle = static_cast<std::int8_t>(swz);
        sside.row_bytes = row_bytes;
        std::vector<std::uint64_t> placed;
        placed.reserve(elems.size() * es / kChunk + 1);
        const std::uint64_t tag =
            to == &c ? 0 : std::uint64_t{to->cluster_rank + 1} << ptx::kClusterRankShift;
        for (std::size_t i = 0; i < elems.size(); i += kChunk / es)
          placed.push_back(swizzle_address(at + i * es, swz) | tag);
        emit_chunks(c, in, in.site, w, Space::Shared, placed, sside, sent);
      }
      mbarrier_complete_tx(c, in, pc, mbar_at, Space::Shared, bytes, w, l);
    }
  }
}

}  // namespace bankcheck::emu::detail
