// One instruction's opcode, modifiers and operands decoded to an Instr, by the form its
// mnemonic has in the opcode table (bankcheck/ptx/opcodes.def). The kernel-level decoder
// (decode.cpp) resolves operands against the kernel's registers and symbols and adds the
// guard, the branch target, the site and the source location.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "bankcheck/ptx/ast.hpp"
#include "bankcheck/ptx/ir.hpp"

namespace bankcheck::ptx::detail {

// What a form needs from the kernel-level decoder.
class OperandDecoder {
 public:
  virtual ~OperandDecoder() = default;
  // An operand as the instruction's type `ty` reads it.
  virtual Opnd operand(const Instruction& in, const Operand& o, Ty ty) = 0;
  // A memory operand; a symbol may settle the space (`space` is updated).
  virtual MemRef memref(const Instruction& in, const Operand& o, Space& space) = 0;
  // The error to throw for `in`: names its PTX line.
  virtual DecodeError error(const Instruction& in, const std::string& message) const = 0;
};

// The scalar type a modifier names (".u32" -> U32), if any.
std::optional<Ty> parse_ty(std::string_view modifier);

// mbarrier and cp.async.bulk without a tensor map (decode_mbarrier.cpp).
void decode_mbarrier(const Instruction& in, OperandDecoder& decoder, Instr& ins);
void decode_bulk_copy(const Instruction& in, OperandDecoder& decoder, Instr& ins);
void decode_cp_async_arrive(const Instruction& in, OperandDecoder& decoder, Instr& ins);
// cp.async.bulk.tensor and cp.reduce.async.bulk.tensor (decode_tensor_copy.cpp).
void decode_tensor_copy(const Instruction& in, OperandDecoder& decoder, Instr& ins);

// Throws DecodeError for an unknown mnemonic or a form the emulator does not support.
Instr decode_instr(const Instruction& in, OperandDecoder& decoder);

}  // namespace bankcheck::ptx::detail
