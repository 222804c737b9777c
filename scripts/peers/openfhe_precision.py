# OpenFHE CKKS precision at scale 2^40 (fresh and one mult+relin+rescale), the peer side of
# the precision table in BENCHMARKS.md. Run with the OpenFHE venv of ../shared/peers:
#   OMP_NUM_THREADS=1 /tmp/peer310/bin/python scripts/peers/openfhe_precision.py
import sys, numpy as np, openfhe as o
def run(logn, L, scale_bits, first_bits, dnum, seed):
    p = o.CCParamsCKKSRNS()
    p.SetMultiplicativeDepth(L - 1); p.SetScalingModSize(scale_bits); p.SetFirstModSize(first_bits)
    p.SetRingDim(1 << logn); p.SetBatchSize(1 << (logn - 1)); p.SetScalingTechnique(o.FIXEDMANUAL)
    p.SetKeySwitchTechnique(o.HYBRID); p.SetSecretKeyDist(o.UNIFORM_TERNARY); p.SetNumLargeDigits(dnum)
    p.SetSecurityLevel(o.HEStd_NotSet)
    cc = o.GenCryptoContext(p); cc.Enable(o.PKE); cc.Enable(o.KEYSWITCH); cc.Enable(o.LEVELEDSHE)
    kp = cc.KeyGen(); cc.EvalMultKeyGen(kp.secretKey)
    slots = 1 << (logn - 1); rng = np.random.default_rng(seed)
    x = rng.uniform(-1, 1, slots); y = rng.uniform(-1, 1, slots)
    cx = cc.Encrypt(kp.publicKey, cc.MakeCKKSPackedPlaintext(x)); cy = cc.Encrypt(kp.publicKey, cc.MakeCKKSPackedPlaintext(y))
    d = cc.Decrypt(cx, kp.secretKey); d.SetLength(slots); fresh = np.abs(np.array(d.GetRealPackedValue()) - x)
    r = cc.ModReduce(cc.EvalMult(cx, cy)); d = cc.Decrypt(r, kp.secretKey); d.SetLength(slots)
    mul = np.abs(np.array(d.GetRealPackedValue()) - x * y)
    print(f"openfhe logN={logn} L={L} scale=2^{scale_bits} first={first_bits} dnum={dnum}: fresh max err 2^{np.log2(fresh.max()):.2f} (-> {-np.log2(fresh.max()):.1f} bits), mean 2^{np.log2(fresh.mean()):.2f}; mult+rescale max err 2^{np.log2(mul.max()):.2f} (-> {-np.log2(mul.max()):.1f} bits), mean 2^{np.log2(mul.mean()):.2f}", flush=True)
    o.ClearEvalMultKeys(); o.ReleaseAllContexts()
for seed in (1, 2):
    run(13, 4, 40, 55, 2, seed)
    run(16, 16, 40, 60, 3, seed)
    run(16, 32, 40, 60, 3, seed)
