// The sm_90 instruction decoder: bit fields learned from `cuobjdump -sass` listings of
// this repository's examples (bench/check/measured/h100/*.sass.txt, bench/hardware/measured/patterns*)
// and from ptxas output of bench/sass/forms.cu, whose PTX says what each form must be.
// docs/sass.md says which field was verified on which listing and which is inferred.
#include <cstdio>

#include "bankcheck/sass/decoder.hpp"

namespace bankcheck::sass {

namespace {

constexpr std::uint64_t bits(std::uint64_t w, unsigned at, unsigned n) {
  return (w >> at) & ((std::uint64_t(1) << n) - 1);
}

constexpr std::int32_t sign_extend(std::uint64_t v, unsigned n) {
  std::uint64_t m = std::uint64_t(1) << (n - 1);
  return std::int32_t(std::int64_t((v ^ m) - m));
}

// Bits 0-8 of every opcode in the listings (bench/check/measured/h100*, bench/hardware/measured/patterns*,
// bench/hardware/measured/corpora, bench/sass/measured): each code names one mnemonic there. Bits
// 9-11 select the operand form (register, immediate, constant, uniform) and are not part of the
// operation.
struct OpName {
  std::uint16_t opcode;
  const char* name;
};
constexpr OpName kOpcodes[] = {
    {0x002, "MOV"},
    {0x005, "CS2R"},
    {0x006, "VOTE"},
    {0x007, "SEL"},
    {0x009, "FMNMX"},
    {0x00b, "FSETP"},
    {0x00c, "ISETP"},
    {0x010, "IADD3"},
    {0x011, "LEA"},
    {0x012, "LOP3"},
    {0x016, "PRMT"},
    {0x019, "SHF"},
    {0x01c, "PLOP3"},
    {0x020, "FMUL"},
    {0x021, "FADD"},
    {0x023, "FFMA"},
    {0x024, "IMAD"},
    {0x025, "IMAD"},
    {0x027, "IMAD"},
    {0x029, "DADD"},
    {0x02b, "DFMA"},
    {0x035, "HFMA2"},
    {0x036, "VIADD"},
    {0x03b, "LDSM"},
    {0x03c, "HMMA"},
    {0x03a, "MOVM"},  // movmatrix: a wmma bf16 fragment transposed in registers
    {0x03e, "F2FP"},
    {0x044, "STSM"},
    {0x045, "I2FP"},
    {0x046, "VIADDMNMX"},
    {0x048, "VIMNMX"},
    {0x082, "UMOV"},
    {0x086, "VOTEU"},
    {0x08c, "UISETP"},
    {0x090, "UIADD3"},
    {0x091, "ULEA"},
    {0x092, "ULOP3"},
    {0x099, "USHF"},
    {0x09b, "UBMSK"},
    {0x0a4, "UIMAD"},
    {0x0a5, "UIMAD"},
    {0x0b9, "ULDC"},
    {0x0bd, "UFLO"},
    {0x0bf, "UPOPC"},
    {0x100, "FLO"},
    {0x101, "BREV"},
    {0x102, "FCHK"},  // the range check of a float division
    {0x105, "F2I"},
    {0x106, "I2F"},
    {0x108, "MUFU"},
    {0x109, "POPC"},
    {0x110, "F2F"},
    {0x112, "I2F"},
    {0x118, "NOP"},
    {0x11b, "ENDCOLLECTIVE"},  // closes WARPSYNC.COLLECTIVE (a shuffle under divergence)
    {0x11c, "B2R"},            // B2R.RESULT: __syncthreads_count/and/or's reduced value
    {0x119, "S2R"},
    {0x11a, "DEPBAR"},
    {0x11d, "BAR"},
    {0x141, "BSYNC"},
    {0x144, "CALL"},
    {0x145, "BSSY"},
    {0x147, "BRA"},
    {0x148, "WARPSYNC"},
    {0x14d, "EXIT"},
    {0x150, "RET"},
    {0x180, "LD"},  // generic: wmma.load of a generic address (bf16 fragments), ld.shared::cluster
    {0x185, "ST"},    // generic: st.shared::cluster (bench/hardware/dsmem)
    {0x18a, "ATOM"},  // generic: atom/red.shared::cluster
    {0x181, "LDG"},
    {0x182, "LDC"},
    {0x183, "LDL"},  // local memory (register spills)
    {0x184, "LDS"},
    {0x186, "STG"},
    {0x187, "STL"},
    {0x188, "STS"},
    {0x189, "SHFL"},
    {0x18c, "ATOMS"},
    {0x18d, "ATOMS"},
    {0x18e, "REDG"},
    // Global atomics whose old value is read, exchanges and compare-and-swaps (ATOMG, ATOMG.CAS)
    // and float reductions (RED.E.ADD.F32): ptxas 13.0's forms of atom.global (atomics
    // corpus of NVIDIA's samples: simpleAtomicIntrinsics, threadFenceReduction).
    {0x1a6, "REDG"},
    {0x1a8, "ATOMG"},
    {0x1a9, "ATOMG"},
    {0x1a1, "MATCH"},
    {0x1ae, "LDGSTS"},
    {0x1af, "LDGDEPBAR"},
    {0x1c3, "S2UR"},
    {0x1c4, "REDUX"},
    // The TMA unit and mbarriers (cp.async.bulk): not LSU shared-memory requests.
    {0x02f, "ELECT"},
    {0x0ca, "R2UR"},
    {0x1a7, "SYNCS"},
    {0x1b2, "SYNCS"},
    {0x1ba, "UBLKCP"},
    {0x1b4, "UTMALDG"},  // a tensor-map copy into shared memory (Triton's descriptor loads)
    {0x1b5, "UTMASTG"},   // bench/hardware/tma/measured/sass.txt.gz, every one below
    {0x1b6, "UTMAREDG"},
    {0x1b8, "UTMAPF"},
    {0x1bc, "UBLKPF"},
    {0x1bd, "STAS"},  // st.async to a CTA of the cluster (bench/hardware/dsmem)
    // wgmma: reads its operands from shared memory through the tensor cores
    // (bench/hardware/wgmma/measured/sass.txt.gz).
    {0x1f0, "HGMMA"},  // f16, bf16, tf32
    {0x1f1, "IGMMA"},  // s8, u8
    {0x1f3, "QGMMA"},  // e4m3, e5m2
};

const char* name_of(std::uint16_t opcode) {
  for (const OpName& o : kOpcodes)
    if (o.opcode == opcode) return o.name;
  return "?";
}

// Width codes of LDS/STS/LDGSTS bits 73-75 (verified on every listing for codes 0-6).
constexpr std::uint8_t kWidthBytes[8] = {1, 1, 2, 2, 4, 8, 16, 16};

void decode_lds_sts(Instruction& i) {
  std::uint64_t w = bits(i.hi, 73 - 64, 3);
  i.width_bytes = kWidthBytes[w];
  i.sign_extend = w == 1 || w == 3;
  i.addr = std::uint8_t(bits(i.lo, 24, 8));
  i.imm = sign_extend(bits(i.lo, 40, 24), 24);
  bool has_ur = bits(i.hi, 91 - 64, 1);
  if (i.shared == SharedOp::LDS) {
    i.dst = std::uint8_t(bits(i.lo, 16, 8));
    if (has_ur) i.uniform = std::uint8_t(bits(i.lo, 32, 6));
  } else {
    i.src = std::uint8_t(bits(i.lo, 32, 8));
    if (has_ur) i.uniform = std::uint8_t(bits(i.hi, 0, 6));
  }
}

void decode_atoms(Instruction& i, std::uint16_t form) {
  i.dst = std::uint8_t(bits(i.lo, 16, 8));
  i.addr = std::uint8_t(bits(i.lo, 24, 8));
  i.imm = sign_extend(bits(i.lo, 40, 24), 24);
  if (bits(i.hi, 91 - 64, 1)) i.uniform = std::uint8_t(bits(i.hi, 0, 6));
  std::uint64_t type = bits(i.hi, 73 - 64, 3);  // 0 .32, 1 .S32, 2 .64 (verified); others inferred
  i.width_bytes = (type == 2 || type == 5 || type == 6) ? 8 : 4;
  i.atom_signed = type == 1 || type == 5;
  if (i.opcode == 0x18d) {  // compare-and-swap: Rb = compare, Rc (bits 64-71) = new value
    i.src = std::uint8_t(bits(i.lo, 32, 8));
    i.src2 = std::uint8_t(bits(i.hi, 0, 8));
    switch (bits(i.hi, 87 - 64, 2)) {
      case 0:
        i.atom = AtomOp::Cas;
        break;
      case 3:
        i.atom = AtomOp::CasTSpin;
        break;
      default:
        i.atom = AtomOp::CasT;
        break;  // not seen in any listing
    }
    return;
  }
  // Form 7 (bits 9-11 = 111) carries no source register: POPC.INC adds the popcount of
  // the lanes that share a word (ptxas's atomicAdd(p, 1) with the result unused).
  i.src = form == 7 ? kRZ : std::uint8_t(bits(i.lo, 32, 8));
  static constexpr AtomOp kOps[16] = {AtomOp::Add,   AtomOp::Min,   AtomOp::Max,   AtomOp::Inc,
                                      AtomOp::Dec,   AtomOp::And,   AtomOp::Or,    AtomOp::Xor,
                                      AtomOp::Exch,  AtomOp::Other, AtomOp::Other, AtomOp::PopcInc,
                                      AtomOp::Other, AtomOp::Other, AtomOp::Other, AtomOp::Other};
  i.atom = kOps[bits(i.hi, 87 - 64, 4)];
}

void decode_matrix(Instruction& i) {
  std::uint64_t n = bits(i.hi, 72 - 64, 2);
  i.matrices = n == 0 ? 1 : n == 1 ? 2 : 4;
  i.transpose = bits(i.hi, 78 - 64, 1);
  i.width_bytes = 4;  // each lane supplies one 16-byte row address; 4 bytes per matrix per lane
  i.addr = std::uint8_t(bits(i.lo, 24, 8));
  i.imm = sign_extend(bits(i.lo, 40, 24), 24);
  if (i.shared == SharedOp::LDSM) {
    i.dst = std::uint8_t(bits(i.lo, 16, 8));
    if (bits(i.hi, 91 - 64, 1)) i.uniform = std::uint8_t(bits(i.lo, 32, 6));
  } else {
    i.src = std::uint8_t(bits(i.lo, 32, 8));
  }
}

void decode_ldgsts(Instruction& i) {
  i.width_bytes = kWidthBytes[bits(i.hi, 73 - 64, 3)];
  i.addr = std::uint8_t(bits(i.lo, 16, 8));
  i.imm = sign_extend(bits(i.lo, 44, 20), 20);
  i.global_addr = std::uint8_t(bits(i.lo, 24, 8));
  i.bypass = !bits(i.hi, 81 - 64, 1);
  i.global_desc = std::uint8_t(bits(i.hi, 0, 6));
  // .ZFILL (cp.async with a src-size operand): bit 82, and the predicate that selects the
  // zero-fill in bits 87-89 (PT otherwise). bench/hardware/measured/corpora/matrix_sass.txt.
  i.zfill = bits(i.hi, 82 - 64, 1);
  i.zfill_predicate = std::uint8_t(bits(i.hi, 87 - 64, 3));
}

// wgmma's N (the B operand's rows) and whether A comes from registers, from every GMMA of
// bench/hardware/wgmma/measured/sass.txt.gz: HGMMA and QGMMA keep N / 8 - 1 in bits 53-57
// (N 8 to 256, 16 listings); IGMMA, whose N are 8, 16, 24, 32, 48, 64, 80, ... 256, keeps
// three times N's index in that list in bits 53-58 (8: 0, 16: 3, 24: 6, 64: 15, 256: 51); A
// from registers sets bit 10 (all three). An IGMMA field off that pattern leaves N unknown (0).
void decode_gmma(Instruction& i) {
  i.gmma_a_registers = bits(i.lo, 10, 1);
  if (i.opcode != 0x1f1) {
    i.gmma_n = std::uint16_t((bits(i.lo, 53, 5) + 1) * 8);
    return;
  }
  const std::uint64_t e = bits(i.lo, 53, 6);
  if (e % 3 != 0 || e / 3 > 17) return;
  const std::uint64_t idx = e / 3;
  i.gmma_n = std::uint16_t(idx < 4 ? 8 * (idx + 1) : 48 + 16 * (idx - 4));
}

}  // namespace

Instruction decode_hopper(std::uint64_t lo, std::uint64_t hi, std::uint64_t offset) {
  Instruction i;
  i.offset = offset;
  i.lo = lo;
  i.hi = hi;
  i.opcode = std::uint16_t(bits(lo, 0, 9));
  i.mnemonic = name_of(i.opcode);
  i.guard.predicate = std::uint8_t(bits(lo, 12, 3));
  i.guard.negated = bits(lo, 15, 1);
  auto form = std::uint16_t(bits(lo, 9, 3));
  switch (i.opcode) {
    case 0x184:
      i.shared = SharedOp::LDS;
      decode_lds_sts(i);
      break;
    case 0x188:
      i.shared = SharedOp::STS;
      decode_lds_sts(i);
      break;
    case 0x18c:
    case 0x18d:
      i.shared = SharedOp::ATOMS;
      decode_atoms(i, form);
      break;
    case 0x03b:
      i.shared = SharedOp::LDSM;
      decode_matrix(i);
      break;
    case 0x044:
      i.shared = SharedOp::STSM;
      decode_matrix(i);
      break;
    case 0x1ae:
      i.shared = SharedOp::LDGSTS;
      decode_ldgsts(i);
      break;
    case 0x1f0:
    case 0x1f1:
    case 0x1f3:
      decode_gmma(i);
      break;
    default:
      break;
  }
  return i;
}

std::string opcode_text(const Instruction& i) {
  std::string s = i.mnemonic;
  static constexpr const char* kWidth[8] = {".U8", ".S8", ".U16", ".S16",
                                            "",    ".64", ".128", ".U.128"};
  switch (i.shared) {
    case SharedOp::None:
      break;
    case SharedOp::LDS:
    case SharedOp::STS:
      s += kWidth[bits(i.hi, 73 - 64, 3)];
      break;
    case SharedOp::ATOMS: {
      static constexpr const char* kOp[] = {"",          ".ADD", ".MIN",  ".MAX",       ".INC",
                                            ".DEC",      ".AND", ".OR",   ".XOR",       ".EXCH",
                                            ".POPC.INC", ".CAS", ".CAST", ".CAST.SPIN", ".OP?"};
      s += kOp[int(i.atom)];
      static constexpr const char* kType[8] = {"",          ".S32", ".64",     ".F32.FTZ.RN",
                                               ".F16x2.RN", ".S64", ".F64.RN", ".TYPE7"};
      std::uint64_t t = bits(i.hi, 73 - 64, 3);
      if (t == 0 && i.atom == AtomOp::PopcInc) s += ".32";
      s += kType[t];
      break;
    }
    case SharedOp::LDSM:
    case SharedOp::STSM:
      s += i.transpose ? ".16.MT88." : ".16.M88.";
      s.pop_back();  // one matrix prints no count: "LDSM.16.M88"
      if (i.matrices > 1) (s += '.') += std::to_string(i.matrices);
      break;
    case SharedOp::LDGSTS:
      s += ".E";
      if (i.bypass) s += ".BYPASS";
      s += kWidth[bits(i.hi, 73 - 64, 3)];
      if (i.zfill) s += ".ZFILL";
      break;
  }
  return s;
}

std::string address_text(const Instruction& i) {
  std::string s = "[";
  bool any = false;
  if (i.addr != kRZ || i.uniform == kURZ) {
    s += i.addr == kRZ ? std::string("RZ") : std::string(1, 'R').append(std::to_string(i.addr));
    any = true;
  }
  if (i.uniform != kURZ) {
    s += (any ? "+UR" : "UR") + std::to_string(i.uniform);
    any = true;
  }
  if (i.imm != 0) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%s0x%x", i.imm < 0 ? "-" : "",
                  unsigned(i.imm < 0 ? -i.imm : i.imm));
    s += "+";
    s += buf;
  }
  return s + "]";
}

}  // namespace bankcheck::sass
