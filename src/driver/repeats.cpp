// Launches whose results are already in memory (repeats.hpp).
#include "repeats.hpp"

#include <cstring>
#include <optional>

namespace bankcheck::driver {

namespace {

// The special registers whose value differs from run to run.
bool varies(const ptx::Opnd& o) {
  if (o.kind != ptx::Opnd::Kind::Special) return false;
  switch (static_cast<ptx::Special>(o.reg)) {
    case ptx::Special::Clock:
    case ptx::Special::Clock64:
    case ptx::Special::Globaltimer:
      return true;
    default:
      return false;
  }
}

// Whether the footprint records every global access `op` makes (or it makes none). An
// opcode this list does not name is not repeatable: a new instruction counts only once its
// accesses are marked.
bool marked(ptx::Opc op) {
  using ptx::Opc;
  switch (op) {
    case Opc::Mov:
    case Opc::Cvt:
    case Opc::Cvta:
    case Opc::Isspacep:
    case Opc::Selp:
    case Opc::Slct:
    case Opc::Setp:
    case Opc::Set:
    case Opc::Add:
    case Opc::Sub:
    case Opc::Mul:
    case Opc::Mad:
    case Opc::Div:
    case Opc::Rem:
    case Opc::Abs:
    case Opc::Neg:
    case Opc::Min:
    case Opc::Max:
    case Opc::Fma:
    case Opc::Copysign:
    case Opc::Rcp:
    case Opc::Sqrt:
    case Opc::Rsqrt:
    case Opc::Ex2:
    case Opc::Lg2:
    case Opc::Sin:
    case Opc::Cos:
    case Opc::Tanh:
    case Opc::Testp:
    case Opc::And:
    case Opc::Or:
    case Opc::Xor:
    case Opc::Not:
    case Opc::CNot:
    case Opc::Shl:
    case Opc::Shr:
    case Opc::Popc:
    case Opc::Clz:
    case Opc::Bfind:
    case Opc::Brev:
    case Opc::Bfe:
    case Opc::Bfi:
    case Opc::Bmsk:
    case Opc::Prmt:
    case Opc::Lop3:
    case Opc::Ld:    // micro-ops and resolve()
    case Opc::St:    // micro-ops and resolve()
    case Opc::Atom:  // resolve(): read and written
    case Opc::Red:   // resolve(): read and written
    case Opc::Bra:
    case Opc::Bar:
    case Opc::Ret:
    case Opc::Exit:
    case Opc::Trap:
    case Opc::Shfl:
    case Opc::Vote:
    case Opc::Match:
    case Opc::Activemask:
    case Opc::Ldmatrix:  // shared memory only
    case Opc::Stmatrix:
    case Opc::Mma:
    case Opc::Movmatrix:
    case Opc::CpAsync:  // async_copy.cpp: the whole source
    case Opc::CpAsyncCommit:
    case Opc::CpAsyncWait:
    case Opc::WmmaLoad:   // resolve()
    case Opc::WmmaStore:  // resolve()
    case Opc::WmmaMma:
    case Opc::Redux:
    case Opc::Dp4a:
    case Opc::Dp2a:
    case Opc::Sad:
    case Opc::Addc:
    case Opc::Subc:
    case Opc::Madc:
    case Opc::Mbarrier:  // shared memory
    case Opc::MbarrierWait:
    case Opc::Nop:
      return true;
    default:  // cp.async.bulk (its tensor forms read through tensor maps), wgmma, ...
      return false;
  }
}

// xxHash64's round and merge (Collet): four independent lanes over 32-byte stripes.
constexpr std::uint64_t kP1 = 0x9E3779B185EBCA87ull, kP2 = 0xC2B2AE3D27D4EB4Full,
                        kP3 = 0x165667B19E3779F9ull, kP4 = 0x85EBCA77C2B2AE63ull,
                        kP5 = 0x27D4EB2F165667C5ull;
inline std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
inline std::uint64_t round64(std::uint64_t acc, std::uint64_t v) {
  return rotl(acc + v * kP2, 31) * kP1;
}
inline std::uint64_t merge(std::uint64_t h, std::uint64_t v) {
  return (h ^ round64(0, v)) * kP1 + kP4;
}
inline std::uint64_t read64(const std::uint8_t* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// The hash of `n` bytes at `p`, from `seed`.
std::uint64_t hash_bytes(const std::uint8_t* p, std::uint64_t n, std::uint64_t seed) {
  std::uint64_t h;
  const std::uint8_t* const end = p + n;
  if (n >= 32) {
    std::uint64_t v1 = seed + kP1 + kP2, v2 = seed + kP2, v3 = seed, v4 = seed - kP1;
    for (const std::uint8_t* last = end - 32; p <= last; p += 32) {
      v1 = round64(v1, read64(p));
      v2 = round64(v2, read64(p + 8));
      v3 = round64(v3, read64(p + 16));
      v4 = round64(v4, read64(p + 24));
    }
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = merge(merge(merge(merge(h, v1), v2), v3), v4);
  } else {
    h = seed + kP5;
  }
  h += n;
  for (; p + 8 <= end; p += 8) h = rotl(h ^ round64(0, read64(p)), 27) * kP1 + kP4;
  for (; p < end; ++p) h = rotl(h ^ (*p * kP5), 11) * kP1;
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  return h ^ (h >> 32);
}

}  // namespace

bool repeatable(const ptx::Kernel& k, std::string& why) {
  for (const ptx::Instr& in : k.code) {
    if (!marked(in.op)) {
      why = "it uses " + std::string(ptx::opc_name(in.op));
      return false;
    }
    for (int i = 0; i < in.nsrc; ++i)
      if (varies(in.src[i])) {
        why = "it reads a clock";
        return false;
      }
  }
  return true;
}

std::optional<std::uint64_t> hash_ranges(const std::vector<emu::Footprint::Range>& ranges,
                                         emu::GlobalMemory& memory) {
  std::uint64_t h = 0;
  for (const auto& r : ranges) {
    emu::GlobalMemory::Buffer* b = memory.find(r.begin, r.end - r.begin);
    if (!b) return std::nullopt;
    h = hash_bytes(b->data() + (r.begin - b->base), r.end - r.begin, h ^ r.begin);
  }
  return h;
}

Repeats::Repeats(const ptx::Kernel& k) { enabled_ = repeatable(k, why_not_); }

bool Repeats::unchanged(Part& part, bool same_epoch, emu::GlobalMemory& memory) {
  emu::GlobalMemory::Buffer* b = memory.find(part.base, 1);
  const bool same = b && b->base == part.base && b->id == part.id;
  if (same && same_epoch && memory.writes_reported && !b->host_writable &&
      b->version == part.version)
    return true;
  const std::optional<std::uint64_t> h = hash_ranges(part.ranges, memory);
  if (!h || *h != part.hash) return false;
  // The same bytes: from now on, the buffer as it is.
  if (b && b->base == part.base) {
    part.id = b->id;
    part.version = b->version;
  }
  return true;
}

bool Repeats::already_in_memory(const emu::Launch& launch, emu::GlobalMemory& memory) {
  for (Execution& e : executions_) {
    if (!(e.launch == launch)) continue;
    const bool same_epoch = e.epoch == memory.epoch;
    for (Part& p : e.parts)
      if (!unchanged(p, same_epoch, memory)) return false;
    e.epoch = memory.epoch;  // every part known to hold what it held
    return true;
  }
  return false;
}

emu::Footprint* Repeats::record(emu::GlobalMemory& memory) {
  if (!enabled_) return nullptr;
  footprint_ = std::make_unique<emu::Footprint>(memory);
  return footprint_.get();
}

void Repeats::abandon(emu::GlobalMemory& memory) {
  footprint_.reset();
  ++memory.epoch;
}

void Repeats::ran(const emu::Launch& launch, emu::GlobalMemory& memory, bool complete) {
  const std::unique_ptr<emu::Footprint> fp = std::move(footprint_);
  if (!fp || !fp->complete()) {
    ++memory.epoch;  // it wrote somewhere
    return;
  }
  for (emu::GlobalMemory::Buffer* b : fp->written_buffers()) ++b->version;
  std::erase_if(executions_, [&](const Execution& e) { return e.launch == launch; });
  if (!complete) return;
  if (fp->reads_what_it_writes()) {
    // In place (x += y): never repeatable. After a few in a row the kernel is taken to be
    // one that updates its data (recording costs time); this is an economy, not the rule.
    if (++unrepeatable_ >= 4) {
      enabled_ = false;
      why_not_ = "it reads global memory it writes";
    }
    return;
  }
  unrepeatable_ = 0;
  Execution e{launch, memory.epoch, {}};
  for (const emu::Footprint::Range& r : fp->touched()) {
    emu::GlobalMemory::Buffer* b = memory.find(r.begin, r.end - r.begin);
    if (!b) return;
    if (e.parts.empty() || e.parts.back().base != b->base)
      e.parts.push_back({b->id, b->base, b->version, {}, 0});
    e.parts.back().ranges.push_back(r);
  }
  for (Part& p : e.parts) {
    const std::optional<std::uint64_t> h = hash_ranges(p.ranges, memory);
    if (!h) return;
    p.hash = *h;
  }
  if (executions_.size() >= 16) executions_.erase(executions_.begin());
  executions_.push_back(std::move(e));
}

}  // namespace bankcheck::driver
