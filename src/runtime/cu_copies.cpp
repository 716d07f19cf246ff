// Copies and fills, 1D, 2D and 3D, with their Async forms: each becomes one memcpy or memset
// node (memory.hpp's copy_3d and fill_2d), run at once or recorded by a stream capture. The
// per-thread-stream forms (_ptds, _ptsz) are the same functions. An array side is reached
// through Driver::array (memory.cpp's copy_3d).
#include <string_view>

#include "driver.hpp"
#include "graphs.hpp"
#include "memory.hpp"

using namespace bankcheck::runtime;

namespace {

void* host(CUdeviceptr p) { return reinterpret_cast<void*>(p); }

CUresult copy_on(Driver& d, CUstream stream, const CUDA_MEMCPY3D& p) {
  if (!d.valid_stream(stream)) return CUDA_ERROR_INVALID_HANDLE;
  Node n;
  n.type = CU_GRAPH_NODE_TYPE_MEMCPY;
  n.copy = p;
  return submit(d, stream, std::move(n));
}

CUresult linear(Driver& d, CUstream stream, void* dst, CUmemorytype dt, const void* src,
                CUmemorytype st, std::size_t bytes) {
  return copy_on(d, stream, linear_copy(dst, dt, src, st, bytes));
}

CUDA_MEMCPY3D from_2d(const CUDA_MEMCPY2D& c) {
  CUDA_MEMCPY3D p{};
  p.srcXInBytes = c.srcXInBytes;
  p.srcY = c.srcY;
  p.srcMemoryType = c.srcMemoryType;
  p.srcHost = c.srcHost;
  p.srcDevice = c.srcDevice;
  p.srcArray = c.srcArray;
  p.srcPitch = c.srcPitch;
  p.dstXInBytes = c.dstXInBytes;
  p.dstY = c.dstY;
  p.dstMemoryType = c.dstMemoryType;
  p.dstHost = c.dstHost;
  p.dstDevice = c.dstDevice;
  p.dstArray = c.dstArray;
  p.dstPitch = c.dstPitch;
  p.WidthInBytes = c.WidthInBytes;
  p.Height = c.Height;
  p.Depth = 1;
  return p;
}

CUDA_MEMCPY3D from_peer(const CUDA_MEMCPY3D_PEER& c) {
  CUDA_MEMCPY3D p{};
  p.srcXInBytes = c.srcXInBytes;
  p.srcY = c.srcY;
  p.srcZ = c.srcZ;
  p.srcLOD = c.srcLOD;
  p.srcMemoryType = c.srcMemoryType;
  p.srcHost = c.srcHost;
  p.srcDevice = c.srcDevice;
  p.srcArray = c.srcArray;
  p.srcPitch = c.srcPitch;
  p.srcHeight = c.srcHeight;
  p.dstXInBytes = c.dstXInBytes;
  p.dstY = c.dstY;
  p.dstZ = c.dstZ;
  p.dstLOD = c.dstLOD;
  p.dstMemoryType = c.dstMemoryType;
  p.dstHost = c.dstHost;
  p.dstDevice = c.dstDevice;
  p.dstArray = c.dstArray;
  p.dstPitch = c.dstPitch;
  p.dstHeight = c.dstHeight;
  p.WidthInBytes = c.WidthInBytes;
  p.Height = c.Height;
  p.Depth = c.Depth;
  return p;
}

CUresult fill_on(Driver& d, CUstream stream, CUdeviceptr dst, std::size_t pitch, unsigned value,
                 unsigned element, std::size_t width, std::size_t height) {
  if (!d.valid_stream(stream)) return CUDA_ERROR_INVALID_HANDLE;
  Node n;
  n.type = CU_GRAPH_NODE_TYPE_MEMSET;
  n.fill = CUDA_MEMSET_NODE_PARAMS{dst, pitch, value, element, width, height};
  return submit(d, stream, std::move(n));
}

// A copy or fill; a blocking copy (cuMemcpy*, not *Async) is where the GPU's driver prints
// the kernels' printf text (flush_device_output).
template <class Body>
CUresult copy_call(Body&& body, const char* name = __builtin_FUNCTION()) {
  const std::string_view n = name;
  if (n.starts_with("cuMemcpy") && n.find("Async") == std::string_view::npos) at_synchronization();
  return in_context([&](Driver& d, Context&) { return body(d); }, true, name);
}

// One device: a peer copy's contexts must be contexts, and it is a copy within the device.
bool peers(const Driver& d, CUcontext a, CUcontext b) {
  return d.valid_context(a) && d.valid_context(b);
}

}  // namespace

