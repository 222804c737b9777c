//! The chosen preset as Rust code and as JSON.

use super::{Candidate, Interpolant, SearchInputs};
use crate::circuits::lintrans::{BsgsTies, GiantSteps};
use crate::params::security::SecurityLevel;
use crate::rlwe::SecretDistribution;

fn secret_code(secret: SecretDistribution) -> String {
    match secret {
        SecretDistribution::HammingWeight(h) => format!("SecretDistribution::HammingWeight({h})"),
        SecretDistribution::Ternary => "SecretDistribution::Ternary".into(),
        SecretDistribution::Gaussian => "SecretDistribution::Gaussian".into(),
    }
}

fn list(v: &[u32]) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

impl Candidate {
    /// Rust code building this preset with the public API (`CkksParameters` and
    /// `BootstrapConfig`), for `use hekate::ckks::bootstrap::{BootstrapConfig, EvalMod};`
    /// and `use hekate::prelude::*;`, in a function returning `hekate::Result`.
    pub fn rust_code(&self, inputs: &SearchInputs) -> String {
        let (n, slots, kappa) = (inputs.log_n, inputs.slots, inputs.log2_failure);
        let config = match inputs.ephemeral_weight {
            Some(h) => {
                format!("BootstrapConfig::with_encapsulation(1 << {n}, {slots}, {h}, {kappa:?})?")
            }
            None => format!(
                "BootstrapConfig::new(1 << {n}, {}, {slots}, {kappa:?})?",
                secret_code(inputs.secret)
            ),
        };
        let level = match inputs.security.level(inputs.secret) {
            SecurityLevel::Bits128 => "SecurityLevel::Bits128",
            _ => "SecurityLevel::NotChecked",
        };
        let giant = match inputs.giant_steps {
            GiantSteps::Horner => "GiantSteps::Horner",
            GiantSteps::Distinct => "GiantSteps::Distinct",
        };
        let interpolant = match self.interpolant {
            Interpolant::Chebyshev => "Interpolant::Chebyshev".to_string(),
            Interpolant::HanKi { log_message_ratio } => {
                format!("Interpolant::HanKi {{ log_message_ratio: {log_message_ratio} }}")
            }
        };
        let cap = inputs
            .max_key_bytes
            .map_or("None".to_string(), |b| format!("Some({b})"));
        let ties = match inputs.bsgs_ties {
            BsgsTies::FewerKeys => "BsgsTies::FewerKeys",
            BsgsTies::FewerGiantSteps => "BsgsTies::FewerGiantSteps",
        };
        format!(
            "// `hekate params bootstrap`: predicted {:.2} s, {:.1} bits, keys {:.0} MiB (a model).\n\
             let mut config = {config};\n\
             config.log_message_ratio = {};\n\
             config.k = {};\n\
             config.eval_mod = EvalMod::with_interpolant({}, {}, {}, {interpolant})?; // depth {}\n\
             (config.cts_levels, config.stc_levels) = ({}, {});\n\
             config.giant_steps = hekate::circuits::lintrans::{giant};\n\
             config.bsgs_ties = hekate::circuits::lintrans::{ties};\n\
             config.key_memory_cap = {cap};\n\
             let ctx = CkksParameters::new({n})\n\
             \x20   .log_q(&config.chain(&[{}], {}, {}, {}))\n\
             \x20   .log_p(&[{}])\n\
             \x20   .dnum({})\n\
             \x20   .log_scale({})\n\
             \x20   .secret({})\n\
             \x20   .security({level})\n\
             \x20   .build()?; // log QP {:.0}\n",
            self.predicted_seconds,
            self.predicted_precision,
            self.key_bytes as f64 / f64::from(1u32 << 20),
            self.log_message_ratio,
            self.k,
            self.k,
            self.double_angles,
            self.degree,
            self.eval_mod_depth,
            self.cts_levels,
            self.stc_levels,
            list(&self.residual),
            self.stc_bits,
            self.eval_mod_bits,
            self.cts_bits,
            list(&self.log_p),
            self.dnum,
            inputs.log_scale,
            secret_code(inputs.secret),
            self.log_qp,
        )
    }

    /// The preset and its predictions as one JSON object.
    pub fn to_json(&self, inputs: &SearchInputs) -> String {
        let secret = match inputs.secret {
            SecretDistribution::HammingWeight(h) => format!("\"hw:{h}\""),
            _ => "\"ternary\"".into(),
        };
        let opt = |v: Option<String>| v.unwrap_or_else(|| "null".into());
        format!(
            "{{\"log_n\": {}, \"slots\": {}, \"secret\": {secret}, \"ephemeral_weight\": {}, \
             \"log_scale\": {}, \"log2_failure\": {}, \"k\": {}, \"log_message_ratio\": {}, \
             \"eval_mod\": {{\"interpolant\": \"{}\", \"degree\": {}, \"double_angles\": {}, \"depth\": {}}}, \
             \"cts_levels\": {}, \"stc_levels\": {}, \"residual\": [{}], \"stc_bits\": {}, \
             \"eval_mod_bits\": {}, \"cts_bits\": {}, \"chain\": [{}], \"log_p\": [{}], \
             \"dnum\": {}, \"log_qp\": {:.1}, \"max_log_qp\": {}, \"levels_left\": {}, \
             \"key_memory_cap\": {}, \
             \"predicted_seconds\": {:.4}, \"predicted_precision\": {:.2}, \
             \"key_bytes\": {}, \"galois_keys\": {}, \"key_switches\": {}, \
             \"failure_log2\": {:.2}}}",
            inputs.log_n,
            inputs.slots,
            opt(inputs.ephemeral_weight.map(|h| h.to_string())),
            inputs.log_scale,
            inputs.log2_failure,
            self.k,
            self.log_message_ratio,
            match self.interpolant {
                Interpolant::Chebyshev => "chebyshev",
                Interpolant::HanKi { .. } => "han-ki",
            },
            self.degree,
            self.double_angles,
            self.eval_mod_depth,
            self.cts_levels,
            self.stc_levels,
            list(&self.residual),
            self.stc_bits,
            self.eval_mod_bits,
            self.cts_bits,
            list(&self.chain()),
            list(&self.log_p),
            self.dnum,
            self.log_qp,
            opt(self.max_log_qp.map(|b| format!("{b:.1}"))),
            self.levels_left(),
            opt(inputs.max_key_bytes.map(|b| b.to_string())),
            self.predicted_seconds,
            self.predicted_precision,
            self.key_bytes,
            self.galois_keys,
            self.key_switches,
            self.failure_log2,
        )
    }
}
