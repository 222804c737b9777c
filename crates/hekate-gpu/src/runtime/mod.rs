//! The runtime layer: one [`Gpu`] over either runtime (CUDA through `cudarc`, OpenCL through
//! `opencl3`), device memory ([`Buffer`]), compiled kernel modules and launches.
//!
//! The two runtimes sit behind an enum, not a trait object or a generic parameter, so the
//! device types above (`DevicePoly`, ...) are plain structs. Both load their driver library
//! at run time; nothing CUDA or OpenCL is needed to build.

mod cuda;
mod opencl;
mod pool;

use crate::cache::ModuleCache;
use crate::error::{Error, Result};
use crate::kernels::KernelModule;
use pool::Pool;
use std::collections::HashMap;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The byte debug builds fill fresh allocations with: `0xA5A5...A5` is above every modulus
/// (primes are below 2^62), so a word read before anything wrote it shows in any result.
pub const POISON: u8 = 0xA5;

/// Which runtime drives the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuntimeKind {
    /// NVIDIA's driver API, kernels compiled by NVRTC.
    Cuda,
    /// OpenCL (any vendor; POCL on CPUs).
    OpenCl,
}

impl std::fmt::Display for RuntimeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RuntimeKind::Cuda => "cuda",
            RuntimeKind::OpenCl => "opencl",
        })
    }
}

/// Which device [`Gpu::open`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Select {
    /// `HEKATE_GPU` if set (`cuda`, `opencl`, `off`, `auto`); else CUDA when an NVIDIA
    /// driver, NVRTC and a device are present, else the first OpenCL device.
    #[default]
    Auto,
    /// CUDA only.
    Cuda,
    /// OpenCL only.
    OpenCl,
}

impl Select {
    /// Parses `auto`, `cuda`, `opencl` (the `HEKATE_GPU` values; `off` is not a selection).
    pub fn parse(s: &str) -> Option<Select> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" | "" => Some(Select::Auto),
            "cuda" => Some(Select::Cuda),
            "opencl" | "ocl" => Some(Select::OpenCl),
            _ => None,
        }
    }
}

/// What the opened device is.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    /// The runtime driving it.
    pub runtime: RuntimeKind,
    /// The device's name.
    pub name: String,
    /// Its vendor.
    pub vendor: String,
    /// The driver's version.
    pub driver: String,
    /// The kernel compiler (`NVRTC 12.9`, `OpenCL C 1.2 PoCL`).
    pub compiler: String,
    /// Streaming multiprocessors or compute units.
    pub compute_units: u32,
    /// Device memory in bytes.
    pub memory_bytes: u64,
    /// The largest work-group (thread block) the kernels may use.
    pub max_group: u32,
    /// The CUDA architecture (`sm_90`), if CUDA.
    pub arch: Option<String>,
    /// Whether the "device" is the host CPU (POCL): correct, but its timings say nothing
    /// about a GPU.
    pub emulated: bool,
}

impl std::fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} | {} | {}{} | {} units | {:.1} GiB | {} | {}",
            self.runtime,
            self.name,
            self.vendor,
            self.arch
                .as_deref()
                .map(|a| format!(" {a}"))
                .unwrap_or_default(),
            self.compute_units,
            self.memory_bytes as f64 / (1u64 << 30) as f64,
            self.driver,
            self.compiler
        )
    }
}

enum Runtime {
    Cuda(cuda::Cuda),
    OpenCl(opencl::OpenCl),
}

enum BufferInner {
    Cuda(cudarc::driver::CudaSlice<u64>),
    OpenCl(opencl3::memory::Buffer<u64>),
}

/// Device memory of `len` 64-bit words. Dropped, it goes back to its device's pool of
/// idle buffers when it came from [`Gpu::alloc`] (see [`Gpu::trim`]).
pub struct Buffer {
    /// Taken out only in `drop`.
    inner: ManuallyDrop<BufferInner>,
    len: usize,
    pool: Option<Arc<Pool<BufferInner>>>,
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: `inner` is taken once, here, and never used after.
        let inner = unsafe { ManuallyDrop::take(&mut self.inner) };
        if let Some(pool) = &self.pool {
            // Freed here when the pool does not keep it.
            drop(pool.give(self.len, inner));
        }
    }
}