// ---- 1D
// ------------------------------------------------------------------------------------------

BANKCHECK_API CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  return copy_call([&](Driver& d) {
    return linear(d, nullptr, host(dst), CU_MEMORYTYPE_UNIFIED, host(src), CU_MEMORYTYPE_UNIFIED,
                  ByteCount);
  });
}
BANKCHECK_ALIAS(cuMemcpy, cuMemcpy_ptds)

BANKCHECK_API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
                                     CUstream hStream) {
  return copy_call([&](Driver& d) {
    return linear(d, hStream, host(dst), CU_MEMORYTYPE_UNIFIED, host(src), CU_MEMORYTYPE_UNIFIED,
                  ByteCount);
  });
}
BANKCHECK_ALIAS(cuMemcpyAsync, cuMemcpyAsync_ptsz)

BANKCHECK_API CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void* srcHost,
                                       size_t ByteCount) {
  return copy_call([&](Driver& d) {
    return linear(d, nullptr, host(dstDevice), CU_MEMORYTYPE_DEVICE, srcHost, CU_MEMORYTYPE_HOST,
                  ByteCount);
  });
}
BANKCHECK_ALIAS(cuMemcpyHtoD_v2, cuMemcpyHtoD_v2_ptds)

BANKCHECK_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void* srcHost,
                                            size_t ByteCount, CUstream hStream) {
  return copy_call([&](Driver& d) {
    return linear(d, hStream, host(dstDevice), CU_MEMORYTYPE_DEVICE, srcHost, CU_MEMORYTYPE_HOST,
                  ByteCount);
  });
}
BANKCHECK_ALIAS(cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync_v2_ptsz)

BANKCHECK_API CUresult cuMemcpyDtoH_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  return copy_call([&](Driver& d) {
    return linear(d, nullptr, dstHost, CU_MEMORYTYPE_HOST, host(srcDevice), CU_MEMORYTYPE_DEVICE,
                  ByteCount);
  });
}
BANKCHECK_ALIAS(cuMemcpyDtoH_v2, cuMemcpyDtoH_v2_ptds)

BANKCHECK_API CUresult cuMemcpyDtoHAsync_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                            CUstream hStream) {
  return copy_call([&](Driver& d) {
    return linear(d, hStream, dstHost, CU_MEMORYTYPE_HOST, host(srcDevice), CU_MEMORYTYPE_DEVICE,
                  ByteCount);
  });
}
BANKCHECK_ALIAS(cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync_v2_ptsz)

BANKCHECK_API CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                       size_t ByteCount) {
  return copy_call([&](Driver& d) {
    return linear(d, nullptr, host(dstDevice), CU_MEMORYTYPE_DEVICE, host(srcDevice),
                  CU_MEMORYTYPE_DEVICE, ByteCount);
  });
}
BANKCHECK_ALIAS(cuMemcpyDtoD_v2, cuMemcpyDtoD_v2_ptds)

BANKCHECK_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                            size_t ByteCount, CUstream hStream) {
  return copy_call([&](Driver& d) {
    return linear(d, hStream, host(dstDevice), CU_MEMORYTYPE_DEVICE, host(srcDevice),
                  CU_MEMORYTYPE_DEVICE, ByteCount);
  });
}
BANKCHECK_ALIAS(cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync_v2_ptsz)

