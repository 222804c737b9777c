//! The on-disk cache of compiled modules (CUBINs, OpenCL program binaries), so a process
//! compiles each module once per device and compiler, not once per run.
//!
//! Location: `$HEKATE_GPU_CACHE` if set (`off` disables the cache), else
//! `$XDG_CACHE_HOME/hekate/kernels`, else `~/.cache/hekate/kernels`. An entry is named by a
//! hash of its key (runtime, device, driver, compiler, options and the full source) and
//! stores the key itself, which a read compares in full: a hash collision or a stale file is
//! a miss, never a wrong module. Every failure to read or write is a miss (the module is
//! compiled again); writes go to a temporary file renamed into place.

use std::path::PathBuf;

/// The cache directory, or none.
pub(crate) struct ModuleCache {
    dir: Option<PathBuf>,
}

impl ModuleCache {
    pub(crate) fn from_env() -> Self {
        let dir = match std::env::var_os("HEKATE_GPU_CACHE") {
            Some(v) if v == "off" => None,
            Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
            _ => std::env::var_os("XDG_CACHE_HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
                .map(|d| d.join("hekate").join("kernels")),
        };
        ModuleCache { dir }
    }

    pub(crate) fn dir(&self) -> Option<&std::path::Path> {
        self.dir.as_deref()
    }

    fn path(&self, key: &str) -> Option<PathBuf> {
        let hash = hekate::serialize::fnv1a64(key.as_bytes());
        self.dir
            .as_ref()
            .map(|d| d.join(format!("{hash:016x}.bin")))
    }

    /// The cached binary for `key`, if present and its stored key matches.
    pub(crate) fn get(&self, key: &str) -> Option<Vec<u8>> {
        let bytes = std::fs::read(self.path(key)?).ok()?;
        let len = u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?) as usize;
        let stored = bytes.get(8..8usize.checked_add(len)?)?;
        (stored == key.as_bytes()).then(|| bytes[8 + len..].to_vec())
    }

    /// Stores `binary` under `key` (best effort).
    pub(crate) fn put(&self, key: &str, binary: &[u8]) {
        let Some(path) = self.path(key) else { return };
        let Some(dir) = path.parent() else { return };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        let mut bytes = Vec::with_capacity(8 + key.len() + binary.len());
        bytes.extend_from_slice(&(key.len() as u64).to_le_bytes());
        bytes.extend_from_slice(key.as_bytes());
        bytes.extend_from_slice(binary);
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        if std::fs::write(&tmp, &bytes).is_ok() && std::fs::rename(&tmp, &path).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_key_check() {
        let dir =
            std::env::temp_dir().join(format!("hekate-gpu-cache-test-{}", std::process::id()));
        let cache = ModuleCache {
            dir: Some(dir.clone()),
        };
        assert_eq!(cache.get("k1"), None);
        cache.put("k1", b"binary one");
        assert_eq!(cache.get("k1").as_deref(), Some(&b"binary one"[..]));
        // A file whose stored key differs (a collision, or a file edited by hand) is a miss.
        std::fs::write(cache.path("k2").unwrap(), {
            let mut b = 2u64.to_le_bytes().to_vec();
            b.extend_from_slice(b"zz binary");
            b
        })
        .unwrap();
        assert_eq!(cache.get("k2"), None);
        // Truncated files are misses, not panics.
        std::fs::write(cache.path("k3").unwrap(), [1u8, 2, 3]).unwrap();
        assert_eq!(cache.get("k3"), None);
        std::fs::remove_dir_all(dir).unwrap();
    }
}
