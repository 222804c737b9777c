//! The CUDA runtime (`cudarc`, `libcuda` and `libnvrtc` loaded at run time): kernels compiled
//! by NVRTC straight to a CUBIN for the device's `sm_XY` (no PTX-versus-driver mismatch).

use super::{Arg, DeviceInfo, RuntimeKind};
use crate::error::{runtime, Error, Result};
use crate::nvrtc;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtrMut, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::Ptx;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The first CUDA device, its context and stream.
pub(crate) struct Cuda {
    stream: Arc<CudaStream>,
    arch: String,
}

/// A loaded module and its functions (looked up on first use).
pub(crate) struct CuModule {
    module: Arc<CudaModule>,
    functions: Mutex<HashMap<String, CudaFunction>>,
}

impl Cuda {
    /// Opens device 0. Probes for `libcuda` first: `CudaContext::new` panics without it.
    pub(crate) fn open() -> Result<(Self, DeviceInfo)> {
        // SAFETY: only tries to dlopen the library.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(Error::NoDevice(
                "CUDA: no libcuda (NVIDIA driver) found".into(),
            ));
        }
        if !nvrtc::available() {
            return Err(Error::NoDevice(
                "CUDA: no libnvrtc found (install a CUDA toolkit, or `pip install nvidia-cuda-nvrtc-cu12` and add its lib directory to LD_LIBRARY_PATH)".into(),
            ));
        }
        let count = CudaContext::device_count().map_err(runtime("CUDA device count"))?;
        if count < 1 {
            return Err(Error::NoDevice("CUDA: no device".into()));
        }
        let ctx = CudaContext::new(0).map_err(runtime("CUDA context"))?;
        // One stream, in order: cudarc's per-buffer events (two created and destroyed per
        // allocation, recorded per launch in multi-stream mode) only cost here.
        // SAFETY: every buffer of this context is used on its one stream.
        unsafe { ctx.disable_event_tracking() };
        let (major, minor) = ctx
            .compute_capability()
            .map_err(runtime("CUDA device query"))?;
        let arch = format!("sm_{major}{minor}");
        let (nv_major, nv_minor) = nvrtc::version().unwrap_or((0, 0));
        let info = DeviceInfo {
            runtime: RuntimeKind::Cuda,
            name: ctx.name().unwrap_or_default(),
            vendor: "NVIDIA".into(),
            driver: driver_version(),
            compiler: format!("NVRTC {nv_major}.{nv_minor}"),
            compute_units: ctx
                .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
                .unwrap_or(0) as u32,
            memory_bytes: ctx.total_mem().unwrap_or(0) as u64,
            max_group: 1024,
            arch: Some(arch.clone()),
            emulated: false,
        };
        Ok((
            Cuda {
                stream: ctx.default_stream(),
                arch,
            },
            info,
        ))
    }

    /// Compiles `source` to a CUBIN for this device (or loads `cached`); returns the module
    /// and the CUBIN to cache.
    pub(crate) fn build(
        &self,
        name: &str,
        source: &str,
        cached: Option<&[u8]>,
    ) -> Result<(CuModule, Option<Vec<u8>>)> {
        let ctx = self.stream.context();
        if let Some(bin) = cached {
            if let Ok(module) = ctx.load_module(Ptx::from_binary(bin.to_vec())) {
                return Ok((CuModule::new(module), None));
            }
        }
        let out = nvrtc::compile(name, source, &self.arch, false)?;
        let module = ctx
            .load_module(Ptx::from_binary(out.image.clone()))
            .map_err(runtime("CUDA module load"))?;
        Ok((CuModule::new(module), Some(out.image)))
    }

    /// The architecture the modules are compiled for (`sm_90`).
    pub(crate) fn arch(&self) -> &str {
        &self.arch
    }

    /// `words` uninitialised words (stream-ordered `cuMemAllocAsync`, from the driver's
    /// pool where the device has one).
    pub(crate) fn alloc(&self, words: usize) -> Result<CudaSlice<u64>> {
        // SAFETY: the words are unspecified until written; `Gpu::alloc` documents that, and
        // debug builds fill them with a poison pattern.
        unsafe { self.stream.alloc::<u64>(words.max(1)) }.map_err(runtime("CUDA allocation"))
    }

    /// Sets every byte of `buf` to `byte` (`cuMemsetD8Async`, queued on the stream).
    pub(crate) fn fill(&self, buf: &mut CudaSlice<u64>, byte: u8) -> Result<()> {
        let bytes = buf.num_bytes();
        let (ptr, _record) = buf.device_ptr_mut(&self.stream);
        // SAFETY: `ptr` addresses `bytes` bytes of a live allocation of this context.
        unsafe {
            cudarc::driver::result::memset_d8_async(ptr, byte, bytes, self.stream.cu_stream())
        }
        .map_err(runtime("CUDA memset"))
    }

    /// Queues the copy of `data` into `buf` and returns without waiting for the stream.
    ///
    /// `data` is pageable host memory (never pinned here), and for a pageable source
    /// `cuMemcpyHtoDAsync` has consumed it, staged for DMA, by the time it returns (CUDA's
    /// "API synchronization behavior"), so the caller may drop or reuse it at once; the
    /// stream orders the copy after the work queued before and before the work queued
    /// after. Not waiting lets the host queue a circuit's launches ahead of the device: a
    /// polynomial uploads a small constant table for every constant product, and a
    /// synchronization after each made its host time equal its device time (BENCHMARKS.md,
    /// "GPU backend on an NVIDIA H200").
    pub(crate) fn upload(&self, buf: &mut CudaSlice<u64>, data: &[u64]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        let mut view = buf.slice_mut(0..data.len());
        self.stream
            .memcpy_htod(data, &mut view)
            .map_err(runtime("CUDA upload"))
    }

    pub(crate) fn download(&self, buf: &CudaSlice<u64>, out: &mut [u64]) -> Result<()> {
        if out.is_empty() {
            return Ok(());
        }
        let view = buf.slice(0..out.len());
        self.stream
            .memcpy_dtoh(&view, out)
            .map_err(runtime("CUDA download"))?;
        self.synchronize()
    }

    pub(crate) fn launch(
        &self,
        module: &CuModule,
        kernel: &str,
        grid: [u32; 2],
        block: u32,
        args: &[Arg<'_>],
    ) -> Result<()> {
        let f = {
            let mut fns = module.functions.lock().unwrap_or_else(|e| e.into_inner());
            if !fns.contains_key(kernel) {
                let f = module
                    .module
                    .load_function(kernel)
                    .map_err(runtime("CUDA function"))?;
                fns.insert(kernel.to_string(), f);
            }
            fns[kernel].clone()
        };
        let scalars: Vec<u32> = args
            .iter()
            .map(|a| match a {
                Arg::U32(v) => *v,
                Arg::Buf(_) => 0,
            })
            .collect();
        let mut builder = self.stream.launch_builder(&f);
        for (arg, scalar) in args.iter().zip(&scalars) {
            match arg {
                Arg::Buf(b) => {
                    builder.arg(b.cuda()?);
                }
                Arg::U32(_) => {
                    builder.arg(scalar);
                }
            }
        }
        let cfg = LaunchConfig {
            grid_dim: (grid[0], grid[1], 1),
            block_dim: (block, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the argument kinds and order follow the kernel signatures, and every
        // buffer is large enough for the grid (checked by the callers).
        unsafe { builder.launch(cfg) }.map_err(runtime(kernel))?;
        Ok(())
    }

    /// Runs `f` between `cuProfilerStart` and `cuProfilerStop`.
    pub(crate) fn profiled<R>(&self, f: impl FnOnce() -> Result<R>) -> Result<R> {
        self.synchronize()?;
        // SAFETY: the profiler calls take no arguments; this context is current on the
        // stream's thread (bound by the synchronization above).
        unsafe { cudarc::driver::sys::cuProfilerStart() }
            .result()
            .map_err(runtime("cuProfilerStart"))?;
        let r = f();
        let done = self.synchronize();
        unsafe { cudarc::driver::sys::cuProfilerStop() }
            .result()
            .map_err(runtime("cuProfilerStop"))?;
        done?;
        r
    }

    pub(crate) fn synchronize(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(runtime("CUDA synchronize"))
    }

    /// Runs `f` between two timing events on the stream; returns its result and the
    /// device time between the events, in milliseconds.
    pub(crate) fn timed<R>(&self, f: impl FnOnce() -> Result<R>) -> Result<(R, f64)> {
        let flags = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        let start = self
            .stream
            .record_event(flags)
            .map_err(runtime("CUDA event"))?;
        let r = f()?;
        let end = self
            .stream
            .record_event(flags)
            .map_err(runtime("CUDA event"))?;
        end.synchronize().map_err(runtime("CUDA event"))?;
        let ms = start.elapsed_ms(&end).map_err(runtime("CUDA event"))?;
        Ok((r, ms as f64))
    }
}

impl CuModule {
    fn new(module: Arc<CudaModule>) -> Self {
        CuModule {
            module,
            functions: Mutex::new(HashMap::new()),
        }
    }
}

/// The driver's CUDA version (`cuDriverGetVersion`), as `CUDA 12.4`.
fn driver_version() -> String {
    let mut v = 0i32;
    // SAFETY: one out-pointer to a live integer; libcuda is loaded (checked by `open`).
    let r = unsafe { cudarc::driver::sys::cuDriverGetVersion(&mut v) };
    if r == cudarc::driver::sys::CUresult::CUDA_SUCCESS {
        format!("CUDA {}.{}", v / 1000, (v % 1000) / 10)
    } else {
        String::new()
    }
}
