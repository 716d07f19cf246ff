// The names of a PTX function body's scopes: `{ }` blocks may redeclare a register or a
// variable, and the syntax tree is flat, so a nested declaration gets a unique name
// (p -> p$s3, p<4> -> p$s3$0..3) and each use resolves to the innermost one in force.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace bankcheck::ptx::detail {

// A map with string keys that string_views can look up without a copy.
struct SvHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};
template <class V>
using NameMap = std::unordered_map<std::string, V, SvHash, std::equal_to<>>;

class ScopedNames {
 public:
  // A function body begins: no bindings, one scope (the function's own).
  void enter_function();
  // A nested `{` opens a scope whose declarations are renamed; `}` closes it.
  void open_block();
  void close();
  // Declares `name` (`count` > 0: the range name<count>) in the current scope; returns the
  // name the tree uses for it. Outside a body (module scope) and in the function's own
  // scope names stay as written; the function's scope binds only registers whose name
  // lacks '%', so that uses of them read as registers.
  std::string declare(std::string_view name, bool is_reg, int count);
  // The name a use refers to, and whether it is a register.
  std::string resolve(std::string_view name, bool& is_reg) const;

  // Labels are scoped too (inline PTX inlined twice declares its labels twice, each in its
  // own block), but a branch may name a label declared later in its block. A label in a
  // nested block gets a unique name (LAB -> LAB$s3); a use records the block it is in, and
  // once the body is read rename_label_uses() points each use at the label of its innermost
  // enclosing block that has one.
  std::string declare_label(std::string_view name);
  void label_use(std::size_t statement, std::size_t operand);
  // `name_of(statement, operand)` is the name a recorded use holds.
  void rename_label_uses(const std::function<std::string&(std::size_t, std::size_t)>& name_of);

 private:
  struct Binding {
    std::string name;  // the unique name uses are rewritten to
    int depth;
    bool is_reg;
  };
  struct RangeBinding {
    std::string prefix;  // unique prefix; register k is prefix + k
    std::int64_t count;
    int depth;
  };
  struct Scope {
    std::vector<std::pair<std::string, bool>> keys;  // bound here: name, is a range
    int id = 0;
  };
  int depth() const { return static_cast<int>(scopes_.size()) - 1; }

  struct LabelUse {
    std::size_t statement, operand;
    int block;  // the innermost open block when the use was read (0: the function's)
  };
  std::vector<int> parent_;    // per block id: the enclosing block's id
  std::vector<int> open_ids_;  // ids of the open blocks, innermost last
  std::map<std::pair<int, std::string>, std::string> labels_;  // (block, name) -> unique name
  std::vector<LabelUse> label_uses_;

  NameMap<std::vector<Binding>> names_;
  NameMap<std::vector<RangeBinding>> ranges_;
  std::vector<Scope> scopes_;  // empty outside function bodies
  std::size_t live_names_ = 0;
  std::size_t live_ranges_ = 0;
  int block_counter_ = 0;
};

}  // namespace bankcheck::ptx::detail
