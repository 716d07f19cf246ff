// Struct layouts from CUDA source: a struct's members, each at its offset under C's layout
// rules with CUDA's sizes and alignments (vector types, __align__, alignas), read through the
// one source reader (cuda_source.hpp) and token layer (tokens.hpp). The argument binder
// names a by-value struct parameter's fields with it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bankcheck::explain {

// One member, flattened: a nested struct's and a vector type's members are fields of their
// own ("inner.n", "v.x"), an array of pointers or of structs one field per element
// ("ptrs[1]", "items[0].n"); an array of scalars stays one field of `count` elements.
struct RecordField {
  enum class Kind { Integer, Float, Pointer };
  std::string name;          // the member's path
  std::uint64_t offset = 0;  // bytes from the start of the outermost struct
  Kind kind = Kind::Integer;
  std::uint64_t element = 0;  // bytes of one element (a pointer: 8)
  std::uint64_t count = 1;    // elements (an array of scalars: its length)
  bool is_signed = false;     // Integer
  std::string type;           // the element type as the source spells it ("const float*")
  int line = 0;               // 1-based line of the member's declaration
  std::uint64_t size() const { return element * count; }
};

struct RecordLayout {
  std::string name;
  std::uint64_t size = 0, align = 1;
  std::vector<RecordField> fields;  // in declaration order
  int line = 0;                     // 1-based line of `struct NAME`
  // Not empty when the struct is defined but a member cannot be laid out (a bit-field, a
  // template, a type not defined in the text): what and where ("line 4: ..."); `fields`
  // and `size` are then not to be used.
  std::string error;
};

// The layout of `struct NAME { ... }`, `class NAME { ... }` (its data members) or
// `typedef struct { ... } NAME;` in `source_text`; `name` may be qualified ("ns::Params":
// its last component is looked up). Member array bounds are integer constants, object-like
// #defines included. Member functions, static members and nested type declarations are
// skipped. nullopt when the text defines no such struct.
// Example: `struct P { int n; float* in; float4 v; };` -> size 32, align 16, fields n at 0,
// in at 8, v.x at 16, v.y at 20, v.z at 24, v.w at 28.
std::optional<RecordLayout> record_layout(std::string_view source_text, std::string_view name);

// The fields of the __constant__ or __device__ variable `name` declared at namespace scope in
// `source_text`, as record_layout gives a struct's (one field named `name` for a scalar, an
// array of scalars or a pointer; a struct variable's members as name.member), offsets from
// the variable's start; `size` the end of its last field. nullopt when the text declares no
// such variable.
// Example: `__constant__ const int* table;` -> one Pointer field `table` at 0.
std::optional<RecordLayout> variable_layout(std::string_view source_text, std::string_view name);

}  // namespace bankcheck::explain
