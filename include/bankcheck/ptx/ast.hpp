// The PTX syntax tree: what the parser reads, before any meaning is given to opcodes.
// Faithful to the text (opcode and modifiers as written); scoped names are made unique;
// every node carries its position in the PTX so later errors can name the line.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace bankcheck::ptx {

// A position in the PTX text (1-based).
struct PtxPos {
  int line = 0;
  int col = 0;
};

// A source location from `.loc FILE LINE COL`; file indexes Module::files.
struct SourceLoc {
  int file = 0;
  int line = 0;
  int col = 0;
};

struct Operand {
  enum class Kind : std::uint8_t {
    Register,   // %r1, %p2, %rd3, also scoped names made unique; also special registers
                //   (%tid.x, %ntid.y, %ctaid.z, %nctaid.x, %laneid, %warpid, %clock, ...):
                //   `name` holds the full text, e.g. "%tid.x"
    Immediate,  // integer literal (decimal, hex 0x, octal, binary, with optional U suffix)
    FloatImm,   // 0fXXXXXXXX (f32 bits) or 0dXXXXXXXXXXXXXXXX (f64 bits), or a decimal
                //   floating literal: value in `fvalue`, raw bits in `bits`, `fbits` 32 or 64
    Symbol,     // a variable, function or label name used as a value (mov.u32 %r, tile)
    Address,    // [base+offset]: base is a register or symbol name (`name`, `base_is_reg`),
                //   `imm` the signed offset; [imm] alone: name empty
    Vector,     // {%r1, %r2, _, %r4}: elements in `elems` ("_" is a Symbol named "_")
    Pair,       // two destinations written p|q (setp, shfl): elems[0], elems[1]
  };
  Kind kind = Kind::Immediate;
  std::string name;            // Register / Symbol / Address base
  bool base_is_reg = false;    // Address: base is a register
  bool negated = false;        // !%p as a predicate source operand (selp/and.pred/...)
  std::int64_t imm = 0;        // Immediate value, or Address offset
  double fvalue = 0;           // FloatImm
  std::uint64_t bits = 0;      // FloatImm raw bits
  int fbits = 0;               // FloatImm: 32 or 64
  std::vector<Operand> elems;  // Vector / Pair
  PtxPos pos;
};

struct Instruction {
  std::optional<std::string> guard;  // predicate register name of @%p / @!%p
  bool guard_negated = false;
  std::string opcode;                  // "ld", "mul", "setp", "bar", "shfl", ...
  std::vector<std::string> modifiers;  // as written, with dots, in order: ".shared", ".v4", ".f32"
  std::vector<Operand> operands;       // in written order (destinations first)
  PtxPos pos;
  std::string text;  // the whole instruction as written (one line)
  // `.loc` in force: innermost first, then each inlined_at location outwards.
  std::vector<SourceLoc> loc_chain;
};

// A statement of a function body: an instruction or a label, in order.
struct Statement {
  bool is_label = false;
  std::string label;        // when is_label
  Instruction instruction;  // when !is_label
};

enum class StateSpace : std::uint8_t { Reg, Shared, Global, Const, Local, Param };

// An initializer element that is an address (`= {f1, f2}`, `= generic(buf)+8`): its bytes
// in Variable::init are zero; `symbol` + `addend` goes there once it is placed.
struct Relocation {
  std::size_t offset = 0;  // byte offset in the initializer (a 64-bit element)
  std::string symbol;
  std::int64_t addend = 0;
};

// A variable declaration (.shared/.global/.const/.local, module or function scope).
struct Variable {
  StateSpace space = StateSpace::Global;
  std::string name;
  std::string type;                // ".b8", ".f32", ".u64", ...: element type as written
  int align = 0;                   // .align N, 0 if none
  int vector = 1;                  // .v2 / .v4 element vectors
  std::vector<std::int64_t> dims;  // array dimensions; -1 for an unsized [] (extern)
  bool is_extern = false;
  bool is_visible = false;
  std::vector<std::uint8_t> init;  // initializer bytes in little-endian order, if any
  std::vector<Relocation> relocations;  // its addresses
  PtxPos pos;
};

// One register declaration: `.reg .b32 %r<22>;` is {".b32", "%r", 22};
// `.reg .pred p;` is {".pred", "p", 0} (count 0: a single register of that exact name).
struct RegisterDecl {
  std::string type;
  std::string name;
  int count = 0;
  PtxPos pos;
};

struct Param {
  std::string type;  // ".u64", ".b8", ...
  std::string name;
  int align = 0;
  std::vector<std::int64_t> dims;  // .param .align 8 .b8 p[16]
  bool is_ptr = false;             // .ptr attribute present
  PtxPos pos;
};

struct Function {
  bool is_entry = false;    // .entry (kernel) or .func
  bool is_visible = false;  // .visible
  bool is_extern = false;   // declaration only (no body)
  std::string name;         // mangled, as in the PTX
  std::vector<Param> params;
  std::vector<Param> returns;  // .func (.param .b32 ret) name(...)
  std::vector<RegisterDecl> registers;
  std::vector<Variable> variables;  // function-scope .shared/.local/.const
  std::vector<Statement> body;
  // Performance directives as written: ".maxntid", ".reqntid", ".minnctapersm", ...
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> directives;
  PtxPos pos;
  // The body's bytes in the text: from its `{` to one past its `}` (0, 0: none).
  std::size_t body_begin = 0, body_end = 0;
  // A kernel ParseOptions::keep_entry turned down: its body was skipped unread (`body` is
  // empty); it is named, never decoded.
  bool body_skipped = false;
};

struct Module {
  std::string version;  // "9.0"
  std::string target;   // "sm_90"
  int address_size = 64;
  std::vector<Variable> variables;  // module scope
  std::vector<Function> functions;  // in order; entries and funcs
  std::vector<std::string> files;   // index -> path from `.file N "path"` (index 0 unused)
};

// Bad or unsupported PTX: where, and the text of that line.
struct ParseError : std::runtime_error {
  ParseError(const std::string& message, std::string source, PtxPos pos, std::string line_text)
      : std::runtime_error(message),
        source(std::move(source)),
        pos(pos),
        line_text(std::move(line_text)) {}
  std::string source;  // file name of the PTX (as given to parse)
  PtxPos pos;
  std::string line_text;  // the PTX line, for a caret
};

struct ParseOptions {
  // When set, the kernels (.entry) whose names it turns down keep their names, parameters
  // and directives but not their bodies, which are skipped unread (Function::body_skipped):
  // one kernel of a module of thousands, or of a few enormous ones, costs a scan of the rest.
  std::function<bool(std::string_view name)> keep_entry;
};

// Parses a whole PTX module. `source` names it in errors. Throws ParseError.
Module parse(std::string_view text, std::string_view source, const ParseOptions& options = {});

}  // namespace bankcheck::ptx
