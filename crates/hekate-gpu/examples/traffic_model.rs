//! Prints the memory-traffic model's predictions (`hekate_gpu::model`) for the CKKS
//! operations at full size on an H100, as BENCHMARKS.md records them:
//!
//! ```sh
//! cargo run --release -p hekate-gpu --example traffic_model
//! ```

use hekate_gpu::model::{
    key_switch, mul_relin, ntt, rescale, rotate, Shape, H100_BANDWIDTH, LAUNCH_GAP_US,
};

fn main() {
    println!("| N | limbs | dnum | op | launches | GiB moved | model ms (H100, 3.35 TB/s, 3 us/launch) |");
    println!("|---|---|---|---|---:|---:|---:|");
    for (logn, limbs, dnum) in [
        (16u32, 16usize, 3usize),
        (16, 32, 3),
        (16, 32, 32),
        (15, 16, 3),
    ] {
        let alpha = limbs.div_ceil(dnum);
        let s = Shape {
            n: 1 << logn,
            chain: limbs,
            ql: limbs,
            k: alpha,
            dnum,
            tile: hekate_gpu::kernels::TILE_MAX,
        };
        for (op, t) in [
            ("NTT, all limbs", ntt(&s, limbs)),
            ("key switch", key_switch(&s)),
            ("mul + relinearize", mul_relin(&s)),
            ("rotate", rotate(&s)),
            ("rescale", rescale(&s)),
        ] {
            println!(
                "| 2^{logn} | {limbs} | {dnum} | {op} | {} | {:.2} | {:.3} |",
                t.launches,
                t.bytes / (1u64 << 30) as f64,
                t.ms(H100_BANDWIDTH, LAUNCH_GAP_US)
            );
        }
    }
}