impl Buffer {
    /// Its length in words.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no words.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn cuda(&self) -> Result<&cudarc::driver::CudaSlice<u64>> {
        match &*self.inner {
            BufferInner::Cuda(b) => Ok(b),
            BufferInner::OpenCl(_) => Err(Error::InvalidInput(
                "an OpenCL buffer on a CUDA device".into(),
            )),
        }
    }

    fn opencl(&self) -> Result<&opencl3::memory::Buffer<u64>> {
        match &*self.inner {
            BufferInner::OpenCl(b) => Ok(b),
            BufferInner::Cuda(_) => Err(Error::InvalidInput(
                "a CUDA buffer on an OpenCL device".into(),
            )),
        }
    }
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Buffer({} words)", self.len)
    }
}

/// A kernel argument: a device buffer or a 32-bit scalar.
#[derive(Clone, Copy)]
pub enum Arg<'a> {
    /// A buffer (`HK_GLOBAL u64 *`).
    Buf(&'a Buffer),
    /// A `u32` by value.
    U32(u32),
}

enum ModuleInner {
    Cuda(cuda::CuModule),
    OpenCl(opencl::ClModule),
}

/// A compiled kernel module.
pub struct Module {
    inner: ModuleInner,
    kind: KernelModule,
}

/// An opened device: its runtime, compiled modules (built on first use, cached on disk) and
/// [`DeviceInfo`]. Share it as `Arc<Gpu>`; every call is thread-safe, and work is issued in
/// order on one queue / stream.
pub struct Gpu {
    runtime: Runtime,
    info: DeviceInfo,
    modules: Mutex<HashMap<KernelModule, Arc<Module>>>,
    cache: ModuleCache,
    launches: AtomicU64,
    pool: Arc<Pool<BufferInner>>,
    allocations: AtomicU64,
    uploads: AtomicU64,
}

impl Gpu {
    /// Opens a device (see [`Select`]; `HEKATE_GPU=off` makes every selection fail with
    /// [`Error::Disabled`]).
    pub fn open(select: Select) -> Result<Arc<Gpu>> {
        let env = std::env::var("HEKATE_GPU").unwrap_or_default();
        if env.trim().eq_ignore_ascii_case("off") {
            return Err(Error::Disabled);
        }
        let select = match select {
            Select::Auto => Select::parse(&env).ok_or_else(|| {
                Error::InvalidInput(format!(
                    "HEKATE_GPU={env}: expected cuda, opencl, auto or off"
                ))
            })?,
            s => s,
        };
        let (runtime, info) = match select {
            Select::Cuda => Self::open_cuda()?,
            Select::OpenCl => Self::open_opencl()?,
            Select::Auto => match Self::open_cuda() {
                Ok(r) => r,
                Err(cuda) => {
                    Self::open_opencl().map_err(|ocl| Error::NoDevice(format!("{cuda}; {ocl}")))?
                }
            },
        };
        let pool = Arc::new(Pool::new(pool::cap_from_env(info.memory_bytes)));
        Ok(Arc::new(Gpu {
            runtime,
            info,
            modules: Mutex::new(HashMap::new()),
            cache: ModuleCache::from_env(),
            launches: AtomicU64::new(0),
            pool,
            allocations: AtomicU64::new(0),
            uploads: AtomicU64::new(0),
        }))
    }

    fn open_cuda() -> Result<(Runtime, DeviceInfo)> {
        let (rt, info) = cuda::Cuda::open()?;
        Ok((Runtime::Cuda(rt), info))
    }

    fn open_opencl() -> Result<(Runtime, DeviceInfo)> {
        let (rt, info) = opencl::OpenCl::open()?;
        Ok((Runtime::OpenCl(rt), info))
    }

    /// What the device is.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Allocates `words` words with unspecified contents: every kernel writes its outputs
    /// in full, so no allocation pays for a fill. An idle buffer of that length from the
    /// device's pool is taken first (no driver call; see [`Gpu::trim`]); a driver refusal
    /// empties the pool and tries once more. Debug builds fill the words with [`POISON`]
    /// bytes (above every modulus), fresh or reused, so that a kernel reading a word nobody
    /// wrote breaks the parity tests instead of passing on a zeroing driver.
    pub fn alloc(&self, words: usize) -> Result<Buffer> {
        let inner = match self.pool.take(words) {
            Some(inner) => inner,
            None => match self.alloc_inner(words) {
                Ok(inner) => inner,
                Err(_) => {
                    self.trim();
                    self.alloc_inner(words)?
                }
            },
        };
        let mut buf = Buffer {
            inner: ManuallyDrop::new(inner),
            len: words,
            pool: Some(self.pool.clone()),
        };
        if cfg!(debug_assertions) {
            self.fill(&mut buf, POISON)?;
        }
        Ok(buf)
    }

