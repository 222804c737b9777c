//! The OpenCL runtime (`opencl3`, `libOpenCL.so.1` loaded at run time): POCL in CI, and
//! AMD / Intel / NVIDIA OpenCL drivers on users' machines.

use super::{Arg, DeviceInfo, RuntimeKind};
use crate::error::{runtime, Error, Result};
use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{get_all_devices, Device, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU};
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_mem, CL_BLOCKING};
use std::collections::HashMap;
use std::ptr;
use std::sync::Mutex;

/// Build options of every program: the dialect is OpenCL C 1.2 (`kernels/prelude.h`).
pub(crate) const BUILD_OPTIONS: &str = "-cl-std=CL1.2";

/// One OpenCL device with its context and in-order queue.
pub(crate) struct OpenCl {
    device: Device,
    context: Context,
    queue: CommandQueue,
    max_group: usize,
}

/// A built program and its kernel objects (created on first use; a kernel object holds its
/// arguments, so launches of one kernel are serialised by the lock).
pub(crate) struct ClModule {
    program: Program,
    kernels: Mutex<HashMap<String, Kernel>>,
}

impl OpenCl {
    /// The first OpenCL device (a GPU if there is one, else any).
    pub(crate) fn open() -> Result<(Self, DeviceInfo)> {
        let ids = get_all_devices(CL_DEVICE_TYPE_ALL).map_err(|e| {
            Error::NoDevice(format!("OpenCL: {e} (is an ICD such as POCL installed?)"))
        })?;
        let device = ids
            .iter()
            .map(|&id| Device::new(id))
            .max_by_key(|d| {
                d.dev_type()
                    .map(|t| t != CL_DEVICE_TYPE_CPU)
                    .unwrap_or(false)
            })
            .ok_or_else(|| Error::NoDevice("OpenCL: no device".into()))?;
        let fp64 = device
            .extensions()
            .unwrap_or_default()
            .contains("cl_khr_fp64");
        if !fp64 {
            return Err(Error::NoDevice(format!(
                "OpenCL device {} has no cl_khr_fp64",
                device.name().unwrap_or_default()
            )));
        }
        let context = Context::from_device(&device).map_err(runtime("OpenCL context"))?;
        #[allow(deprecated)]
        let queue = CommandQueue::create_default(&context, 0).map_err(runtime("OpenCL queue"))?;
        let max_group = device
            .max_work_group_size()
            .map_err(runtime("OpenCL device query"))?;
        let is_cpu = device
            .dev_type()
            .map(|t| t == CL_DEVICE_TYPE_CPU)
            .unwrap_or(false);
        let info = DeviceInfo {
            runtime: RuntimeKind::OpenCl,
            name: device.name().unwrap_or_default(),
            vendor: device.vendor().unwrap_or_default(),
            driver: device.driver_version().unwrap_or_default(),
            compiler: device.opencl_c_version().unwrap_or_default(),
            compute_units: device.max_compute_units().unwrap_or(0),
            memory_bytes: device.global_mem_size().unwrap_or(0),
            max_group: max_group as u32,
            arch: None,
            emulated: is_cpu,
        };
        Ok((
            OpenCl {
                device,
                context,
                queue,
                max_group,
            },
            info,
        ))
    }

    /// Builds `source`, or loads the binary `cached` if given; returns the module and its
    /// binary (to cache).
    pub(crate) fn build(
        &self,
        name: &str,
        source: &str,
        cached: Option<&[u8]>,
    ) -> Result<(ClModule, Option<Vec<u8>>)> {
        if let Some(bin) = cached {
            if let Ok(program) =
                Program::create_and_build_from_binary(&self.context, &[bin], BUILD_OPTIONS)
            {
                return Ok((ClModule::new(program), None));
            }
        }
        let mut program = Program::create_from_source(&self.context, source)
            .map_err(runtime("OpenCL program"))?;
        if program.build(&[self.device.id()], BUILD_OPTIONS).is_err() {
            let log = program.get_build_log(self.device.id()).unwrap_or_default();
            return Err(Error::Compile {
                module: name.to_string(),
                log,
            });
        }
        let binary = program.get_binaries().ok().and_then(|mut b| b.pop());
        Ok((ClModule::new(program), binary))
    }

