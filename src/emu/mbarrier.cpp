// mbarrier objects: their 8 bytes in shared memory, and the operations on them (init,
// arrive, arrive_drop, expect_tx, complete_tx, test_wait/try_wait, pending_count, inval) as
// the PTX ISA defines them, one lane at a time in lane order.
//
// The object's bytes hold the ISA's state in a representation of bankcheck's own (the ISA
// leaves it opaque, and reading it with ordinary loads undefined):
//
//   bit 63     62      61   60 .......... 40  39 ......... 20  19 .......... 0
//   [ valid | phase | 0 |  tx-count (s21)  | expected (u20) | pending (u20) ]
//
// valid: initialised and not invalidated; phase: the current phase's parity; tx-count: the
// transaction bytes still expected (negative when a copy completed before its expect_tx);
// expected: the arrivals each phase needs; pending: the arrivals the current phase still
// needs. The phase completes when pending and tx-count are both 0: the parity flips, pending
// is set back to expected. An arrive's state token is the object's word before the arrive,
// so a wait on it compares parities, and pending_count reads its pending field.
//
// The waits: the warp loop (emulator.cpp) runs mbarrier_wait; when a lane's phase has not
// completed the warp yields at the wait and runs again only once some mbarrier of the CTA
// has changed, so a try_wait loop does not spin; when no warp can run, a waiting warp is
// given a false result once per change (test_wait and try_wait may return false), and when
// none is left, the run stops with a deadlock error at the wait.
#include <fmt/format.h>

#include <cstring>

#include "cta.hpp"

namespace bankcheck::emu::detail {

namespace {

constexpr std::uint64_t kValid = 1ull << 63, kPhase = 1ull << 62;
constexpr std::int64_t kMaxCount = (1 << 20) - 1;  // the ISA's range of counts and tx-counts

struct State {
  bool valid = false;
  bool phase = false;
  std::int64_t tx = 0;
  std::int64_t expected = 0, pending = 0;