    /// A new buffer from the driver.
    fn alloc_inner(&self, words: usize) -> Result<BufferInner> {
        let inner = match &self.runtime {
            Runtime::Cuda(rt) => BufferInner::Cuda(rt.alloc(words)?),
            Runtime::OpenCl(rt) => BufferInner::OpenCl(rt.alloc(words)?),
        };
        self.allocations.fetch_add(1, Ordering::Relaxed);
        Ok(inner)
    }

    /// Frees the idle buffers the device's pool keeps for reuse ([`Gpu::alloc`] takes
    /// from it; dropped buffers return to it up to a cap, `HEKATE_GPU_POOL` MiB, by
    /// default an eighth of the device's memory; `HEKATE_GPU_POOL=0` keeps none).
    pub fn trim(&self) {
        drop(self.pool.drain());
    }

    /// Bytes of idle device memory the pool keeps for reuse.
    pub fn pooled_bytes(&self) -> u64 {
        self.pool.words() as u64 * 8
    }

    /// Buffers allocated from the driver so far (allocations the pool did not serve; for
    /// benchmarks).
    pub fn allocations(&self) -> u64 {
        self.allocations.load(Ordering::Relaxed)
    }

    /// Host-to-device copies made so far ([`Gpu::write`], [`Gpu::upload`]; for benchmarks).
    pub fn uploads(&self) -> u64 {
        self.uploads.load(Ordering::Relaxed)
    }

    /// Allocates `words` zero words (a device-side fill, no transfer).
    pub fn alloc_zeroed(&self, words: usize) -> Result<Buffer> {
        let mut buf = self.alloc(words)?;
        self.fill(&mut buf, 0)?;
        Ok(buf)
    }

    /// Sets every byte of `buf` to `byte`, on the device (queued in order).
    pub fn fill(&self, buf: &mut Buffer, byte: u8) -> Result<()> {
        let words = buf.len;
        match (&self.runtime, &mut *buf.inner) {
            (Runtime::Cuda(rt), BufferInner::Cuda(b)) => rt.fill(b, byte),
            (Runtime::OpenCl(rt), BufferInner::OpenCl(b)) => rt.fill(b, words, byte),
            _ => Err(Error::InvalidInput("a buffer of another runtime".into())),
        }
    }

    /// A new buffer holding `data`.
    pub fn upload(&self, data: &[u64]) -> Result<Buffer> {
        let mut buf = self.alloc(data.len())?;
        self.write(&mut buf, data)?;
        Ok(buf)
    }

    /// Copies `data` to the start of `buf`.
    pub fn write(&self, buf: &mut Buffer, data: &[u64]) -> Result<()> {
        if data.len() > buf.len {
            return Err(Error::InvalidInput(format!(
                "{} words into a buffer of {}",
                data.len(),
                buf.len
            )));
        }
        self.uploads.fetch_add(1, Ordering::Relaxed);
        match (&self.runtime, &mut *buf.inner) {
            (Runtime::Cuda(rt), BufferInner::Cuda(b)) => rt.upload(b, data),
            (Runtime::OpenCl(rt), BufferInner::OpenCl(b)) => rt.upload(b, data),
            _ => Err(Error::InvalidInput("a buffer of another runtime".into())),
        }
    }

    /// Copies the start of `buf` into `out` (waits for the work queued before).
    pub fn read(&self, buf: &Buffer, out: &mut [u64]) -> Result<()> {
        if out.len() > buf.len {
            return Err(Error::InvalidInput(format!(
                "{} words from a buffer of {}",
                out.len(),
                buf.len
            )));
        }
        match (&self.runtime, &*buf.inner) {
            (Runtime::Cuda(rt), BufferInner::Cuda(b)) => rt.download(b, out),
            (Runtime::OpenCl(rt), BufferInner::OpenCl(b)) => rt.download(b, out),
            _ => Err(Error::InvalidInput("a buffer of another runtime".into())),
        }
    }

    /// The whole buffer, downloaded.
    pub fn download(&self, buf: &Buffer) -> Result<Vec<u64>> {
        let mut out = vec![0u64; buf.len];
        self.read(buf, &mut out)?;
        Ok(out)
    }

