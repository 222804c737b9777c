package main

import (
	"flag"
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"strings"
	"time"

	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring/ringqp"
	"github.com/tuneinsight/lattigo/v6/schemes/bgv"
)

// heStd128 is the HE-standard (2018) bound on log2(QP) for 128-bit classical
// security with a ternary secret, by log2 N.
var heStd128 = map[int]int{10: 27, 11: 54, 12: 109, 13: 218, 14: 438, 15: 881, 16: 1761, 17: 3524}

// bgvChain returns the default moduli (bit sizes) for one (scheme, logN):
//
//   - BGV (`Mul` + `Rescale`): depth rescaling primes of qi = bits(T) + logN + 1
//     bits (32 at N = 2^14, 33 at 2^15 for T = 65537), under a q0 of qi + 9 bits
//     that holds the result at level 0, and two special primes of
//     ceil((q0 + qi)/2) + 1 bits (P above every 2-prime digit). At 2^14 that is
//     LogQP = 41 + 10*32 + 2*38 = 437 <= 438. Why qi this large: a squaring maps
//     the noise e (Lattigo's unscaled e, decrypt = m T^-1 + e) to about
//     e^2 T sqrt(N) / qi + e_round with e_round ~ 2^7 at 2^14 (measured), which
//     has a fixed point only for qi >= 4 T sqrt(N) e_round ~ 2^32; with 30-bit
//     primes (Lattigo's example uses 29 at 2^14) the x^(2^10) chain at 2^14
//     decrypts wrong (e = 2^39 at level 0, measured).
//   - BFV (`MulScaleInvariant`, no level consumed): enough 60-bit primes for
//     bits(T) + 11 + depth*(bits(T) + logN + 1) bits (measured growth at N = 2^12
//     is ~bits(T) + logN - 1 per squaring), i.e. 6 x 60 at depth 10 for N = 2^14
//     and 2^15, plus one 60-bit special prime (hybrid, one Q prime per digit):
//     LogQP = 420 <= 438. OpenFHE's BFV default is 7 x 60 with BV (no P), but
//     Lattigo v6.2's key switching without P decrypts wrong (the tensor alone is
//     right, relinearize is not; see correct_tensor/correct_mult with -logp none).
func bgvChain(scheme string, logN, logT, depth int) (logQ, logP []int) {
	if scheme == "bgv" {
		qi := logT + logN + 1
		q0 := qi + 9
		logQ = []int{q0}
		for i := 0; i < depth; i++ {
			logQ = append(logQ, qi)
		}
		p := (q0+qi+1)/2 + 1
		return logQ, []int{p, p}
	}
	need := logT + 11 + depth*(logT+logN+1)
	for i := 0; i < (need+59)/60; i++ {
		logQ = append(logQ, 60)
	}
	return logQ, []int{60}
}

// parseBits parses a comma-separated list of bit sizes; "" gives nil and
// "none" an empty (non-nil) list.
func parseBits(s string) []int {
	switch s {
	case "":
		return nil
	case "none":
		return []int{}
	}
	return parseInts(s)
}

func log2s(moduli []uint64) []float64 {
	r := make([]float64, len(moduli))
	for i, q := range moduli {
		r[i] = math.Round(math.Log2(float64(q))*100) / 100
	}
	return r
}

// runBGV times Lattigo's integer scheme (`schemes/bgv`) as BGV (`Mul`,
// `Rescale`) and as BFV (the same package with a scale-invariant evaluator,
// `MulScaleInvariant`), at the top level of the chain, on fresh ciphertexts.
func runBGV(args []string) {
	fs := flag.NewFlagSet("bgv", flag.ExitOnError)
	logNs := fs.String("logn", "14,15", "comma-separated log2 ring degrees")
	schemes := fs.String("scheme", "bgv,bfv", "comma-separated: bgv, bfv")
	t := fs.Uint64("t", 65537, "plaintext modulus (prime, = 1 mod 2N for batching)")
	depth := fs.Int("depth", 10, "multiplicative depth (the x^(2^depth) chain)")
	reps := fs.Int("reps", 7, "timed repetitions (median and min reported)")
	warmup := fs.Int("warmup", 1, "untimed runs before each timed op")
	set := fs.String("set", "default", "default (chains sized by -depth) | example14 (bgv.ExampleParameters128BitLogN14LogQP438, logN 14 only)")
	logQFlag := fs.String("logq", "", "override: comma-separated Q prime bit sizes (all logN, all schemes)")
	logPFlag := fs.String("logp", "", "override: comma-separated P prime bit sizes, or none")
	hoist := fs.Int("hoist", 8, "rotations 1..hoist done hoisted (and one by one)")
	fs.StringVar(&outPath, "out", "", "append JSON lines here")
	fs.Parse(args)

	for _, scheme := range strings.Split(*schemes, ",") {
		scheme = strings.ToLower(strings.TrimSpace(scheme))
		if scheme != "bgv" && scheme != "bfv" {
			panic("unknown -scheme " + scheme + " (bgv or bfv)")
		}
		for _, logN := range parseInts(*logNs) {
			lit := bgv.ParametersLiteral{LogN: logN, PlaintextModulus: *t}
			if *set == "example14" {
				if logN != 14 {
					emit(map[string]any{"scheme": strings.ToUpper(scheme), "logN": logN, "op": "error",
						"error": "-set example14 is N = 2^14 only"})
					continue
				}
				lit = bgv.ExampleParameters128BitLogN14LogQP438
				lit.PlaintextModulus = *t
			} else if *set == "default" {
				lit.LogQ, lit.LogP = bgvChain(scheme, logN, bits.Len64(*t), *depth)
				if q := parseBits(*logQFlag); q != nil {
					lit.LogQ = q
				}
				if p := parseBits(*logPFlag); p != nil {
					lit.LogP = p
				}
			} else {
				panic("unknown -set " + *set)
			}
			if err := bgvOne(scheme, *set, lit, *depth, *reps, *warmup, *hoist); err != nil {
				emit(map[string]any{"scheme": strings.ToUpper(scheme), "logN": logN, "set": *set,
					"op": "error", "error": err.Error()})
			}
		}
	}
}

