/* The only place that knows whether the kernels are compiled as CUDA C++ (NVRTC) or as
 * OpenCL C 1.2. Every kernel file is written in the C subset both accept, with these macros
 * (rules: crates/hekate-gpu/src/kernels.rs and ../shared/notes/gpu.md, "Kernel dialect"):
 * no templates, overloading or dynamic shared memory; pointer parameters always carry
 * HK_GLOBAL; f64 arithmetic only through HK_DMUL / HK_DADD (never contracted into an FMA). */
#if defined(__CUDACC__)
typedef unsigned long long u64;
typedef unsigned int u32;
#define HK_KERNEL extern "C" __global__ void
#define HK_GLOBAL
#define HK_LOCAL __shared__
#define HK_LOCAL_PTR
#define HK_INLINE static __device__ __forceinline__
#define HK_GID_X ((u32)(blockIdx.x * blockDim.x + threadIdx.x))
#define HK_GID_Y ((u32)(blockIdx.y * blockDim.y + threadIdx.y))
#define HK_LID_X ((u32)threadIdx.x)
#define HK_LSZ_X ((u32)blockDim.x)
#define HK_GRP_X ((u32)blockIdx.x)
#define HK_GRP_Y ((u32)blockIdx.y)
#define HK_BARRIER() __syncthreads()
HK_INLINE u64 hk_mulhi(u64 a, u64 b) { return __umul64hi(a, b); }
#define HK_DMUL(a, b) __dmul_rn((a), (b))
#define HK_DADD(a, b) __dadd_rn((a), (b))
#define HK_F64_FROM_BITS(x) __longlong_as_double((long long)(x))
#define HK_U64_TO_F64(x) __ull2double_rn(x)
#define HK_ROUND(x) round(x)
#else
typedef ulong u64;
typedef uint u32;
#define HK_KERNEL __kernel void
#define HK_GLOBAL __global
#define HK_LOCAL __local
#define HK_LOCAL_PTR __local
#define HK_INLINE static inline
#define HK_GID_X ((u32)get_global_id(0))
#define HK_GID_Y ((u32)get_global_id(1))
#define HK_LID_X ((u32)get_local_id(0))
#define HK_LSZ_X ((u32)get_local_size(0))
#define HK_GRP_X ((u32)get_group_id(0))
#define HK_GRP_Y ((u32)get_group_id(1))
#define HK_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
HK_INLINE u64 hk_mulhi(u64 a, u64 b) { return mul_hi(a, b); }
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
#define HK_DMUL(a, b) ((a) * (b))
#define HK_DADD(a, b) ((a) + (b))
#define HK_F64_FROM_BITS(x) as_double(x)
#define HK_U64_TO_F64(x) convert_double_rte(x)
#define HK_ROUND(x) round(x)
#endif
