//! The steps of the automorphism-based blind rotations (LMKCDEY, seed 002 Alg. 3-5): which
//! RGSW key and which automorphism keys each step of a rotation takes, a function of the
//! LWE ciphertext and the key set's shape alone, so that every executor of the keys (the
//! CPU's NTT and Fourier products, a GPU) runs the same steps.

use super::StepOrder;
use crate::fhew::lwe::LweCiphertext;
use crate::fhew::params::{AutoKeySet, FhewParams, Method, MethodConfig};
use crate::{Error, Result};

/// The schedule of one automorphism-based blind rotation (LMKCDEY, seed 002 Alg. 3-5),
/// from [`AutoScheduler::schedule`]: the accumulator starts as
/// `(0, (f Y^β)(X^first))` for the test polynomial `f`; each step multiplies it by the
/// RGSW key [`super::BlindRotationKey::keys`]`[key]` (`RLWE ⊗ RGSW`) and then applies the
/// automorphism keys [`super::BlindRotationKey::auto`]`[i]` for `i` in `autos[range]`, in order
/// (their composition is the step's `EvalAuto_(ω_j ω'_(j+1))`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutoSchedule {
    /// `ω'_0`: the test polynomial's automorphism `X -> X^first` (`first` odd, below `2N`).
    pub first: usize,
    /// Each step's key (an index into [`super::BlindRotationKey::keys`]) and range of `autos`.
    pub steps: Vec<(usize, std::ops::Range<usize>)>,
    /// The automorphism keys of the steps, indices into [`super::BlindRotationKey::auto`].
    pub autos: Vec<usize>,
}

/// What the steps of an automorphism-based rotation depend on, without the key material
/// ([`super::BlindRotationKey::automorphism_scheduler`]): the method, the automorphism keys
/// present, `(n, q, N)` and the step order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutoScheduler {
    config: MethodConfig,
    /// LWE modulus `q` and dimension `n`.
    q: u64,
    n: usize,
    /// `auto_slot[t / 2]` = 1 + index into the key set's `auto` of `ak_t`, or 0.
    auto_slot: Vec<u32>,
    /// `dlog[t / 2] = (e, neg)` with `t = ±5^e mod 2N`.
    dlog: Vec<(u32, bool)>,
    /// The order of the steps of Alg. 3, 4 and 5.
    pub(super) order: StepOrder,
}

impl AutoScheduler {
    /// The scheduler of a key set of `config` for `params` in a ring of degree `big_n`,
    /// whose automorphism keys have the exponents `auto_t` (in the order of its `auto`).
    pub(super) fn new(
        config: MethodConfig,
        params: &FhewParams,
        big_n: usize,
        auto_t: impl Iterator<Item = usize>,
    ) -> Self {
        let two_n = 2 * big_n;
        let mut dlog = vec![(0u32, false); big_n];
        let mut t = 1usize;
        for e in 0..big_n / 2 {
            dlog[t / 2] = (e as u32, false);
            dlog[(two_n - t) / 2] = (e as u32, true);
            t = t * 5 % two_n;
        }
        let mut auto_slot = vec![0u32; big_n];
        for (i, t) in auto_t.enumerate() {
            auto_slot[t / 2] = i as u32 + 1;
        }
        AutoScheduler {
            config,
            q: params.q,
            n: params.n,
            auto_slot,
            dlog,
            order: StepOrder::default(),
        }
    }

    /// The ring degree `N` of the keys.
    pub fn ring_degree(&self) -> usize {
        self.auto_slot.len()
    }

    /// The schedule of the blind rotation of `ct`: what
    /// [`super::BlindRotationKey::blind_rotate`] runs, step for step. An error for AP and
    /// GINX keys (no automorphisms) or a ciphertext of other `(n, q)`.
    pub fn schedule(&self, ct: &LweCiphertext) -> Result<AutoSchedule> {
        if !self.config.method.is_automorphism_based() {
            return Err(Error::InvalidParameters(format!(
                "{} rotates without automorphisms: it has no automorphism schedule",
                self.config.method.name()
            )));
        }
        self.check_ciphertext(ct)?;
        Ok(self.schedule_checked(ct))
    }

    /// An error unless `ct` is a ciphertext of the keys' `(n, q)` (every method's check).
    pub(super) fn check_ciphertext(&self, ct: &LweCiphertext) -> Result<()> {
        if ct.q != self.q || ct.dim() != self.n {
            return Err(Error::ParameterMismatch(format!(
                "blind rotation keys are for (n, q) = ({}, {}), the ciphertext has ({}, {})",
                self.n,
                self.q,
                ct.dim(),
                ct.q
            )));
        }
        Ok(())
    }

