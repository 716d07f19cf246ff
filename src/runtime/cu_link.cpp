// JIT linking (cuLinkCreate, cuLinkAddData, cuLinkAddFile, cuLinkComplete, cuLinkDestroy), as
// JIT front ends and NVIDIA's ptxjit use it: the emulator runs PTX as it is, so a link of one
// image (PTX, a cubin or a fat binary) completes to that image, which cuModuleLoadData then
// loads as it would the original. Linking several images together is not implemented
// (CUDA_ERROR_NOT_SUPPORTED, said once).
#include <cstring>
#include <fstream>
#include <iterator>

#include "driver.hpp"

using namespace bankcheck::runtime;

namespace {

struct Link {
  std::vector<std::vector<char>> inputs;  // each image's bytes (PTX with its NUL)
};

Link* link_of(Driver& d, CUlinkState s) {
  const auto it = d.links.find(reinterpret_cast<void*>(s));
  return it == d.links.end() ? nullptr : static_cast<Link*>(it->second.get());
}

CUresult add(Link& l, CUjitInputType type, const char* data, std::size_t size) {
  switch (type) {
    case CU_JIT_INPUT_PTX:
    case CU_JIT_INPUT_CUBIN:
    case CU_JIT_INPUT_FATBINARY:
      break;
    default:  // objects, libraries, LTO IR
      diagnose_once("cuLinkAddData type",
                    "cuLinkAddData: inputs other than PTX, cubins and fat "
                    "binaries are not implemented by bankcheck's CUDA "
                    "driver; it returned CUDA_ERROR_NOT_SUPPORTED");
      return CUDA_ERROR_NOT_SUPPORTED;
  }
  std::vector<char> bytes(data, data + size);
  if (type == CU_JIT_INPUT_PTX && (bytes.empty() || bytes.back() != '\0')) bytes.push_back('\0');
  l.inputs.push_back(std::move(bytes));
  return CUDA_SUCCESS;
}

void answer_options(unsigned count, CUjit_option* options, void** values) {
  if (count && options && values) answer_jit_options(count, options, values);
}

}  // namespace

BANKCHECK_API CUresult cuLinkCreate_v2(unsigned int numOptions, CUjit_option* options,
                                       void** optionValues, CUlinkState* stateOut) {
  return in_context([&](Driver& d, Context&) {
    if (!stateOut) return CUDA_ERROR_INVALID_VALUE;
    answer_options(numOptions, options, optionValues);
    auto l = std::make_shared<Link>();
    void* key = l.get();
    d.links.emplace(key, std::move(l));
    *stateOut = reinterpret_cast<CUlinkState>(key);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void* data,
                                        size_t size, const char* name, unsigned int numOptions,
                                        CUjit_option* options, void** optionValues) {
  (void)name;
  return in_context([&](Driver& d, Context&) {
    Link* l = link_of(d, state);
    if (!l) return CUDA_ERROR_INVALID_HANDLE;
    if (!data || size == 0) return CUDA_ERROR_INVALID_VALUE;
    answer_options(numOptions, options, optionValues);
    return add(*l, type, static_cast<const char*>(data), size);
  });
}

BANKCHECK_API CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char* path,
                                        unsigned int numOptions, CUjit_option* options,
                                        void** optionValues) {
  return in_context([&](Driver& d, Context&) {
    Link* l = link_of(d, state);
    if (!l) return CUDA_ERROR_INVALID_HANDLE;
    if (!path) return CUDA_ERROR_INVALID_VALUE;
    std::ifstream f(path, std::ios::binary);
    if (!f) return CUDA_ERROR_FILE_NOT_FOUND;
    const std::vector<char> bytes((std::istreambuf_iterator<char>(f)), {});
    if (bytes.empty()) return CUDA_ERROR_INVALID_IMAGE;
    answer_options(numOptions, options, optionValues);
    return add(*l, type, bytes.data(), bytes.size());
  });
}

BANKCHECK_API CUresult cuLinkComplete(CUlinkState state, void** cubinOut, size_t* sizeOut) {
  return in_context([&](Driver& d, Context&) {
    Link* l = link_of(d, state);
    if (!l) return CUDA_ERROR_INVALID_HANDLE;
    if (!cubinOut || !sizeOut) return CUDA_ERROR_INVALID_VALUE;
    if (l->inputs.empty()) return CUDA_ERROR_INVALID_VALUE;
    if (l->inputs.size() > 1) {
      diagnose_once("cuLinkComplete inputs",
                    "cuLinkComplete: linking several images together is not implemented by "
                    "bankcheck's CUDA driver; it returned CUDA_ERROR_NOT_SUPPORTED");
      return CUDA_ERROR_NOT_SUPPORTED;
    }
    // The image stays with the state until cuLinkDestroy, as the driver's output does.
    *cubinOut = l->inputs[0].data();
    *sizeOut = l->inputs[0].size();
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuLinkDestroy(CUlinkState state) {
  return in_context([&](Driver& d, Context&) {
    return d.links.erase(reinterpret_cast<void*>(state)) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
  });
}
