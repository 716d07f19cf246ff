// CUDA arrays and texture objects. An array is host memory, row after row (its pitch the
// width's bytes), copied to and from by the copies of cu_copies.cpp (memory.cpp's copy_3d
// reads an array side through Driver::array). A texture object is its descriptions; the
// executor gets each one as an emu::Texture (bankcheck/emu/texture.hpp), which the
// emulator's `tex` reads; a surface object likewise for `suld` and `sust`. A layered array's
// layers are its slices. Cube map and mipmapped arrays, sRGB reads and resource views are not
// implemented (CUDA_ERROR_NOT_SUPPORTED).
#include <algorithm>
#include <cstring>
#include <string>

#include "driver.hpp"
#include "memory.hpp"

using namespace bankcheck::runtime;

namespace {

// The emulator's format of a CUarray_format, and its bytes per channel; false for the formats
// not implemented (block-compressed, packed YUV, the UNORM/SNORM packed ones).
bool texel_format(CUarray_format f, bankcheck::emu::TexFormat& out, std::size_t& bytes) {
  using bankcheck::emu::TexFormat;
  switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
      out = TexFormat::U8, bytes = 1;
      return true;
    case CU_AD_FORMAT_UNSIGNED_INT16:
      out = TexFormat::U16, bytes = 2;
      return true;
    case CU_AD_FORMAT_UNSIGNED_INT32:
      out = TexFormat::U32, bytes = 4;
      return true;
    case CU_AD_FORMAT_SIGNED_INT8:
      out = TexFormat::S8, bytes = 1;
      return true;
    case CU_AD_FORMAT_SIGNED_INT16:
      out = TexFormat::S16, bytes = 2;
      return true;
    case CU_AD_FORMAT_SIGNED_INT32:
      out = TexFormat::S32, bytes = 4;
      return true;
    case CU_AD_FORMAT_HALF:
      out = TexFormat::F16, bytes = 2;
      return true;
    case CU_AD_FORMAT_FLOAT:
      out = TexFormat::F32, bytes = 4;
      return true;
    default:
      return false;
  }
}

bool valid_channels(unsigned n) { return n == 1 || n == 2 || n == 4; }