    /// [`AutoScheduler::schedule`] for an automorphism-based key set and a ciphertext of
    /// its `(n, q)`.
    pub(super) fn schedule_checked(&self, ct: &LweCiphertext) -> AutoSchedule {
        let big_n = self.auto_slot.len();
        let n = self.n;
        let two_n = 2 * big_n;
        let q = self.q as usize;
        let y = two_n / q;
        let method = self.config.method;
        // ω_i (odd, as an exponent mod 2N), and the indices still to fix at the end.
        let mut omega: Vec<usize> = Vec::with_capacity(n);
        let mut fix_even: Vec<usize> = Vec::new();
        let mut order: Vec<usize> = (0..n).collect();
        match method {
            Method::LmkcdeyAllEven => {
                omega.extend(ct.a.iter().map(|&a| (y * a as usize + 1) % two_n))
            }
            Method::LmkcdeyBase => {
                for (i, &a) in ct.a.iter().enumerate() {
                    let a = a as usize;
                    if a.is_multiple_of(2) {
                        fix_even.push(i);
                        omega.push((a + q - 1) % q);
                    } else {
                        omega.push(a);
                    }
                }
            }
            _ => {
                omega.extend(ct.a.iter().map(|&a| a as usize));
                match omega.iter().position(|w| w % 2 == 1) {
                    Some(i0) => order.rotate_left(i0),
                    None => {
                        omega[0] = (omega[0] + q - 1) % q;
                        fix_even.push(0);
                    }
                }
            }
        }
        // The steps (key, ω) in the paper's index order, with Alg. 4's even α_(i+1) made
        // odd by the auxiliary key of step i.
        let mut steps: Vec<(usize, usize)> = Vec::with_capacity(n);
        for step in 0..n {
            let i = order[step];
            let next = (step + 1 < n).then(|| order[step + 1]);
            let key = match (method, next) {
                (Method::LmkcdeyAux, Some(nx)) if omega[nx].is_multiple_of(2) => {
                    omega[nx] = (omega[nx] + q - omega[i] % q) % q;
                    n + i
                }
                _ => i,
            };
            steps.push((key, omega[i] % two_n));
        }
        if self.order == StepOrder::Dlog {
            // ω = ±5^e: positive ω first, each sign by decreasing e.
            steps.sort_by_key(|&(_, w)| {
                let (e, neg) = self.dlog[w / 2];
                (neg, std::cmp::Reverse(e))
            });
        }
        let inv = |w: usize| crate::ring::automorphism::galois_inverse(w, big_n);
        let mut schedule = AutoSchedule {
            // acc = (0, (f Y^β)(X^(ω'_0))).
            first: inv(steps[0].1),
            steps: Vec::with_capacity(n + fix_even.len()),
            autos: Vec::with_capacity(n),
        };
        for j in 0..n {
            let (key, w) = steps[j];
            // EvalAuto_(ω_j ω'_(j+1)), or EvalAuto_(ω_(n-1)) back to X at the end.
            let e = match steps.get(j + 1) {
                Some(&(_, next)) => w * inv(next) % two_n,
                None => w,
            };
            let from = schedule.autos.len();
            self.auto_chain(e, |i| schedule.autos.push(i));
            schedule.steps.push((key, from..schedule.autos.len()));
        }
        let extra: Vec<usize> = if method == Method::LmkcdeyAllEven {
            vec![n]
        } else {
            fix_even
        };
        let end = schedule.autos.len();
        schedule
            .steps
            .extend(extra.into_iter().map(|k| (k, end..end)));
        schedule
    }

    /// Calls `apply(i)` for the automorphism keys `auto[i]` whose
    /// composition is `EvalAuto_t`, in order: the key itself, or `ak_(-1)` and powers of
    /// `ak_5` (seed 002 §3.4). Nothing for `t = 1 mod 2N`.
    fn auto_chain(&self, t: usize, mut apply: impl FnMut(usize)) {
        let two_n = 2 * self.auto_slot.len();
        let t = t % two_n;
        if t == 1 {
            return;
        }
        let mut by_exponent = |t: usize| {
            apply(self.auto_slot[t / 2] as usize - 1);
        };
        if self.auto_slot[t / 2] != 0 {
            by_exponent(t);
            return;
        }
        let (e, neg) = self.dlog[t / 2];
        if neg {
            by_exponent(two_n - 1);
        }
        match self.config.auto_keys {
            AutoKeySet::Generators => (0..e).for_each(|_| by_exponent(5)),
            _ => {
                let mut p = 5usize;
                let mut bits = e;
                while bits != 0 {
                    if bits & 1 == 1 {
                        by_exponent(p);
                    }
                    bits >>= 1;
                    p = p * p % two_n;
                }
            }
        }
    }
}
