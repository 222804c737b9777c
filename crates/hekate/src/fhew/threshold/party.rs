//! The parties' side of threshold FHEW: secret shares, the shares they publish (public
//! key, evaluation keys, key switching), the joint public key and public-key encryption
//! under it, and partial decryptions.

use super::{CommonRandomString, ThresholdContext};
use crate::fhew::blindrotate::{monomial_exponents, BlindRotationKey};
use crate::fhew::gates::{extract_and_switch, BootstrapKey, FhewSecretKey};
use crate::fhew::lwe::{LweCiphertext, LweKeySwitchKey};
use crate::fhew::params::MethodConfig;
use crate::math::sample::{self, DiscreteGaussian, Seed};
use crate::ring::{Form, Poly};
use crate::rlwe::gsw::{monomial_ntt, AutoKey, Gadget, Rgsw, RlweCiphertext, RlwePrime};
use crate::rlwe::keys::{encrypt_zero_sk_with, sample_noise_with};
use crate::{Error, Result};
use rand_chacha::rand_core::{CryptoRng, RngCore};
use zeroize::Zeroize;

/// Party `j`'s secret shares: ternary `s_j` (dimension `n`) and ternary `z_j` (degree `N`).
#[derive(Debug)]
pub struct SecretShare {
    pub(super) party: usize,
    pub(super) key: FhewSecretKey,
}

/// Party `j`'s public-key share `b_j = -a_crs z_j + e_j` (NTT form).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicKeyShare {
    /// `j`.
    pub party: usize,
    /// `b_j`.
    pub b: Poly,
}

/// Party `j`'s evaluation-key share (§6.1.2, §6.1.3), all under the joint public key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalKeyShare {
    /// `j`.
    pub party: usize,
    /// The blind-rotation configuration.
    pub config: MethodConfig,
    /// `brk_(j,i) = RGSW_(z_*)(X^(e_i(s_j)))` in the layout of [`BlindRotationKey::keys`].
    pub brk: Vec<Rgsw>,
    /// `ak_(j,t) = RLWE'_(z_*)(z_j(X^t))`.
    pub auto: Vec<AutoKey>,
    /// The key-switching share `z_j → s_j` over the common masks.
    pub ksk: KeySwitchShare,
}

/// Party `j`'s share of the LWE key-switching key `z_* → s_*`: the `β` parts
/// `v B_ks^l z_(j,i) - <α, s_j> + e` of an [`LweKeySwitchKey`] whose masks `α` are expanded
/// from [`CommonRandomString::ksk_seed`] (not stored: every party has them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeySwitchShare {
    /// `log2 Q_ks`.
    pub log_q_ks: u32,
    /// `log2 B_ks`.
    pub log_base: u32,
    /// The seed of the masks.
    pub seed: Seed,
    /// `β` parts, one per row (row layout of [`LweKeySwitchKey`]).
    pub b: Vec<u32>,
}

/// Party `j`'s partial decryption `<α, s_j> + e_j mod q` of one ciphertext.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartialDecryption {
    /// `j`.
    pub party: usize,
    /// The modulus `q`.
    pub q: u64,
    /// `<α, s_j> + e_j mod q`.
    pub value: u64,
}

impl SecretShare {
    /// Fresh ternary shares for party `party` (`0 <= party < k`).
    pub fn generate<R: RngCore + CryptoRng>(
        ctx: &ThresholdContext,
        party: usize,
        rng: &mut R,
    ) -> Result<Self> {
        if party >= ctx.k {
            return Err(Error::InvalidParameters(format!(
                "party index {party} must be below k = {}",
                ctx.k
            )));
        }
        Ok(SecretShare {
            party,
            key: FhewSecretKey::generate(&ctx.fhew, rng)?,
        })
    }

    /// The party index `j`.
    pub fn party(&self) -> usize {
        self.party
    }

    /// Checks that the share was made for `ctx`'s parameters.
    fn check(&self, ctx: &ThresholdContext) -> Result<()> {
        let p = &ctx.params.fhew;
        if self.key.lwe.dim() != p.n || self.key.rlwe.ring_id() != ctx.ring().fingerprint() {
            return Err(Error::ParameterMismatch(format!(
                "the secret share of party {} was made for other FHEW parameters",
                self.party
            )));
        }
        if self.party >= ctx.k {
            return Err(Error::InvalidParameters(format!(
                "party index {} must be below k = {}",
                self.party, ctx.k
            )));
        }
        Ok(())
    }

    /// `b_j = -a_crs z_j + e_j` with `e_j` of standard deviation `σ` (§6.1.1).
    pub fn public_key_share<R: RngCore + CryptoRng>(
        &self,
        ctx: &ThresholdContext,
        crs: &CommonRandomString,
        rng: &mut R,
    ) -> Result<PublicKeyShare> {
        self.check(ctx)?;
        let [b, _a] = encrypt_zero_sk_with(
            ctx.ring(),
            &self.key.rlwe,
            1,
            0,
            &crs.seed,
            0,
            &ctx.fhew.noise,
            rng,
        );
        Ok(PublicKeyShare {
            party: self.party,
            b,
        })
    }

