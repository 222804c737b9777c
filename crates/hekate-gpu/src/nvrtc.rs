//! NVRTC, NVIDIA's run-time CUDA compiler (`libnvrtc`, loaded at run time): compiles the
//! kernel modules to PTX (`compute_XY`) or to a CUBIN (`sm_XY`), and reports what `ptxas`
//! says of each kernel (registers, spills, shared memory). It needs no GPU, so CI compiles
//! the CUDA side of every module with the NVRTC of the `nvidia-cuda-nvrtc-cu12` wheel.

use crate::error::{Error, Result};
use cudarc::nvrtc::{result, sys};
use std::ffi::{CStr, CString};

/// Options of every compile: C++17, and no contraction of `a * b + c` into fused
/// multiply-adds (the f64 steps must round exactly as the CPU's; the kernels also use
/// `__dmul_rn` / `__dadd_rn`).
pub const OPTIONS: [&str; 2] = ["--std=c++17", "--fmad=false"];

/// Whether `libnvrtc` can be loaded.
pub fn available() -> bool {
    // SAFETY: only tries to dlopen the library.
    unsafe { sys::is_culib_present() }
}

/// NVRTC's version `(major, minor)`, if the library loads.
pub fn version() -> Option<(i32, i32)> {
    if !available() {
        return None;
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: two out-pointers to live integers.
    let r = unsafe { sys::nvrtcVersion(&mut major, &mut minor) };
    (r == sys::nvrtcResult::NVRTC_SUCCESS).then_some((major, minor))
}

/// A compiled image and the compiler's log.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// PTX text (for `compute_XY`) or CUBIN bytes (for `sm_XY`).
    pub image: Vec<u8>,
    /// The compiler's log (with `verbose`, ptxas's resource report).
    pub log: String,
}

/// Compiles `source` for `arch` (`compute_90` gives PTX, `sm_90` a CUBIN); `verbose` asks
/// ptxas for its resource report (`--ptxas-options=-v`).
pub fn compile(name: &str, source: &str, arch: &str, verbose: bool) -> Result<Compiled> {
    if !available() {
        return Err(Error::NoDevice("no libnvrtc found".into()));
    }
    let src =
        CString::new(source).map_err(|_| Error::InvalidInput("NUL in kernel source".into()))?;
    let cname = CString::new(format!("{name}.cu")).expect("module names have no NUL");
    let prog = result::create_program(&src, Some(&cname)).map_err(|e| Error::Compile {
        module: name.into(),
        log: format!("{e:?}"),
    })?;
    let mut options: Vec<String> = OPTIONS.iter().map(|s| s.to_string()).collect();
    options.push(format!("--gpu-architecture={arch}"));
    if verbose {
        options.push("--ptxas-options=-v".into());
    }
    // SAFETY: `prog` is live until destroyed below; the out-buffers are sized by the
    // matching size queries.
    unsafe {
        let compiled = result::compile_program(prog, &options);
        let log = result::get_program_log(prog)
            .map(|raw| CStr::from_ptr(raw.as_ptr()).to_string_lossy().into_owned())
            .unwrap_or_default();
        let image = match compiled {
            Err(e) => Err(Error::Compile {
                module: name.into(),
                log: format!("{e:?}: {log}"),
            }),
            Ok(()) if arch.starts_with("sm_") => {
                let mut size = 0usize;
                let mut bytes = Vec::new();
                let mut r = sys::nvrtcGetCUBINSize(prog, &mut size);
                if r == sys::nvrtcResult::NVRTC_SUCCESS {
                    bytes = vec![0u8; size];
                    r = sys::nvrtcGetCUBIN(prog, bytes.as_mut_ptr().cast());
                }
                if r == sys::nvrtcResult::NVRTC_SUCCESS {
                    Ok(bytes)
                } else {
                    Err(Error::Compile {
                        module: name.into(),
                        log: format!("nvrtcGetCUBIN: {r:?}"),
                    })
                }
            }
            Ok(()) => result::get_ptx(prog)
                .map(|p| CStr::from_ptr(p.as_ptr()).to_bytes().to_vec())
                .map_err(|e| Error::Compile {
                    module: name.into(),
                    log: format!("nvrtcGetPTX: {e:?}"),
                }),
        };
        let _ = result::destroy_program(prog);
        Ok(Compiled { image: image?, log })
    }
}

/// What ptxas reported for one kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelResources {
    /// The kernel's (unmangled, `extern "C"`) name.
    pub name: String,
    /// Registers per thread.
    pub registers: u32,
    /// Bytes of spill stores.
    pub spill_stores: u32,
    /// Bytes of spill loads.
    pub spill_loads: u32,
    /// Bytes of static shared memory.
    pub shared_bytes: u32,
}

/// Parses ptxas's `-v` report: `Compiling entry function 'x' for 'sm_90'`, then
/// `N bytes stack frame, N bytes spill stores, N bytes spill loads` and
/// `Used N registers, ... N bytes smem, ...`.
pub fn parse_resources(log: &str) -> Vec<KernelResources> {
    fn number_before(line: &str, unit: &str) -> Option<u32> {
        let at = line.find(unit)?;
        line[..at].split_whitespace().last()?.parse().ok()
    }
    let mut out: Vec<KernelResources> = Vec::new();
    for line in log.lines() {
        if let Some(rest) = line.split("entry function '").nth(1) {
            let name = rest.split('\'').next().unwrap_or_default();
            out.push(KernelResources {
                name: name.to_string(),
                ..Default::default()
            });
        } else if let Some(k) = out.last_mut() {
            if let Some(v) = number_before(line, "bytes spill stores") {
                k.spill_stores = v;
            }
            if let Some(v) = number_before(line, "bytes spill loads") {
                k.spill_loads = v;
            }
            if let Some(v) = number_before(line, "registers") {
                k.registers = v;
            }
            if let Some(v) = number_before(line, "bytes smem") {
                k.shared_bytes = v;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_ptxas_report() {
        let log = "ptxas info    : Compiling entry function 'hk_ntt_fwd_tail' for 'sm_90'\n\
                   ptxas info    : Function properties for hk_ntt_fwd_tail\n\
                   \x20   0 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n\
                   ptxas info    : Used 29 registers, used 1 barriers, 16384 bytes smem, 400 bytes cmem[0]\n\
                   ptxas info    : Compiling entry function 'hk_add_kernel' for 'sm_90'\n\
                   ptxas info    : Used 12 registers, 380 bytes cmem[0]\n";
        let r = parse_resources(log);
        assert_eq!(r.len(), 2);
        assert_eq!(
            r[0],
            KernelResources {
                name: "hk_ntt_fwd_tail".into(),
                registers: 29,
                spill_stores: 8,
                spill_loads: 4,
                shared_bytes: 16384
            }
        );
        assert_eq!(
            (r[1].registers, r[1].spill_stores, r[1].shared_bytes),
            (12, 0, 0)
        );
    }
}