BANKCHECK_API CUresult cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext,
                                    CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount) {
  return copy_call([&](Driver& d) {
    if (!peers(d, dstContext, srcContext)) return CUDA_ERROR_INVALID_CONTEXT;
    return linear(d, nullptr, host(dstDevice), CU_MEMORYTYPE_DEVICE, host(srcDevice),
                  CU_MEMORYTYPE_DEVICE, ByteCount);
  });
}
BANKCHECK_ALIAS(cuMemcpyPeer, cuMemcpyPeer_ptds)

BANKCHECK_API CUresult cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext,
                                         CUdeviceptr srcDevice, CUcontext srcContext,
                                         size_t ByteCount, CUstream hStream) {
  return copy_call([&](Driver& d) {
    if (!peers(d, dstContext, srcContext)) return CUDA_ERROR_INVALID_CONTEXT;
    return linear(d, hStream, host(dstDevice), CU_MEMORYTYPE_DEVICE, host(srcDevice),
                  CU_MEMORYTYPE_DEVICE, ByteCount);
  });
}
BANKCHECK_ALIAS(cuMemcpyPeerAsync, cuMemcpyPeerAsync_ptsz)

// ---- To and from 1D arrays (an offset in bytes into the array's row) ----------------------

namespace {

// One side of a copy: host or device memory, or an array at a byte offset.
struct Side {
  CUmemorytype type;
  const void* p = nullptr;
  CUarray array = nullptr;
  std::size_t offset = 0;
};

CUDA_MEMCPY3D array_copy(const Side& dst, const Side& src, std::size_t bytes) {
  CUDA_MEMCPY3D c = linear_copy(const_cast<void*>(dst.p), dst.type, src.p, src.type, bytes);
  if (src.array) c.srcArray = src.array, c.srcXInBytes = src.offset, c.srcPitch = 0;
  if (dst.array) c.dstArray = dst.array, c.dstXInBytes = dst.offset, c.dstPitch = 0;
  return c;
}

Side array_side(CUarray a, std::size_t offset) { return {CU_MEMORYTYPE_ARRAY, nullptr, a, offset}; }

}  // namespace

BANKCHECK_API CUresult cuMemcpyHtoA_v2(CUarray dstArray, size_t dstOffset, const void* srcHost,
                                       size_t ByteCount) {
  return copy_call([&](Driver& d) {
    return copy_on(
        d, nullptr,
        array_copy(array_side(dstArray, dstOffset), {CU_MEMORYTYPE_HOST, srcHost}, ByteCount));
  });
}
BANKCHECK_ALIAS(cuMemcpyHtoA_v2, cuMemcpyHtoA_v2_ptds)

BANKCHECK_API CUresult cuMemcpyHtoAAsync_v2(CUarray dstArray, size_t dstOffset, const void* srcHost,
                                            size_t ByteCount, CUstream hStream) {
  return copy_call([&](Driver& d) {
    return copy_on(
        d, hStream,
        array_copy(array_side(dstArray, dstOffset), {CU_MEMORYTYPE_HOST, srcHost}, ByteCount));
  });
}
BANKCHECK_ALIAS(cuMemcpyHtoAAsync_v2, cuMemcpyHtoAAsync_v2_ptsz)

BANKCHECK_API CUresult cuMemcpyAtoH_v2(void* dstHost, CUarray srcArray, size_t srcOffset,
                                       size_t ByteCount) {
  return copy_call([&](Driver& d) {
    return copy_on(
        d, nullptr,
        array_copy({CU_MEMORYTYPE_HOST, dstHost}, array_side(srcArray, srcOffset), ByteCount));
  });
}
BANKCHECK_ALIAS(cuMemcpyAtoH_v2, cuMemcpyAtoH_v2_ptds)

BANKCHECK_API CUresult cuMemcpyAtoHAsync_v2(void* dstHost, CUarray srcArray, size_t srcOffset,
                                            size_t ByteCount, CUstream hStream) {
  return copy_call([&](Driver& d) {
    return copy_on(
        d, hStream,
        array_copy({CU_MEMORYTYPE_HOST, dstHost}, array_side(srcArray, srcOffset), ByteCount));
  });
}
BANKCHECK_ALIAS(cuMemcpyAtoHAsync_v2, cuMemcpyAtoHAsync_v2_ptsz)