    /// The party's evaluation-key share for `config` (AP, Alg. 3, 4 or 5 with RGSW keys),
    /// encrypted under `pk` with smudging noise `σ_smenc`.
    pub fn eval_key_share<R: RngCore + CryptoRng>(
        &self,
        ctx: &ThresholdContext,
        crs: &CommonRandomString,
        pk: &ThresholdPublicKey,
        config: MethodConfig,
        rng: &mut R,
    ) -> Result<EvalKeyShare> {
        self.check(ctx)?;
        let p = &ctx.params.fhew;
        let ring = ctx.ring();
        let big_n = ring.n();
        if !config.method.applies(p.q, big_n) {
            return Err(Error::InvalidParameters(format!(
                "{} does not apply to q = {}, N = {big_n}",
                config.method.name(),
                p.q
            )));
        }
        if config.alt_mult {
            return Err(Error::InvalidParameters(
                "threshold keys are RGSW: ALTMULT's RLWE' keys cannot be multiplied".into(),
            ));
        }
        let exps = monomial_exponents(p, config.method, big_n, self.key.lwe.coeffs()).ok_or_else(
            || {
                Error::InvalidParameters(
                    "GINX has no threshold key generation (its keys are not linear in s)".into(),
                )
            },
        )?;
        let big_q = ctx.fhew.big_q;
        let mut brk = Vec::with_capacity(exps.len());
        for (e, log_bg) in exps {
            let g = Gadget::new(big_q, log_bg)?;
            let m = monomial_ntt(ring, e);
            brk.push(pk.encrypt_rgsw(ctx, &m, g, rng));
            m.discard_secret();
        }
        let ag = Gadget::new(big_q, p.log_bg)?;
        let z = self.key.rlwe.ntt_at(1, 0);
        let mut auto = Vec::new();
        for t in BlindRotationKey::auto_exponents(config, p.q, big_n) {
            let mut zt = ring.zero(1, 0, Form::Ntt);
            z.automorphism(t, ring, &mut zt);
            let key = pk.encrypt_rlwe_prime(ctx, &zt, ag, rng);
            // `z(X^t)` is the secret share permuted: wiped, not pooled.
            zt.discard_secret();
            auto.push(AutoKey { t, key });
        }
        let full = LweKeySwitchKey::generate_with_seed(
            self.key.rlwe.coeffs(),
            &self.key.lwe,
            p.log_q_ks,
            p.log_b_ks,
            crs.ksk_seed(),
            &ctx.fhew.noise,
            rng,
        )?;
        let ksk = KeySwitchShare {
            log_q_ks: full.log_q_ks,
            log_base: full.log_base,
            seed: full.seed,
            b: full.b,
        };
        Ok(EvalKeyShare {
            party: self.party,
            config,
            brk,
            auto,
            ksk,
        })
    }

    /// `p_j = <α, s_j> + e_j mod q` with flooding noise `e_j` of standard deviation
    /// `σ_flood`.
    pub fn partial_decrypt<R: RngCore + CryptoRng>(
        &self,
        ctx: &ThresholdContext,
        ct: &LweCiphertext,
        rng: &mut R,
    ) -> Result<PartialDecryption> {
        self.check(ctx)?;
        check_ct(ctx, ct)?;
        let mask = LweCiphertext {
            a: ct.a.clone(),
            b: 0,
            q: ct.q,
        };
        let dot = self.key.lwe.phase(&mask)?;
        let e = ctx.flood.sample(rng);
        Ok(PartialDecryption {
            party: self.party,
            q: ct.q,
            value: (dot + e).rem_euclid(ct.q as i64) as u64,
        })
    }
}

pub(super) fn check_ct(ctx: &ThresholdContext, ct: &LweCiphertext) -> Result<()> {
    let p = &ctx.params.fhew;
    if ct.q != p.q || ct.dim() != p.n {
        return Err(Error::ParameterMismatch(format!(
            "ciphertext (n, q) = ({}, {}) does not match the parameters ({}, {})",
            ct.dim(),
            ct.q,
            p.n,
            p.q
        )));
    }
    Ok(())
}

/// The joint public key `pk = (a_crs, Σ_j b_j)` of `k` parties.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThresholdPublicKey {
    /// `a_crs` (NTT form).
    pub a: Poly,
    /// `Σ_j b_j` (NTT form).
    pub b: Poly,
}

impl ThresholdPublicKey {
    /// Sums the shares of all `k` parties (one each).
    pub fn combine(
        ctx: &ThresholdContext,
        crs: &CommonRandomString,
        shares: &[PublicKeyShare],
    ) -> Result<Self> {
        ctx.check_parties("public key", shares.iter().map(|s| s.party))?;
        let ring = ctx.ring();
        let mut b = ring.zero(1, 0, Form::Ntt);
        for s in shares {
            if s.b.n() != ring.n() || s.b.data().len() != ring.n() || s.b.form() != Form::Ntt {
                return Err(Error::ParameterMismatch(format!(
                    "public-key share of party {} is not an NTT-form polynomial of degree {}",
                    s.party,
                    ring.n()
                )));
            }
            b.add_assign(&s.b, ring);
        }
        Ok(ThresholdPublicKey {
            a: crs.a_crs(ctx),
            b,
        })
    }