func bgvOne(scheme, set string, lit bgv.ParametersLiteral, depth, reps, warmup, hoist int) error {
	bfv := scheme == "bfv"
	t0 := time.Now()
	params, err := bgv.NewParametersFromLiteral(lit)
	if err != nil {
		return err
	}
	T := params.PlaintextModulus()
	N := params.N()
	if params.MaxSlots() != N {
		return fmt.Errorf("T = %d does not batch at N = %d (needs T = 1 mod 2N)", T, N)
	}
	kgen := rlwe.NewKeyGenerator(params)
	sk, pk := kgen.GenKeyPairNew()
	rlk := kgen.GenRelinearizationKeyNew(sk)
	galEls := make([]uint64, hoist)
	for i := range galEls {
		galEls[i] = params.GaloisElement(i + 1)
	}
	gks := kgen.GenGaloisKeysNew(galEls, sk)
	evk := rlwe.NewMemEvaluationKeySet(rlk, gks...)
	setup := time.Since(t0).Seconds()

	ecd := bgv.NewEncoder(params)
	encr := rlwe.NewEncryptor(params, pk)
	decr := rlwe.NewDecryptor(params, sk)
	eval := bgv.NewEvaluator(params, evk, bfv)

	maxLevel := params.MaxLevel()
	logQP := params.LogQP()
	bound, known := heStd128[params.LogN()]
	base := map[string]any{
		"scheme": strings.ToUpper(scheme), "set": set, "logN": params.LogN(), "T": T, "depth": depth,
		"log2_Q": log2s(params.Q()), "log2_P": log2s(params.P()), "limbs_Q": len(params.Q()),
		"limbs_P": len(params.P()), "logQ": params.LogQ(), "logQP": logQP,
		"dnum": params.BaseRNSDecompositionVectorSize(maxLevel, params.MaxLevelP()),
		// (+0.01: generated primes may sit just above 2^bits)
		"secure128": known && logQP <= float64(bound)+0.01, "he_std_128_max_logQP": bound,
		"Xs": "ternary P=2/3 (Lattigo default)", "Xe": "discrete Gaussian sigma=3.2 (Lattigo default)",
		"tensor":        map[bool]string{false: "Mul (BGV)", true: "MulScaleInvariant (BFV)"}[bfv],
		"relin_key_MiB": float64(rlk.BinarySize()) / (1 << 20), "galois_key_MiB": float64(gks[0].BinarySize()) / (1 << 20),
	}

	r := rand.New(rand.NewSource(1))
	x, y := make([]uint64, N), make([]uint64, N)
	for i := range x {
		x[i], y[i] = r.Uint64()%T, r.Uint64()%T
	}
	ptx := bgv.NewPlaintext(params, maxLevel)
	pty := bgv.NewPlaintext(params, maxLevel)
	if err := ecd.Encode(x, ptx); err != nil {
		return err
	}
	if err := ecd.Encode(y, pty); err != nil {
		return err
	}
	cx, err := encr.EncryptNew(ptx)
	if err != nil {
		return err
	}
	cy, err := encr.EncryptNew(pty)
	if err != nil {
		return err
	}
	base["ct_MiB"] = float64(cx.BinarySize()) / (1 << 20)
	rec := copyMap(base)
	rec["op"], rec["median_s"] = fmt.Sprintf("setup(params+sk,pk,rlk,%d galois keys)", hoist), setup
	emit(rec)

	times := map[string]any{}
	var firstErr error
	do := func(op string, fn func() error) {
		var e error
		med, mn := medianTime(reps, warmup, func() {
			if err := fn(); err != nil && e == nil {
				e = err
			}
		})
		rec := copyMap(base)
		rec["op"], rec["reps"] = op, reps
		if e != nil {
			rec["error"] = e.Error()
			if firstErr == nil {
				firstErr = fmt.Errorf("%s: %w", op, e)
			}
		} else {
			rec["median_s"], rec["min_s"] = med, mn
			rec["median_ms"], rec["min_ms"] = med*1e3, mn*1e3
			times[op] = map[string]float64{"median_ms": med * 1e3, "min_ms": mn * 1e3}
		}
		emit(rec)
	}

	ptTmp := bgv.NewPlaintext(params, maxLevel)
	ptDec := bgv.NewPlaintext(params, maxLevel)
	ctOut := bgv.NewCiphertext(params, 1, maxLevel)
	ct2 := bgv.NewCiphertext(params, 2, maxLevel)
	vals := make([]uint64, N)

	do("encode", func() error { return ecd.Encode(x, ptTmp) })
	do("encrypt_pk", func() error { return encr.Encrypt(ptx, ctOut) })
	do("decrypt+decode", func() error { decr.Decrypt(cx, ptDec); return ecd.Decode(ptDec, vals) })
	if bfv {
		do("tensor(MulScaleInvariant)", func() error { return eval.MulScaleInvariant(cx, cy, ct2) })
	} else {
		do("tensor(Mul)", func() error { return eval.Mul(cx, cy, ct2) })
	}
	do("relin_only", func() error { return eval.Relinearize(ct2, ctOut) })
	if bfv {
		do("mult+relin(MulRelinScaleInvariant)", func() error { return eval.MulRelinScaleInvariant(cx, cy, ctOut) })
	} else {
		do("mult+relin(MulRelin)", func() error { return eval.MulRelin(cx, cy, ctOut) })
	}
	var prod *rlwe.Ciphertext
	if bfv {
		prod, err = eval.MulRelinScaleInvariantNew(cx, cy)
	} else {
		prod, err = eval.MulRelinNew(cx, cy)
	}
	if err != nil {
		return err
	}
	if !bfv && maxLevel > 0 {
		ctRes := bgv.NewCiphertext(params, 1, maxLevel-1)
		do("rescale", func() error { return eval.Rescale(prod, ctRes) })
	}
	do("rotate_columns(1)", func() error { return eval.RotateColumns(cx, 1, ctOut) })

	// Hoisted rotations: Lattigo's bgv evaluator has no RotateHoistedNew (ckks has),
	// so this is ckks.RotateHoisted's body: one DecomposeNTT of c1, then
	// AutomorphismHoisted per Galois element.
	levelP := params.MaxLevelP()
	decomp := make([]ringqp.Poly, params.BaseRNSDecompositionVectorSize(maxLevel, levelP))
	for i := range decomp {
		decomp[i] = params.RingQP().NewPoly()
	}
	rots := make([]*rlwe.Ciphertext, hoist)
	for i := range rots {
		rots[i] = bgv.NewCiphertext(params, 1, maxLevel)
	}
	// Lattigo's DecomposeNTT dereferences the P ring, so hoisting needs P primes.
	canHoist := params.PCount() > 0
	if canHoist {
		do(fmt.Sprintf("rotate_columns_hoisted(1..%d) total", hoist), func() error {
			eval.DecomposeNTT(maxLevel, levelP, levelP+1, cx.Value[1], cx.IsNTT, decomp)
			for i := range rots {
				if err := eval.AutomorphismHoisted(maxLevel, cx, decomp, galEls[i], rots[i]); err != nil {
					return err
				}
			}
			return nil
		})
	} else {
		rec := copyMap(base)
		rec["op"] = fmt.Sprintf("rotate_columns_hoisted(1..%d) total", hoist)
		rec["skipped"] = "no P primes: Lattigo v6.2 DecomposeNTT (the hoisting step) dereferences the nil P ring"
		emit(rec)
	}
	do(fmt.Sprintf("rotate_columns(1..%d) one by one total", hoist), func() error {
		for i := range rots {
			if err := eval.RotateColumns(cx, i+1, rots[i]); err != nil {
				return err
			}
		}
		return nil
	})
	// The hoisted rotations must agree with the plain ones (slot check, row 0 and 1).
	hoistOK := true
	if hoist > 0 && canHoist {
		eval.DecomposeNTT(maxLevel, levelP, levelP+1, cx.Value[1], cx.IsNTT, decomp)
		if err := eval.AutomorphismHoisted(maxLevel, cx, decomp, galEls[hoist-1], rots[0]); err != nil {
			return err
		}
		ecd.Decode(decr.DecryptNew(rots[0]), vals)
		h := N / 2
		for i := 0; i < N; i++ {
			row, j := i/h, i%h
			if vals[i] != x[row*h+(j+hoist)%h] {
				hoistOK = false
				break
			}
		}
	}

	// noise: log2 of |e| where decrypt(ct) = m*T^-1*scale + e mod Q_l (Lattigo's
	// representation for both BGV and BFV); decoding is right while
	// |m + T e| < Q_l/2, so the budget left is log2(Q_l) - 1 - log2(T) - log2 max|e|.
	noise := func(ct *rlwe.Ciphertext, want []uint64) map[string]float64 {
		pt := bgv.NewPlaintext(params, ct.Level())
		*pt.MetaData = *ct.MetaData
		if err := ecd.Encode(want, pt); err != nil {
			panic(err)
		}
		diff, err := eval.SubNew(ct, pt)
		if err != nil {
			panic(err)
		}
		std, _, mx := rlwe.Norm(diff, decr)
		lq := bigLog2(params, ct.Level())
		return map[string]float64{"log2_std": std, "log2_max": mx, "level": float64(ct.Level()),
			"log2_Q_level": lq, "budget_bits": lq - 1 - math.Log2(float64(T)) - mx}
	}
	xy := make([]uint64, N)
	for i := range xy {
		xy[i] = x[i] * y[i] % T
	}
	noiseFresh := noise(cx, x)
	if !bfv && maxLevel > 0 {
		res := bgv.NewCiphertext(params, 1, maxLevel-1)
		if err := eval.Rescale(prod, res); err != nil {
			return err
		}
		prod = res
	}
	noiseMul := noise(prod, xy)

	// The chain x^(2^depth) by repeated squaring (+ relin, + rescale for BGV).
	steps := depth
	if !bfv && steps > maxLevel {
		steps = maxLevel
	}
	var chainOut *rlwe.Ciphertext
	do(fmt.Sprintf("chain x^(2^%d) total", steps), func() error {
		ct := cx
		for i := 0; i < steps; i++ {
			var err error
			if bfv {
				ct, err = eval.MulRelinScaleInvariantNew(ct, ct)
			} else {
				if ct, err = eval.MulRelinNew(ct, ct); err == nil {
					err = eval.Rescale(ct, ct)
				}
			}
			if err != nil {
				return err
			}
		}
		chainOut = ct
		return nil
	})
	if firstErr != nil {
		return firstErr
	}
	want := append([]uint64(nil), x...)
	for s := 0; s < steps; s++ {
		for i := range want {
			want[i] = want[i] * want[i] % T
		}
	}
	ecd.Decode(decr.DecryptNew(chainOut), vals)
	correct, wrong := true, 0
	for i := range vals {
		if vals[i] != want[i] {
			correct = false
			wrong++
		}
	}
	noiseChain := noise(chainOut, want)
	// the degree-2 tensor alone (decrypted with s^2) and one mult+relin, as
	// OpenFHE's harness checks
	tensorOK := true
	if bfv {
		err = eval.MulScaleInvariant(cx, cy, ct2)
	} else {
		err = eval.Mul(cx, cy, ct2)
	}
	if err != nil {
		return err
	}
	ecd.Decode(decr.DecryptNew(ct2), vals)
	for i := range vals {
		if vals[i] != xy[i] {
			tensorOK = false
			break
		}
	}
	ecd.Decode(decr.DecryptNew(prod), vals)
	multOK := true
	for i := range vals {
		if vals[i] != xy[i] {
			multOK = false
			break
		}
	}

	sum := copyMap(base)
	chainKey := fmt.Sprintf("chain x^(2^%d) total", steps)
	if c, ok := times[chainKey].(map[string]float64); ok && steps > 0 {
		sum["chain_per_level_ms"] = map[string]float64{"median_ms": c["median_ms"] / float64(steps), "min_ms": c["min_ms"] / float64(steps)}
	}
	sum["op"], sum["reps"], sum["warmup"] = "summary", reps, warmup
	sum["times_ms"] = times
	sum["chain_steps"] = steps
	sum["correct"], sum["wrong_slots"] = correct, wrong
	sum["correct_mult"], sum["correct_tensor"] = multOK, tensorOK
	if canHoist {
		sum["correct_hoisted"] = hoistOK
	}
	sum["noise_fresh"], sum["noise_after_mult"], sum["noise_after_chain"] = noiseFresh, noiseMul, noiseChain
	emit(sum)
	return nil
}

// bigLog2 returns log2 of Q_level = q_0 * ... * q_level.
func bigLog2(params bgv.Parameters, level int) float64 {
	s := 0.0
	for _, q := range params.Q()[:level+1] {
		s += math.Log2(float64(q))
	}
	return s
}