    /// Runs `f` as the profiled range of a profiler started with `--profile-from-start off`
    /// (`ncu`, `nsys`): CUDA's `cuProfilerStart` / `cuProfilerStop` around it, the device
    /// idle at both ends. On OpenCL it just runs `f`.
    pub fn profiled<R>(&self, f: impl FnOnce() -> Result<R>) -> Result<R> {
        match &self.runtime {
            Runtime::Cuda(rt) => rt.profiled(f),
            Runtime::OpenCl(_) => f(),
        }
    }

    /// Waits until every queued operation has finished.
    pub fn synchronize(&self) -> Result<()> {
        match &self.runtime {
            Runtime::Cuda(rt) => rt.synchronize(),
            Runtime::OpenCl(rt) => rt.synchronize(),
        }
    }

    /// Runs `f` (which queues device work) and returns its result with the time the device
    /// took, in milliseconds: between two CUDA events on the stream, or on OpenCL the host
    /// clock around `f` and a [`Gpu::synchronize`] (POCL runs on the CPU: its times say
    /// nothing about a GPU, see [`DeviceInfo::emulated`]).
    pub fn timed<R>(&self, f: impl FnOnce() -> Result<R>) -> Result<(R, f64)> {
        match &self.runtime {
            Runtime::Cuda(rt) => rt.timed(f),
            Runtime::OpenCl(_) => {
                self.synchronize()?;
                let start = std::time::Instant::now();
                let r = f()?;
                self.synchronize()?;
                Ok((r, start.elapsed().as_secs_f64() * 1e3))
            }
        }
    }

    /// Kernel launches issued so far (for benchmarks and the traffic model's check).
    pub fn launches(&self) -> u64 {
        self.launches.load(Ordering::Relaxed)
    }

    /// The on-disk module cache's directory, if caching is on.
    pub fn cache_dir(&self) -> Option<&std::path::Path> {
        self.cache.dir()
    }

    /// The compiled module (built on first use: from the disk cache if it holds this
    /// source for this device and compiler, else by the runtime's compiler).
    pub fn module(&self, kind: KernelModule) -> Result<Arc<Module>> {
        let mut modules = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = modules.get(&kind) {
            return Ok(m.clone());
        }
        let source = kind.source();
        let key = format!(
            "{}\n{}\n{}\n{}\n{}\n{}",
            self.info.runtime,
            self.info.name,
            self.info.driver,
            self.info.compiler,
            self.info.arch.as_deref().unwrap_or(opencl::BUILD_OPTIONS),
            source
        );
        let cached = self.cache.get(&key);
        let (inner, fresh) = match &self.runtime {
            Runtime::Cuda(rt) => {
                debug_assert_eq!(Some(rt.arch()), self.info.arch.as_deref());
                let (m, bin) = rt.build(kind.name(), &source, cached.as_deref())?;
                (ModuleInner::Cuda(m), bin)
            }
            Runtime::OpenCl(rt) => {
                let (m, bin) = rt.build(kind.name(), &source, cached.as_deref())?;
                (ModuleInner::OpenCl(m), bin)
            }
        };
        if let Some(bin) = fresh {
            self.cache.put(&key, &bin);
        }
        let module = Arc::new(Module { inner, kind });
        modules.insert(kind, module.clone());
        Ok(module)
    }

    /// Launches `kernel` of `module` on a grid of `grid[0] x grid[1]` work-groups of `block`
    /// work-items each (y groups are one item tall).
    pub fn launch(
        &self,
        module: &Module,
        kernel: &str,
        grid: [u32; 2],
        block: u32,
        args: &[Arg<'_>],
    ) -> Result<()> {
        debug_assert!(
            module.kind.kernels().contains(&kernel),
            "{kernel} not in {:?}",
            module.kind
        );
        if grid[0] == 0 || grid[1] == 0 || block == 0 {
            return Ok(());
        }
        self.launches.fetch_add(1, Ordering::Relaxed);
        match (&self.runtime, &module.inner) {
            (Runtime::Cuda(rt), ModuleInner::Cuda(m)) => rt.launch(m, kernel, grid, block, args),
            (Runtime::OpenCl(rt), ModuleInner::OpenCl(m)) => {
                rt.launch(m, kernel, grid, block, args)
            }
            _ => Err(Error::InvalidInput("a module of another runtime".into())),
        }
    }
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Gpu({})", self.info)
    }
}