BANKCHECK_API CUresult cuMemcpyDtoA_v2(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice,
                                       size_t ByteCount) {
  return copy_call([&](Driver& d) {
    return copy_on(d, nullptr,
                   array_copy(array_side(dstArray, dstOffset),
                              {CU_MEMORYTYPE_DEVICE, host(srcDevice)}, ByteCount));
  });
}
BANKCHECK_ALIAS(cuMemcpyDtoA_v2, cuMemcpyDtoA_v2_ptds)

BANKCHECK_API CUresult cuMemcpyAtoD_v2(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset,
                                       size_t ByteCount) {
  return copy_call([&](Driver& d) {
    return copy_on(d, nullptr,
                   array_copy({CU_MEMORYTYPE_DEVICE, host(dstDevice)},
                              array_side(srcArray, srcOffset), ByteCount));
  });
}
BANKCHECK_ALIAS(cuMemcpyAtoD_v2, cuMemcpyAtoD_v2_ptds)

BANKCHECK_API CUresult cuMemcpyAtoA_v2(CUarray dstArray, size_t dstOffset, CUarray srcArray,
                                       size_t srcOffset, size_t ByteCount) {
  return copy_call([&](Driver& d) {
    return copy_on(
        d, nullptr,
        array_copy(array_side(dstArray, dstOffset), array_side(srcArray, srcOffset), ByteCount));
  });
}
BANKCHECK_ALIAS(cuMemcpyAtoA_v2, cuMemcpyAtoA_v2_ptds)

// ---- 2D and 3D ----------------------------------------------------------------------------------

BANKCHECK_API CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D* pCopy) {
  return copy_call([&](Driver& d) {
    return pCopy ? copy_on(d, nullptr, from_2d(*pCopy)) : CUDA_ERROR_INVALID_VALUE;
  });
}
BANKCHECK_ALIAS(cuMemcpy2D_v2, cuMemcpy2D_v2_ptds)
BANKCHECK_ALIAS(cuMemcpy2D_v2, cuMemcpy2DUnaligned_v2)
BANKCHECK_ALIAS(cuMemcpy2D_v2, cuMemcpy2DUnaligned_v2_ptds)

BANKCHECK_API CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D* pCopy, CUstream hStream) {
  return copy_call([&](Driver& d) {
    return pCopy ? copy_on(d, hStream, from_2d(*pCopy)) : CUDA_ERROR_INVALID_VALUE;
  });
}
BANKCHECK_ALIAS(cuMemcpy2DAsync_v2, cuMemcpy2DAsync_v2_ptsz)

BANKCHECK_API CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D* pCopy) {
  return copy_call(
      [&](Driver& d) { return pCopy ? copy_on(d, nullptr, *pCopy) : CUDA_ERROR_INVALID_VALUE; });
}
BANKCHECK_ALIAS(cuMemcpy3D_v2, cuMemcpy3D_v2_ptds)

BANKCHECK_API CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D* pCopy, CUstream hStream) {
  return copy_call(
      [&](Driver& d) { return pCopy ? copy_on(d, hStream, *pCopy) : CUDA_ERROR_INVALID_VALUE; });
}
BANKCHECK_ALIAS(cuMemcpy3DAsync_v2, cuMemcpy3DAsync_v2_ptsz)

BANKCHECK_API CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER* pCopy) {
  return copy_call([&](Driver& d) {
    if (!pCopy) return CUDA_ERROR_INVALID_VALUE;
    return copy_on(d, nullptr, from_peer(*pCopy));
  });
}
BANKCHECK_ALIAS(cuMemcpy3DPeer, cuMemcpy3DPeer_ptds)

BANKCHECK_API CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER* pCopy, CUstream hStream) {
  return copy_call([&](Driver& d) {
    if (!pCopy) return CUDA_ERROR_INVALID_VALUE;
    return copy_on(d, hStream, from_peer(*pCopy));
  });
}
BANKCHECK_ALIAS(cuMemcpy3DPeerAsync, cuMemcpy3DPeerAsync_ptsz)

