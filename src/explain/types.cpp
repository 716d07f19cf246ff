// The builtin type table and C layout rules for `explain` (see types.hpp).
#include "types.hpp"

#include <algorithm>
#include <map>

namespace bankcheck::explain::detail {

const Field* Type::field(std::string_view member) const {
  for (const Field& f : fields)
    if (f.name == member) return &f;
  return nullptr;
}

int Type::rank() const {
  int r = 0;
  for (const Type* t = this; t->kind == Kind::Array; t = t->elem.get()) ++r;
  return r;
}

namespace {

TypePtr scalar(std::string name, std::uint64_t size, bool is_integer, bool is_signed) {
  auto t = std::make_shared<Type>();
  t->kind = Type::Kind::Scalar;
  t->name = std::move(name);
  t->size = size;
  t->align = size;
  t->is_integer = is_integer;
  t->is_signed = is_signed;
  return t;
}

// CUDA's vector type `name` of n components of `component`: sizes n*s (3*s for n == 3),
// alignments s, 2s, s, min(4s, 16) for n = 1..4, or `align4` for n == 4 where given.
TypePtr vector(std::string name, const TypePtr& component, int n, std::uint64_t align4 = 0) {
  static constexpr const char* kMembers[] = {"x", "y", "z", "w"};
  auto t = std::make_shared<Type>();
  t->kind = Type::Kind::Record;
  t->name = std::move(name);
  const std::uint64_t s = component->size;
  t->size = s * n;
  switch (n) {
    case 1:
      t->align = s;
      break;
    case 2:
      t->align = 2 * s;
      break;
    case 3:
      t->align = s;
      break;
    default:
      t->align = align4 ? align4 : std::min<std::uint64_t>(4 * s, 16);
      break;
  }
  for (int i = 0; i < n; ++i) t->fields.push_back({kMembers[i], s * i, component});
  return t;
}

const std::map<std::string, TypePtr, std::less<>>& builtins() {
  static const auto table = [] {
    std::map<std::string, TypePtr, std::less<>> m;
    auto add = [&m](const TypePtr& t) { m[t->name] = t; };
    auto alias = [&m](const std::string& name, const std::string& of) { m[name] = m.at(of); };

    // C scalars (LP64: long is 8 bytes, as on every platform nvcc targets but Windows).
    add(scalar("char", 1, true, true));
    add(scalar("signed char", 1, true, true));
    add(scalar("unsigned char", 1, true, false));
    add(scalar("short", 2, true, true));
    add(scalar("unsigned short", 2, true, false));
    add(scalar("int", 4, true, true));
    add(scalar("unsigned int", 4, true, false));
    add(scalar("long", 8, true, true));
    add(scalar("unsigned long", 8, true, false));
    add(scalar("long long", 8, true, true));
    add(scalar("unsigned long long", 8, true, false));
    add(scalar("bool", 1, true, false));
    add(scalar("float", 4, false, false));
    add(scalar("double", 8, false, false));
    add(scalar("__half", 2, false, false));
    add(scalar("__nv_bfloat16", 2, false, false));
    alias("half", "__half");
    alias("nv_bfloat16", "__nv_bfloat16");
    alias("int8_t", "signed char");
    alias("uint8_t", "unsigned char");
    alias("int16_t", "short");
    alias("uint16_t", "unsigned short");
    alias("int32_t", "int");
    alias("uint32_t", "unsigned int");
    alias("int64_t", "long");
    alias("uint64_t", "unsigned long");
    alias("size_t", "unsigned long");

    // CUDA vector types (vector_types.h).
    const std::pair<const char*, const char*> kBases[] = {{"char", "signed char"},
                                                          {"uchar", "unsigned char"},
                                                          {"short", "short"},
                                                          {"ushort", "unsigned short"},
                                                          {"int", "int"},
                                                          {"uint", "unsigned int"},
                                                          {"long", "long"},
                                                          {"ulong", "unsigned long"},
                                                          {"longlong", "long long"},
                                                          {"ulonglong", "unsigned long long"},
                                                          {"float", "float"},
                                                          {"double", "double"}};
    for (const auto& [prefix, component] : kBases) {
      const TypePtr& c = m.at(component);
      for (int n = 1; n <= 4; ++n) add(vector(prefix + std::to_string(n), c, n));
      if (c->size == 8) {  // CUDA 13's explicitly aligned 32-byte vectors
        add(vector(std::string(prefix) + "4_16a", c, 4, 16));
        add(vector(std::string(prefix) + "4_32a", c, 4, 32));
      }
    }
    add(vector("__half2", m.at("__half"), 2));
    add(vector("__nv_bfloat162", m.at("__nv_bfloat16"), 2));
    alias("half2", "__half2");
    alias("nv_bfloat162", "__nv_bfloat162");
    return m;
  }();
  return table;
}

}  // namespace

TypePtr find_builtin(std::string_view name) {
  const auto& table = builtins();
  auto it = table.find(name);
  return it == table.end() ? nullptr : it->second;
}

bool is_int_keyword(std::string_view word) {
  return word == "signed" || word == "unsigned" || word == "char" || word == "short" ||
         word == "int" || word == "long";
}

std::string canonical_int_name(const std::vector<std::string>& words) {
  int sign = 0, usign = 0, chars = 0, shorts = 0, ints = 0, longs = 0;
  for (const std::string& w : words) {
    if (w == "signed")
      ++sign;
    else if (w == "unsigned")
      ++usign;
    else if (w == "char")
      ++chars;
    else if (w == "short")
      ++shorts;
    else if (w == "int")
      ++ints;
    else if (w == "long")
      ++longs;
    else
      return "";
  }
  if (sign + usign > 1 || chars > 1 || shorts > 1 || ints > 1 || longs > 2) return "";
  const std::string u = usign ? "unsigned " : "";
  if (chars) {
    if (shorts || ints || longs) return "";
    return sign ? "signed char" : u + "char";
  }
  if (shorts) return longs ? "" : u + "short";
  if (longs == 2) return u + "long long";
  if (longs == 1) return u + "long";
  return u + "int";
}

TypePtr make_struct(const std::vector<std::pair<std::string, TypePtr>>& members) {
  auto t = std::make_shared<Type>();
  t->kind = Type::Kind::Record;
  t->name = "struct {";
  std::uint64_t offset = 0;
  for (const auto& [name, type] : members) {
    offset = (offset + type->align - 1) / type->align * type->align;
    t->fields.push_back({name, offset, type});
    offset += type->size;
    t->align = std::max(t->align, type->align);
    if (type->kind == Type::Kind::Array)
      t->name +=
          " " + type->base_name + " " + name + type->name.substr(type->base_name.size()) + ";";
    else
      t->name += " " + type->name + " " + name + ";";
  }
  t->name += " }";
  t->size = (offset + t->align - 1) / t->align * t->align;
  return t;
}

TypePtr make_array(TypePtr elem, std::uint64_t count) {
  auto t = std::make_shared<Type>();
  t->kind = Type::Kind::Array;
  t->count = count;
  t->size = elem->size * count;
  t->align = elem->align;
  // Appended piecewise: GCC 12 warns (-Wrestrict) on a literal + a temporary std::string.
  std::string dim = "[";
  if (count) dim += std::to_string(count);
  dim += ']';
  if (elem->kind == Type::Kind::Array) {
    t->base_name = elem->base_name;
    t->name = t->base_name + dim + elem->name.substr(elem->base_name.size());
  } else {
    t->base_name = elem->name;
    t->name = t->base_name + dim;
  }
  t->elem = std::move(elem);
  return t;
}

}  // namespace bankcheck::explain::detail