// CUDA_ERROR_NOT_SUPPORTED for something the driver does not implement, named once on
// standard error (the program's own check usually names only the error).
CUresult not_supported(const char* call, const char* what) {
  diagnose_once(std::string(call) + what,
                std::string(call) + ": " + what +
                    " not implemented by bankcheck's CUDA driver; it returned "
                    "CUDA_ERROR_NOT_SUPPORTED");
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult create_array(Driver& d, CUarray* out, const CUDA_ARRAY3D_DESCRIPTOR& desc) {
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  bankcheck::emu::TexFormat format;
  std::size_t channel_bytes = 0;
  if (!texel_format(desc.Format, format, channel_bytes))
    return not_supported("cuArray3DCreate", "arrays of this format are");
  const bool layered = (desc.Flags & CUDA_ARRAY3D_LAYERED) != 0;
  if (!valid_channels(desc.NumChannels) || desc.Width == 0 ||
      (desc.Depth && !desc.Height && !layered) || (layered && !desc.Depth))
    return CUDA_ERROR_INVALID_VALUE;
  if (desc.Flags & CUDA_ARRAY3D_CUBEMAP)
    return not_supported("cuArray3DCreate", "cube map arrays are");
  if (desc.Flags & (CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING))
    return not_supported("cuArray3DCreate", "sparse and deferred-mapping arrays are");
  auto a = std::make_unique<Array>();
  a->desc = desc;
  a->texel = channel_bytes * desc.NumChannels;
  a->pitch = a->texel * desc.Width;
  a->rows = std::max<std::size_t>(desc.Height, 1);
  a->slices = std::max<std::size_t>(desc.Depth, 1);
  const std::size_t bytes = a->bytes();
  if (bytes > d.device.board.global_bytes - d.device_bytes_in_use) return CUDA_ERROR_OUT_OF_MEMORY;
  a->data = std::shared_ptr<std::uint8_t[]>(new std::uint8_t[bytes]());
  d.device_bytes_in_use += bytes;
  Array* raw = a.get();
  d.arrays.emplace(raw, std::move(a));
  *out = reinterpret_cast<CUarray>(raw);
  return CUDA_SUCCESS;
}

// What the executor reads of texture object `t`; false when its resource is one the emulator
// does not read.
CUresult describe(Driver& d, const TexObject& t, bankcheck::emu::Texture& out) {
  using bankcheck::emu::TexAddress;
  const CUDA_RESOURCE_DESC& r = t.res;
  CUarray_format format{};
  unsigned channels = 0;
  switch (r.resType) {
    case CU_RESOURCE_TYPE_ARRAY: {
      const Array* a = d.array(r.res.array.hArray);
      if (!a) return CUDA_ERROR_INVALID_HANDLE;
      format = a->desc.Format;
      channels = a->desc.NumChannels;
      out.data = a->data.get();
      out.width = a->desc.Width;
      out.height = a->rows;
      out.depth = a->slices;
      out.pitch = a->pitch;
      out.slice = a->pitch * a->rows;
      out.dims = a->desc.Depth && !(a->desc.Flags & CUDA_ARRAY3D_LAYERED) ? 3
                 : a->desc.Height                                         ? 2
                                                                          : 1;
      if (a->desc.Flags & CUDA_ARRAY3D_LAYERED) {  // layers are slices, not a dimension
        out.layers = static_cast<std::uint32_t>(a->desc.Depth);
        out.depth = 1;
      }
      break;
    }
    case CU_RESOURCE_TYPE_LINEAR:
      format = r.res.linear.format;
      channels = r.res.linear.numChannels;
      out.data = reinterpret_cast<const std::uint8_t*>(r.res.linear.devPtr);
      out.linear = true;
      out.dims = 1;
      break;
    case CU_RESOURCE_TYPE_PITCH2D:
      format = r.res.pitch2D.format;
      channels = r.res.pitch2D.numChannels;
      out.data = reinterpret_cast<const std::uint8_t*>(r.res.pitch2D.devPtr);
      out.width = r.res.pitch2D.width;
      out.height = r.res.pitch2D.height;
      out.pitch = r.res.pitch2D.pitchInBytes;
      out.dims = 2;
      break;
    default:
      return not_supported("cuTexObjectCreate", "textures of mipmapped arrays are");
  }
  std::size_t channel_bytes = 0;
  if (!texel_format(format, out.format, channel_bytes))
    return not_supported("cuTexObjectCreate", "textures of this format are");
  if (!valid_channels(channels)) return CUDA_ERROR_INVALID_VALUE;
  out.channels = static_cast<std::uint8_t>(channels);
  const std::size_t texel = channel_bytes * channels;
  // Linear and pitched memory must lie in one allocation the device can read.
  if (r.resType == CU_RESOURCE_TYPE_LINEAR) {
    if (!r.res.linear.devPtr || r.res.linear.sizeInBytes < texel ||
        !device_range(d, out.data, r.res.linear.sizeInBytes))
      return CUDA_ERROR_INVALID_VALUE;
    out.width = r.res.linear.sizeInBytes / texel;
    out.pitch = r.res.linear.sizeInBytes;
  }
  if (r.resType == CU_RESOURCE_TYPE_PITCH2D) {
    const std::size_t w = r.res.pitch2D.width, h = r.res.pitch2D.height,
                      pitch = r.res.pitch2D.pitchInBytes;
    if (!out.data || w == 0 || h == 0 || w * texel > pitch ||
        !device_range(d, out.data, pitch * (h - 1) + w * texel))
      return CUDA_ERROR_INVALID_VALUE;
  }
  const CUDA_TEXTURE_DESC& x = t.tex;
  if (x.flags & CU_TRSF_SRGB) return not_supported("cuTexObjectCreate", "sRGB reads are");
  for (int i = 0; i < 3; ++i) {
    switch (x.addressMode[i]) {
      case CU_TR_ADDRESS_MODE_WRAP:
        out.address[i] = TexAddress::Wrap;
        break;
      case CU_TR_ADDRESS_MODE_CLAMP:
        out.address[i] = TexAddress::Clamp;
        break;
      case CU_TR_ADDRESS_MODE_MIRROR:
        out.address[i] = TexAddress::Mirror;
        break;
      case CU_TR_ADDRESS_MODE_BORDER:
        out.address[i] = TexAddress::Border;
        break;
      default:
        return CUDA_ERROR_INVALID_VALUE;
    }
  }
  if (x.filterMode != CU_TR_FILTER_MODE_POINT && x.filterMode != CU_TR_FILTER_MODE_LINEAR)
    return CUDA_ERROR_INVALID_VALUE;
  out.filter_linear = x.filterMode == CU_TR_FILTER_MODE_LINEAR;
  out.normalized_coords = (x.flags & CU_TRSF_NORMALIZED_COORDINATES) != 0;
  out.read_as_integer = (x.flags & CU_TRSF_READ_AS_INTEGER) != 0;
  std::copy(std::begin(x.borderColor), std::end(x.borderColor), out.border);
  return CUDA_SUCCESS;
}

}  // namespace