    pub(crate) fn alloc(&self, words: usize) -> Result<Buffer<u64>> {
        // SAFETY: no host pointer; the size is checked by the driver.
        unsafe {
            Buffer::<u64>::create(
                &self.context,
                CL_MEM_READ_WRITE,
                words.max(1),
                ptr::null_mut(),
            )
        }
        .map_err(runtime("OpenCL allocation"))
    }

    /// Sets every byte of `buf` to `byte` (`clEnqueueFillBuffer`, queued in order).
    pub(crate) fn fill(&self, buf: &mut Buffer<u64>, words: usize, byte: u8) -> Result<()> {
        let pattern = [u64::from_ne_bytes([byte; 8])];
        // SAFETY: fills `words` words of a buffer at least that long; the pattern is copied
        // by the call.
        unsafe {
            self.queue
                .enqueue_fill_buffer(buf, &pattern, 0, words.max(1) * 8, &[])
        }
        .map(drop)
        .map_err(runtime("OpenCL fill"))
    }

    pub(crate) fn upload(&self, buf: &mut Buffer<u64>, data: &[u64]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        // SAFETY: a blocking write of `data` (which outlives the call) into a buffer at
        // least as long (the callers allocate `data.len()` words).
        unsafe {
            self.queue
                .enqueue_write_buffer(buf, CL_BLOCKING, 0, data, &[])
        }
        .map_err(runtime("OpenCL upload"))?;
        Ok(())
    }

    pub(crate) fn download(&self, buf: &Buffer<u64>, out: &mut [u64]) -> Result<()> {
        if out.is_empty() {
            return Ok(());
        }
        // SAFETY: a blocking read into `out`, no longer than the buffer.
        unsafe {
            self.queue
                .enqueue_read_buffer(buf, CL_BLOCKING, 0, out, &[])
        }
        .map_err(runtime("OpenCL download"))?;
        Ok(())
    }

    pub(crate) fn launch(
        &self,
        module: &ClModule,
        kernel: &str,
        grid: [u32; 2],
        block: u32,
        args: &[Arg<'_>],
    ) -> Result<()> {
        if block as usize > self.max_group {
            return Err(Error::InvalidInput(format!(
                "work-group of {block} exceeds the device's {}",
                self.max_group
            )));
        }
        let mut kernels = module.kernels.lock().unwrap_or_else(|e| e.into_inner());
        if !kernels.contains_key(kernel) {
            let k = Kernel::create(&module.program, kernel).map_err(runtime("OpenCL kernel"))?;
            kernels.insert(kernel.to_string(), k);
        }
        let k = &kernels[kernel];
        for (i, arg) in args.iter().enumerate() {
            // SAFETY: the argument kinds follow the kernel signatures (kernels.rs lists the
            // call sites); a buffer is passed as its `cl_mem` handle, scalars by value.
            let r = unsafe {
                match arg {
                    Arg::Buf(b) => {
                        let mem: cl_mem = b.opencl()?.get();
                        k.set_arg(i as u32, &mem)
                    }
                    Arg::U32(v) => k.set_arg(i as u32, v),
                }
            };
            r.map_err(runtime("OpenCL kernel argument"))?;
        }
        let global = [grid[0] as usize * block as usize, grid[1] as usize];
        let local = [block as usize, 1];
        // SAFETY: the sizes are valid arrays of `work_dim` = 2 entries.
        unsafe {
            self.queue.enqueue_nd_range_kernel(
                k.get(),
                2,
                ptr::null(),
                global.as_ptr(),
                local.as_ptr(),
                &[],
            )
        }
        .map_err(runtime(kernel))?;
        Ok(())
    }

    pub(crate) fn synchronize(&self) -> Result<()> {
        self.queue.finish().map_err(runtime("OpenCL finish"))
    }
}

impl ClModule {
    fn new(program: Program) -> Self {
        ClModule {
            program,
            kernels: Mutex::new(HashMap::new()),
        }
    }
}