    /// `RLWE_pk(0) = (v a + e_0, v b + e_1)` in NTT form, with ternary `v` and `e_0`, `e_1`
    /// from `noise`.
    pub fn encrypt_zero<R: RngCore + CryptoRng>(
        &self,
        ctx: &ThresholdContext,
        noise: &DiscreteGaussian,
        rng: &mut R,
    ) -> RlweCiphertext {
        let ring = ctx.ring();
        // The ephemeral `v` would decrypt the result: its draws and its polynomial are
        // wiped, never pooled.
        let mut coeffs = sample::ternary(rng, ring.n());
        let mut v = ring.from_signed(&coeffs, 1, 0);
        coeffs.zeroize();
        v.ntt(ring);
        let mut a = sample_noise_with(ring, 1, 0, noise, rng);
        let mut b = sample_noise_with(ring, 1, 0, noise, rng);
        a.mul_add_assign(&v, &self.a, ring);
        b.mul_add_assign(&v, &self.b, ring);
        v.discard_secret();
        RlweCiphertext { a, b }
    }

    /// `RLWE'_(z_*)(m)` for `m` in NTT form: rows `RLWE_pk(0) + (0, g_i m)` with smudging
    /// noise `σ_smenc`.
    pub fn encrypt_rlwe_prime<R: RngCore + CryptoRng>(
        &self,
        ctx: &ThresholdContext,
        m_ntt: &Poly,
        gadget: Gadget,
        rng: &mut R,
    ) -> RlwePrime {
        self.gadget_rows(ctx, m_ntt, gadget, false, rng)
    }

    /// `RGSW_(z_*)(m) = (RLWE'(z_* m), RLWE'(m))` for `m` in NTT form; the rows of
    /// `RLWE'(z_* m)` are `RLWE_pk(0) + (g_i m, 0)`.
    pub fn encrypt_rgsw<R: RngCore + CryptoRng>(
        &self,
        ctx: &ThresholdContext,
        m_ntt: &Poly,
        gadget: Gadget,
        rng: &mut R,
    ) -> Rgsw {
        Rgsw {
            zm: self.gadget_rows(ctx, m_ntt, gadget, true, rng),
            m: self.gadget_rows(ctx, m_ntt, gadget, false, rng),
        }
    }

    /// Rows `RLWE_pk(0) + g_i m` added to `a` (`times_z`: encrypts `g_i z_* m`) or `b`.
    fn gadget_rows<R: RngCore + CryptoRng>(
        &self,
        ctx: &ThresholdContext,
        m_ntt: &Poly,
        gadget: Gadget,
        times_z: bool,
        rng: &mut R,
    ) -> RlwePrime {
        let q = *ctx.ring().modulus(0, 1);
        let d = gadget.digits();
        let (mut a, mut b) = (Vec::with_capacity(d), Vec::with_capacity(d));
        for i in 0..d {
            let mut ct = self.encrypt_zero(ctx, &ctx.smenc, rng);
            let g = gadget.power(i);
            let target = if times_z { &mut ct.a } else { &mut ct.b };
            for (x, &mj) in target.data_mut().iter_mut().zip(m_ntt.data()) {
                *x = q.add(*x, q.mul(mj, g));
            }
            a.push(ct.a);
            b.push(ct.b);
        }
        RlwePrime {
            gadget,
            seed: None,
            a,
            b,
        }
    }

    /// A public-key encryption of the bit `m` (as `m · q/4`, like
    /// [`FhewContext::encrypt_bit`](crate::fhew::FhewContext::encrypt_bit)): `RLWE_pk(m Q/4)` with noise `σ`, its constant
    /// coefficient extracted as `LWE_(Q, z_*)`, switched to `Q_ks`, key-switched to `s_*`
    /// with `key.ksk` and switched to `q`. Its noise is that of a bootstrapped ciphertext.
    pub fn encrypt_bit<R: RngCore + CryptoRng>(
        &self,
        ctx: &ThresholdContext,
        key: &BootstrapKey,
        m: bool,
        rng: &mut R,
    ) -> Result<LweCiphertext> {
        let p = &ctx.params.fhew;
        if key.ksk.n_in != p.big_n || key.ksk.n_out != p.n {
            return Err(Error::ParameterMismatch(
                "the key-switching key was made for other parameters".into(),
            ));
        }
        let ring = ctx.ring();
        let mut ct = self.encrypt_zero(ctx, &ctx.fhew.noise, rng);
        ct.a.intt(ring);
        ct.b.intt(ring);
        let big_q = ctx.fhew.big_q;
        let b0 = (ct.b.data()[0] + m as u64 * (big_q / 4)) % big_q;
        let mut ks_in = vec![0u32; p.big_n];
        let mut ks_out = vec![0u32; p.n];
        Ok(extract_and_switch(
            &ctx.fhew,
            &key.ksk,
            ct.a.data(),
            b0,
            &mut ks_in,
            &mut ks_out,
        ))
    }
}