namespace bankcheck::runtime {

void forget_textures_in(Driver& d, std::uintptr_t start, std::size_t bytes) {
  for (auto& [handle, t] : d.textures) {
    if (!t.live) continue;
    std::uintptr_t p = 0;
    if (t.res.resType == CU_RESOURCE_TYPE_LINEAR) p = t.res.res.linear.devPtr;
    if (t.res.resType == CU_RESOURCE_TYPE_PITCH2D) p = t.res.res.pitch2D.devPtr;
    if (!p || p < start || p - start >= bytes) continue;
    t.live = false;
    if (Executor* ex = d.executor()) ex->texture_destroyed(handle);
  }
}

}  // namespace bankcheck::runtime

BANKCHECK_API CUresult cuArrayCreate_v2(CUarray* pHandle,
                                        const CUDA_ARRAY_DESCRIPTOR* pAllocateArray) {
  return in_context([&](Driver& d, Context&) {
    if (!pAllocateArray) return CUDA_ERROR_INVALID_VALUE;
    CUDA_ARRAY3D_DESCRIPTOR desc{};
    desc.Width = pAllocateArray->Width;
    desc.Height = pAllocateArray->Height;
    desc.Format = pAllocateArray->Format;
    desc.NumChannels = pAllocateArray->NumChannels;
    return create_array(d, pHandle, desc);
  });
}

BANKCHECK_API CUresult cuArray3DCreate_v2(CUarray* pHandle,
                                          const CUDA_ARRAY3D_DESCRIPTOR* pAllocateArray) {
  return in_context([&](Driver& d, Context&) {
    if (!pAllocateArray) return CUDA_ERROR_INVALID_VALUE;
    return create_array(d, pHandle, *pAllocateArray);
  });
}