// ---- Fills
// ---------------------------------------------------------------------------------------

BANKCHECK_API CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  return copy_call([&](Driver& d) { return fill_on(d, nullptr, dstDevice, N, uc, 1, N, 1); });
}
BANKCHECK_ALIAS(cuMemsetD8_v2, cuMemsetD8_v2_ptds)

BANKCHECK_API CUresult cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N) {
  return copy_call([&](Driver& d) { return fill_on(d, nullptr, dstDevice, 2 * N, us, 2, N, 1); });
}
BANKCHECK_ALIAS(cuMemsetD16_v2, cuMemsetD16_v2_ptds)

BANKCHECK_API CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  return copy_call([&](Driver& d) { return fill_on(d, nullptr, dstDevice, 4 * N, ui, 4, N, 1); });
}
BANKCHECK_ALIAS(cuMemsetD32_v2, cuMemsetD32_v2_ptds)

BANKCHECK_API CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N,
                                       CUstream hStream) {
  return copy_call([&](Driver& d) { return fill_on(d, hStream, dstDevice, N, uc, 1, N, 1); });
}
BANKCHECK_ALIAS(cuMemsetD8Async, cuMemsetD8Async_ptsz)

BANKCHECK_API CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N,
                                        CUstream hStream) {
  return copy_call([&](Driver& d) { return fill_on(d, hStream, dstDevice, 2 * N, us, 2, N, 1); });
}
BANKCHECK_ALIAS(cuMemsetD16Async, cuMemsetD16Async_ptsz)

BANKCHECK_API CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N,
                                        CUstream hStream) {
  return copy_call([&](Driver& d) { return fill_on(d, hStream, dstDevice, 4 * N, ui, 4, N, 1); });
}
BANKCHECK_ALIAS(cuMemsetD32Async, cuMemsetD32Async_ptsz)

BANKCHECK_API CUresult cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                                       size_t Width, size_t Height) {
  return copy_call(
      [&](Driver& d) { return fill_on(d, nullptr, dstDevice, dstPitch, uc, 1, Width, Height); });
}
BANKCHECK_ALIAS(cuMemsetD2D8_v2, cuMemsetD2D8_v2_ptds)

BANKCHECK_API CUresult cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
                                        size_t Width, size_t Height) {
  return copy_call(
      [&](Driver& d) { return fill_on(d, nullptr, dstDevice, dstPitch, us, 2, Width, Height); });
}
BANKCHECK_ALIAS(cuMemsetD2D16_v2, cuMemsetD2D16_v2_ptds)

BANKCHECK_API CUresult cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
                                        size_t Width, size_t Height) {
  return copy_call(
      [&](Driver& d) { return fill_on(d, nullptr, dstDevice, dstPitch, ui, 4, Width, Height); });
}
BANKCHECK_ALIAS(cuMemsetD2D32_v2, cuMemsetD2D32_v2_ptds)

BANKCHECK_API CUresult cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                                         size_t Width, size_t Height, CUstream hStream) {
  return copy_call(
      [&](Driver& d) { return fill_on(d, hStream, dstDevice, dstPitch, uc, 1, Width, Height); });
}
BANKCHECK_ALIAS(cuMemsetD2D8Async, cuMemsetD2D8Async_ptsz)

BANKCHECK_API CUresult cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
                                          size_t Width, size_t Height, CUstream hStream) {
  return copy_call(
      [&](Driver& d) { return fill_on(d, hStream, dstDevice, dstPitch, us, 2, Width, Height); });
}
BANKCHECK_ALIAS(cuMemsetD2D16Async, cuMemsetD2D16Async_ptsz)

BANKCHECK_API CUresult cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
                                          size_t Width, size_t Height, CUstream hStream) {
  return copy_call(
      [&](Driver& d) { return fill_on(d, hStream, dstDevice, dstPitch, ui, 4, Width, Height); });
}
BANKCHECK_ALIAS(cuMemsetD2D32Async, cuMemsetD2D32Async_ptsz)