  static State of(std::uint64_t x) {
    State s;
    s.valid = x & kValid;
    s.phase = x & kPhase;
    const std::uint64_t t = (x >> 40) & 0x1FFFFF;
    s.tx = (t & 0x100000) ? static_cast<std::int64_t>(t) - 0x200000 : static_cast<std::int64_t>(t);
    s.expected = static_cast<std::int64_t>((x >> 20) & 0xFFFFF);
    s.pending = static_cast<std::int64_t>(x & 0xFFFFF);
    return s;
  }
  std::uint64_t word() const {
    return (valid ? kValid : 0) | (phase ? kPhase : 0) |
           ((static_cast<std::uint64_t>(tx) & 0x1FFFFF) << 40) |
           (static_cast<std::uint64_t>(expected) << 20) | static_cast<std::uint64_t>(pending);
  }
};

// The lane's mbarrier object: its host bytes (bounds and 8-byte alignment checked by the
// memory path) and its shared offset.
std::uint8_t* object(Ctx& c, const Instr& in, int pc, std::uint64_t a, Space space, int w, int lane,
                     std::uint64_t& offset) {
  Space actual;
  std::uint8_t* p = c.resolve(in, pc, space, a, 8, w, lane, actual);
  if (actual != Space::Shared)
    c.fail(EmuError::Kind::Unsupported, pc,
           fmt::format("mbarrier object at 0x{:x} is not in shared memory (lane {} of warp {})", a,
                       lane, w));
  offset = c.resolved_shared;  // with the CTA's rank bits when it is another CTA's
  return p;
}

State load(const std::uint8_t* p) {
  std::uint64_t x;
  std::memcpy(&x, p, 8);
  return State::of(x);
}
void store(Ctx& c, std::uint8_t* p, const State& s) {
  const std::uint64_t x = s.word();
  std::memcpy(p, &x, 8);
  ++*c.mbar_changes;
}

[[noreturn]] void undefined(Ctx& c, int pc, std::uint64_t offset, int w, int lane,
                            const std::string& what) {
  c.fail(EmuError::Kind::Unsupported, pc,
         fmt::format("{} (mbarrier at shared offset 0x{:x}, lane {} of warp {}); the PTX ISA "
                     "leaves the result undefined",
                     what, offset, lane, w));
}

State valid_state(Ctx& c, const std::uint8_t* p, int pc, std::uint64_t offset, int w, int lane) {
  const State s = load(p);
  if (!s.valid) undefined(c, pc, offset, w, lane, "mbarrier used before mbarrier.init");
  return s;
}

// The tx-count moved by `delta`, in the ISA's range.
void add_tx(Ctx& c, State& s, std::int64_t delta, int pc, std::uint64_t offset, int w, int lane) {
  s.tx += delta;
  if (s.tx > kMaxCount || s.tx < -kMaxCount)
    undefined(c, pc, offset, w, lane,
              fmt::format("mbarrier tx-count {} out of the range [-(2^20-1), 2^20-1]", s.tx));
}

// Phase completion: no arrival and no transaction byte pending.
void complete_if_done(State& s) {
  if (s.pending != 0 || s.tx != 0) return;
  s.phase = !s.phase;
  s.pending = s.expected;
}

// Whether lane `l`'s wait is over: the phase waited for is the current one or the one
// before it; it has completed when its parity is not the current phase's.
bool wait_over(Ctx& c, const Instr& in, int pc, int w, int l, State& s, std::uint64_t& offset) {
  const std::uint8_t* p = object(c, in, pc, c.address(in, w, l), in.space, w, l, offset);
  s = valid_state(c, p, pc, offset, w, l);
  const std::uint64_t v = c.val(in.src[0], w, l);
  const bool waited_parity = in.mod.mbar.parity ? (v & 1u) : State::of(v).phase;
  return waited_parity != s.phase;
}

}  // namespace

void mbarrier_op(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec) {
  const ptx::MbarMods& m = in.mod.mbar;
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    if (m.op == ptx::MbarOp::PendingCount) {
      c.set(in.dst[0], w, l, static_cast<std::uint64_t>(State::of(c.val(in.src[0], w, l)).pending),
            Ty::U32);
      continue;
    }
    std::uint64_t offset = 0;
    std::uint8_t* p = object(c, in, pc, c.address(in, w, l), in.space, w, l, offset);
    switch (m.op) {
      case ptx::MbarOp::Init: {
        const auto n = static_cast<std::int64_t>(c.val(in.src[0], w, l) & 0xffffffffu);
        if (n < 1 || n > kMaxCount)
          undefined(c, pc, offset, w, l,
                    fmt::format("mbarrier.init count {} out of the range [1, 2^20-1]", n));
        State s;
        s.valid = true;
        s.expected = s.pending = n;
        store(c, p, s);
        break;
      }
      case ptx::MbarOp::Inval:
        store(c, p, State{});
        break;
      case ptx::MbarOp::Arrive: {
        State s = valid_state(c, p, pc, offset, w, l);
        const std::uint64_t token = s.word();
        const std::int64_t operand =
            in.nsrc > 0 ? static_cast<std::int64_t>(c.val(in.src[0], w, l) & 0xffffffffu) : 1;
        const std::int64_t n = m.expect_tx ? 1 : operand;
        if (m.expect_tx) add_tx(c, s, operand, pc, offset, w, l);  // expect-tx, then arrive-on
        if (n < 1 || n > s.pending)
          undefined(c, pc, offset, w, l,
                    fmt::format("arrive with count {} when {} arrivals are pending", n, s.pending));
        if (m.drop) s.expected -= n;
        s.pending -= n;
        if (m.no_complete && s.pending == 0 && s.tx == 0)
          undefined(c, pc, offset, w, l, "mbarrier.arrive.noComplete completes the phase");
        complete_if_done(s);
        store(c, p, s);
        if (in.ndst > 0) c.set(in.dst[0], w, l, token, Ty::B64);
        break;
      }
      case ptx::MbarOp::ExpectTx:
      case ptx::MbarOp::CompleteTx: {
        State s = valid_state(c, p, pc, offset, w, l);
        const auto bytes = static_cast<std::int64_t>(c.val(in.src[0], w, l) & 0xffffffffu);
        add_tx(c, s, m.op == ptx::MbarOp::ExpectTx ? bytes : -bytes, pc, offset, w, l);
        if (m.op == ptx::MbarOp::CompleteTx) complete_if_done(s);
        store(c, p, s);
        break;
      }
      default:
        c.fail(EmuError::Kind::Unsupported, pc, "mbarrier operation not supported");
    }
  }
}

void mbarrier_complete_tx(Ctx& c, const Instr& in, int pc, std::uint64_t addr, Space space,
                          std::uint64_t bytes, int w, int lane) {
  std::uint64_t offset = 0;
  std::uint8_t* p = object(c, in, pc, addr, space, w, lane, offset);
  State s = valid_state(c, p, pc, offset, w, lane);
  add_tx(c, s, -static_cast<std::int64_t>(bytes), pc, offset, w, lane);
  complete_if_done(s);
  store(c, p, s);
}

bool mbarrier_wait(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec, bool give_up) {
  std::uint32_t over = 0;
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    State s;
    std::uint64_t offset = 0;
    if (wait_over(c, in, pc, w, l, s, offset)) over |= 1u << l;
  }
  if (over != exec && !give_up) return false;
  for (int l = 0; l < 32; ++l)
    if ((exec >> l) & 1u) c.set(in.dst[0], w, l, (over >> l) & 1u, Ty::Pred);
  return true;
}

std::string mbarrier_waiting(Ctx& c, const Instr& in, int pc, int w, std::uint32_t exec) {
  for (int l = 0; l < 32; ++l) {
    if (!((exec >> l) & 1u)) continue;
    State s;
    std::uint64_t offset = 0;
    if (wait_over(c, in, pc, w, l, s, offset)) continue;
    return fmt::format(
        "lane {} of warp {} waits on the mbarrier at shared offset 0x{:x} (phase {}, {} of {} "
        "arrivals pending, tx-count {})",
        l, w, offset, s.phase ? 1 : 0, s.pending, s.expected, s.tx);
  }
  return fmt::format("warp {} waits on an mbarrier", w);
}

}  // namespace bankcheck::emu::detail