BANKCHECK_API CUresult cuArrayDestroy(CUarray hArray) {
  return in_context([&](Driver& d, Context&) {
    const auto it = d.arrays.find(reinterpret_cast<Array*>(hArray));
    if (it == d.arrays.end()) return CUDA_ERROR_INVALID_HANDLE;
    d.device_bytes_in_use -= std::min(d.device_bytes_in_use, it->second->bytes());
    d.arrays.erase(it);  // a texture still reading it keeps its storage
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR* pArrayDescriptor,
                                                 CUarray hArray) {
  return in_context([&](Driver& d, Context&) {
    const Array* a = d.array(hArray);
    if (!a) return CUDA_ERROR_INVALID_HANDLE;
    if (!pArrayDescriptor) return CUDA_ERROR_INVALID_VALUE;
    *pArrayDescriptor = a->desc;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR* pArrayDescriptor,
                                               CUarray hArray) {
  return in_context([&](Driver& d, Context&) {
    const Array* a = d.array(hArray);
    if (!a) return CUDA_ERROR_INVALID_HANDLE;
    if (!pArrayDescriptor || a->desc.Depth) return CUDA_ERROR_INVALID_VALUE;
    pArrayDescriptor->Width = a->desc.Width;
    pArrayDescriptor->Height = a->desc.Height;
    pArrayDescriptor->Format = a->desc.Format;
    pArrayDescriptor->NumChannels = a->desc.NumChannels;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuTexObjectCreate(CUtexObject* pTexObject,
                                         const CUDA_RESOURCE_DESC* pResDesc,
                                         const CUDA_TEXTURE_DESC* pTexDesc,
                                         const CUDA_RESOURCE_VIEW_DESC* pResViewDesc) {
  return in_context([&](Driver& d, Context&) {
    if (!pTexObject || !pResDesc || !pTexDesc) return CUDA_ERROR_INVALID_VALUE;
    if (pResViewDesc && pResViewDesc->format != CU_RES_VIEW_FORMAT_NONE)
      return not_supported("cuTexObjectCreate", "resource views are");
    TexObject t;
    t.res = *pResDesc;
    t.tex = *pTexDesc;
    bankcheck::emu::Texture e;
    if (const CUresult r = describe(d, t, e)) return r;
    if (t.res.resType == CU_RESOURCE_TYPE_ARRAY)
      t.array_data = d.array(t.res.res.array.hArray)->data;
    const CUtexObject handle = d.next_texture++;
    if (Executor* ex = d.executor()) ex->texture_created(handle, e);
    d.textures.emplace(handle, std::move(t));
    *pTexObject = handle;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuTexObjectDestroy(CUtexObject texObject) {
  return in_context([&](Driver& d, Context&) {
    const auto it = d.textures.find(texObject);
    if (it == d.textures.end()) return CUDA_ERROR_INVALID_VALUE;
    if (it->second.live)
      if (Executor* ex = d.executor()) ex->texture_destroyed(texObject);
    d.textures.erase(it);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC* pResDesc,
                                                  CUtexObject texObject) {
  return in_context([&](Driver& d, Context&) {
    const auto it = d.textures.find(texObject);
    if (it == d.textures.end() || !pResDesc) return CUDA_ERROR_INVALID_VALUE;
    *pResDesc = it->second.res;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC* pTexDesc,
                                                 CUtexObject texObject) {
  return in_context([&](Driver& d, Context&) {
    const auto it = d.textures.find(texObject);
    if (it == d.textures.end() || !pTexDesc) return CUDA_ERROR_INVALID_VALUE;
    *pTexDesc = it->second.tex;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuSurfObjectCreate(CUsurfObject* pSurfObject,
                                          const CUDA_RESOURCE_DESC* pResDesc) {
  return in_context([&](Driver& d, Context&) {
    if (!pSurfObject || !pResDesc) return CUDA_ERROR_INVALID_VALUE;
    if (pResDesc->resType != CU_RESOURCE_TYPE_ARRAY) return CUDA_ERROR_INVALID_VALUE;
    const Array* a = d.array(pResDesc->res.array.hArray);
    if (!a) return CUDA_ERROR_INVALID_HANDLE;
    if (!(a->desc.Flags & CUDA_ARRAY3D_SURFACE_LDST)) return CUDA_ERROR_INVALID_VALUE;
    TexObject t;
    t.res = *pResDesc;
    bankcheck::emu::Texture e;
    if (const CUresult r = describe(d, t, e)) return r;
    t.array_data = a->data;
    const CUsurfObject handle = d.next_surface++;
    if (Executor* ex = d.executor()) ex->surface_created(handle, e);
    d.surfaces.emplace(handle, std::move(t));
    *pSurfObject = handle;
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuSurfObjectDestroy(CUsurfObject surfObject) {
  return in_context([&](Driver& d, Context&) {
    const auto it = d.surfaces.find(surfObject);
    if (it == d.surfaces.end()) return CUDA_ERROR_INVALID_VALUE;
    if (Executor* ex = d.executor()) ex->surface_destroyed(surfObject);
    d.surfaces.erase(it);
    return CUDA_SUCCESS;
  });
}

BANKCHECK_API CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC* pResDesc,
                                                   CUsurfObject surfObject) {
  return in_context([&](Driver& d, Context&) {
    const auto it = d.surfaces.find(surfObject);
    if (it == d.surfaces.end() || !pResDesc) return CUDA_ERROR_INVALID_VALUE;
    *pResDesc = it->second.res;
    return CUDA_SUCCESS;
  });
}
