// The decoder's dispatch: each mnemonic of the opcode table (bankcheck/ptx/opcodes.def)
// to its opcode and the form that reads its modifiers and operands into an Instr
// (decode_form.hpp). A form serves every opcode that is written the same way (add, sub,
// min, ... are all Binary).
#include "decode_instr.hpp"

#include <optional>
#include <string_view>
#include <utility>

#include "decode_form.hpp"

namespace bankcheck::ptx::detail {

std::optional<Ty> parse_ty(std::string_view m) {
  static const std::pair<const char*, Ty> kTypes[] = {
      {".u8", Ty::U8},         {".u16", Ty::U16},      {".u32", Ty::U32},       {".u64", Ty::U64},
      {".s8", Ty::S8},         {".s16", Ty::S16},      {".s32", Ty::S32},       {".s64", Ty::S64},
      {".b8", Ty::B8},         {".b16", Ty::B16},      {".b32", Ty::B32},       {".b64", Ty::B64},
      {".f16", Ty::F16},       {".f32", Ty::F32},      {".f64", Ty::F64},       {".pred", Ty::Pred},
      {".bf16", Ty::BF16},     {".f16x2", Ty::F16X2},  {".bf16x2", Ty::BF16X2}, {".tf32", Ty::TF32},
      {".e4m3x2", Ty::E4M3X2}, {".e5m2x2", Ty::E5M2X2}};
  for (const auto& [n, t] : kTypes)
    if (m == n) return t;
  return std::nullopt;
}

// Internal opcodes have no mnemonic of their own.
void Form::form_None() { fail(in, "unsupported instruction '" + op + "'"); }

namespace {

// The dispatch, from the opcode table: mnemonic -> (opcode, form).
struct Entry {
  std::string_view mnemonic;
  Opc opc;
  void (Form::*form)();
};
constexpr Entry kEntries[] = {
#define BANKCHECK_OPCODE(Name, mnemonic, F) {mnemonic, Opc::Name, &Form::form_##F},
#define BANKCHECK_ALIAS(mnemonic, Name, F) {mnemonic, Opc::Name, &Form::form_##F},
#include "bankcheck/ptx/opcodes.def"
};

}  // namespace

Instr decode_instr(const Instruction& in, OperandDecoder& decoder) {
  const Entry* e = nullptr;
  for (const Entry& x : kEntries)
    if (x.mnemonic == in.opcode) e = &x;
  Form f(in, decoder, e ? e->opc : Opc::Nop);
  f.modifiers_every_form_reads();
  if (!e || e->form == &Form::form_None)
    throw decoder.error(in, "unsupported instruction '" + in.opcode + "'");
  (f.*(e->form))();
  f.carry_operands();
  return f.ins;
}

}  // namespace bankcheck::ptx::detail
