package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/tuneinsight/lattigo/v6/circuits/ckks/bootstrapping"
	"github.com/tuneinsight/lattigo/v6/circuits/ckks/mod1"
	"github.com/tuneinsight/lattigo/v6/core/rlwe"
	"github.com/tuneinsight/lattigo/v6/ring"
	"github.com/tuneinsight/lattigo/v6/schemes/ckks"
	"github.com/tuneinsight/lattigo/v6/utils"
)

// hekateSet mirrors one preset of `hekate bench bootstrap`
// (crates/hekate-cli/src/bench/bootstrap.rs) as a Lattigo configuration:
// the same ring, slots, secret, chain (residual, SlotsToCoeffs, EvalMod and
// CoeffsToSlots primes), special primes, scale, EvalMod (a Chebyshev
// interpolant of the scaled cosine, then double angles) and message ratio,
// with ephemeral-secret encapsulation where the preset has it (eph > 0).
type hekateSet struct {
	logN, logSlots int
	xs             ring.DistributionParameters
	residual       []int
	stcLevels      int
	stcBits        int
	evalModBits    int
	ctsLevels      int
	ctsBits        int
	logP           []int
	logScale       int
	// hekate's K: |I| <= K. hekate interpolates on [-(K+1), K+1]; Lattigo's
	// K is the interpolation half-width (its interval holds |I| <= K-1), so
	// Lattigo gets K+1.
	k           int
	mod1Degree  int
	doubleAngle int
	// eph: the ephemeral secret's Hamming weight (0: no encapsulation).
	eph int
	// hanKi: EvalMod by Han and Ki's interpolant (Lattigo's CosDiscrete, hekate's
	// Interpolant::HanKi) instead of the standard Chebyshev one (CosContinuous).
	hanKi bool
	// stc, cts: the factors' scales per prime where a prime holds several factors
	// (hekate's stc_bits / stc_factors); nil: stcLevels x [stcBits], ctsLevels x [ctsBits].
	stc, cts [][]int
	// logRatio: log2 of the message ratio Q_0 / Delta (0: 8); invDegree: the arcsine's
	// degree after EvalMod (0: none).
	logRatio, invDegree int
}

// The seed 003 Table 5 / 6 sets as hekate's presets set-i ... set-v define them
// (crates/hekate/src/ckks/bootstrap/presets.rs): h = 192 (set IV: h = N/2), no
// encapsulation, Han and Ki's interpolant of degree 63 with 2 double angles and the
// paper's K = 25, i.e. hekate's 24 (set IV: the Chebyshev one of degree 255, 4 double
// angles, K = 325, hekate's 324): the range (-25, 25) Lattigo v2 ran as SinRange 25.
var paperI = hekateSet{
	logN: 16, logSlots: 15, xs: ring.Ternary{H: 192},
	residual:  append([]int{60}, repeat(40, 9)...),
	stcLevels: 3, stcBits: 39, evalModBits: 60, ctsLevels: 4, ctsBits: 56,
	logP: repeat(61, 5), logScale: 40,
	k: 24, mod1Degree: 63, doubleAngle: 2, hanKi: true,
}

func repeat(v, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

var hekateSets = map[string]hekateSet{
	// hekate's dense presets put EvalMod on 61-bit primes; Lattigo's EvalModLogScale
	// (the primes and the scale together) stops at 60, so these run it on 60-bit ones:
	// the same limbs and the same work, about a bit less precision.
	"hekate-dense": {
		logN: 16, logSlots: 15, xs: ring.Ternary{P: 2.0 / 3.0},
		residual:  []int{60, 40, 40, 40, 40, 40},
		stcLevels: 3, stcBits: 42, evalModBits: 60, ctsLevels: 4, ctsBits: 56,
		logP: repeat(61, 5), logScale: 40,
		k: 621, mod1Degree: 63, doubleAngle: 7,
	},
	"hekate-quick-dense": {
		logN: 12, logSlots: 11, xs: ring.Ternary{P: 2.0 / 3.0},
		residual:  []int{60, 40},
		stcLevels: 2, stcBits: 42, evalModBits: 55, ctsLevels: 2, ctsBits: 58,
		logP: repeat(61, 4), logScale: 40,
		k: 124, mod1Degree: 255, doubleAngle: 2,
	},
	"hekate-quick-sparse": {
		logN: 12, logSlots: 4, xs: ring.Ternary{H: 64},
		residual:  []int{60, 40},
		stcLevels: 2, stcBits: 42, evalModBits: 55, ctsLevels: 2, ctsBits: 58,
		logP: repeat(61, 4), logScale: 40,
		k: 17, mod1Degree: 63, doubleAngle: 2,
	},
	"hekate-quick-encapsulated": {
		logN: 12, logSlots: 11, xs: ring.Ternary{P: 2.0 / 3.0},
		residual:  []int{60, 40},
		stcLevels: 2, stcBits: 42, evalModBits: 55, ctsLevels: 2, ctsBits: 58,
		logP: repeat(61, 4), logScale: 40,
		k: 13, mod1Degree: 127, doubleAngle: 0, eph: 32,
	},
	"hekate-dense-encapsulated": {
		logN: 16, logSlots: 15, xs: ring.Ternary{P: 2.0 / 3.0},
		residual:  append([]int{60}, repeat(40, 13)...),
		stcLevels: 3, stcBits: 42, evalModBits: 60, ctsLevels: 4, ctsBits: 56,
		logP: repeat(61, 5), logScale: 40,
		k: 16, mod1Degree: 63, doubleAngle: 2, eph: 32,
	},
	// Lattigo's own N16QP1767H32768H32 literal defaults (StC 3 x 39, CosDiscrete of
	// degree 30, 3 double angles, K = 16 i.e. hekate's 15) with hekate's inputs and a
	// uniform ternary main secret.
	"hekate-lattigo-dense0": {
		logN: 16, logSlots: 15, xs: ring.Ternary{P: 2.0 / 3.0},
		residual:  append([]int{60}, repeat(40, 13)...),
		stcLevels: 3, stcBits: 39, evalModBits: 60, ctsLevels: 4, ctsBits: 56,
		logP: repeat(61, 5), logScale: 40,
		k: 15, mod1Degree: 30, doubleAngle: 3, eph: 32, hanKi: true,
	},
	"hekate-set-i": paperI,
	"hekate-set-ii": func() hekateSet {
		s := paperI
		s.residual = append([]int{60}, repeat(45, 5)...)
		s.stcBits, s.ctsBits, s.logP, s.logScale = 42, 58, repeat(61, 4), 45
		s.logRatio, s.invDegree = 2, 7
		return s
	}(),
	"hekate-set-iii": func() hekateSet {
		s := paperI
		s.residual = append(append([]int{55}, repeat(60, 7)...), 30)
		s.stc = [][]int{{30}, {30, 30}}
		s.evalModBits, s.ctsBits, s.logScale = 55, 53, 30
		return s
	}(),
	"hekate-set-iv": func() hekateSet {
		s := paperI
		s.xs = ring.Ternary{H: 32768}
		s.residual = append([]int{50}, repeat(40, 9)...)
		s.stc = [][]int{{28, 28}, {28}}
		s.ctsBits, s.logP, s.logScale = 53, repeat(61, 6), 45
		s.k, s.mod1Degree, s.doubleAngle, s.hanKi = 324, 255, 4, false
		return s
	}(),
	// The shape of Lattigo's N16QP1546H192H32 (hekate's h192-encapsulated): Set I's
	// chain and h = 192 main secret, ModRaise under an ephemeral h = 32 secret,
	// CosDiscrete of degree 30 with 3 double angles on [-16, 16] (hekate's K = 15).
	"hekate-h192-encapsulated": func() hekateSet {
		s := paperI
		s.k, s.mod1Degree, s.doubleAngle, s.eph = 15, 30, 3, 32
		return s
	}(),
	"hekate-set-v": func() hekateSet {
		s := paperI
		s.logN, s.logSlots = 15, 14
		s.residual = []int{33, 50, 25}
		s.stc = [][]int{{30, 30}}
		s.evalModBits, s.ctsLevels, s.ctsBits, s.logP, s.logScale = 50, 2, 49, repeat(50, 2), 25
		return s
	}(),
}

// literals returns the residual and bootstrapping parameter literals of s.
func (s hekateSet) literals() (ckks.ParametersLiteral, bootstrapping.ParametersLiteral) {
	res := ckks.ParametersLiteral{
		LogN:            s.logN,
		LogQ:            s.residual,
		LogP:            []int{61},
		Xs:              s.xs,
		LogDefaultScale: s.logScale,
	}
	factors := func(levels, bits int) [][]int {
		f := make([][]int, levels)
		for i := range f {
			f[i] = []int{bits}
		}
		return f
	}
	mod1Type := mod1.CosContinuous
	if s.hanKi {
		mod1Type = mod1.CosDiscrete
	}
	stc, cts := s.stc, s.cts
	if stc == nil {
		stc = factors(s.stcLevels, s.stcBits)
	}
	if cts == nil {
		cts = factors(s.ctsLevels, s.ctsBits)
	}
	logRatio := s.logRatio
	if logRatio == 0 {
		logRatio = 8
	}
	btp := bootstrapping.ParametersLiteral{
		LogN:     utils.Pointy(s.logN),
		LogP:     s.logP,
		Xs:       s.xs,
		LogSlots: utils.Pointy(s.logSlots),
		CoeffsToSlotsFactorizationDepthAndLogScales: cts,
		SlotsToCoeffsFactorizationDepthAndLogScales: stc,
		EvalModLogScale:       utils.Pointy(s.evalModBits),
		EphemeralSecretWeight: utils.Pointy(s.eph),
		Mod1Type:              mod1Type,
		LogMessageRatio:       utils.Pointy(logRatio),
		K:                     utils.Pointy(s.k + 1),
		Mod1Degree:            utils.Pointy(s.mod1Degree),
		DoubleAngle:           utils.Pointy(s.doubleAngle),
		Mod1InvDegree:         utils.Pointy(s.invDegree),
	}
	return res, btp
}

// runBoot times Lattigo's CKKS bootstrapping with one of its default
// parameter sets (dense0 = DefaultParametersDense[0] = N16QP1767H32768H32,
// sparse0 = DefaultParametersSparse[0] = N16QP1546H192H32, ...) or with a
// set mirroring a preset of `hekate bench bootstrap` (hekate-dense,
// hekate-quick-dense, hekate-quick-sparse: complex inputs a + bi, a and b
// uniform in (-1, 1), encrypted at level 1, and the time of each stage).
func runBoot(args []string) {
	fs := flag.NewFlagSet("boot", flag.ExitOnError)
	set := fs.String("set", "dense0", "denseI | sparseI (index into DefaultParametersDense/Sparse) | hekate-<preset of hekate bench bootstrap>")
	logSlots := fs.Int("logslots", 0, "log2 slots (0: full, LogN-1; the set's for hekate-*)")
	reps := fs.Int("reps", 3, "timed bootstraps (median reported)")
	warmup := fs.Int("warmup", 1, "untimed bootstraps before the timed ones")
	seed := fs.Int64("seed", 7, "seed of the input vector")
	fs.StringVar(&outPath, "out", "", "append JSON lines here")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the timed bootstraps here (go tool pprof)")
	// At level 0 the input stays at the default scale, as Lattigo's examples encrypt
	// it (its ScaleDown multiplies by the nearest integer to the scale ratio; set V's
	// q_0 / (2^25 R) = 0.99995 leaves a relative scale error of 2^-14.2 in the output).
	// At level 1, Lattigo 6.2 fails set V (-3 bits), though ScaleDown's output is right
	// (level 0, scale q_0 / R); at level 0 at that exact scale it fails too; cause not found.
	inLevel := fs.Int("level", -1, "input level (-1: 1 for hekate-* sets, 0 otherwise)")
	realInputs := fs.Bool("real", false, "hekate-* sets: real inputs a + 0i (decoded to float64, the real part's error) instead of a + bi")
	fs.Parse(args)

	var lit ckks.ParametersLiteral
	var btpLit bootstrapping.ParametersLiteral
	var name string
	hs, isHekate := hekateSets[*set]
	if isHekate {
		lit, btpLit = hs.literals()
		name = fmt.Sprintf("mirror of hekate bench bootstrap --presets %s", strings.TrimPrefix(*set, "hekate-"))
	} else {
		var ok bool
		if name, ok = map[string]string{
			"dense0": "N16QP1767H32768H32", "dense1": "N16QP1788H32768H32", "dense2": "N16QP1793H32768H32", "dense3": "N15QP880H16384H32",
			"sparse0": "N16QP1546H192H32", "sparse1": "N16QP1547H192H32", "sparse2": "N16QP1553H192H32", "sparse3": "N15QP768H192H32",
		}[*set]; !ok {
			panic("bad -set " + *set)
		}
		i := int((*set)[len(*set)-1] - '0')
		def := bootstrapping.DefaultParametersDense[i]
		if strings.HasPrefix(*set, "sparse") {
			def = bootstrapping.DefaultParametersSparse[i]
		}
		lit, btpLit = def.SchemeParams, def.BootstrappingParams
		// The bootstrapping literal's LogN defaults to 16: the N = 2^15 sets
		// (dense3, sparse3) need their own.
		btpLit.LogN = utils.Pointy(lit.LogN)
	}

	t0 := time.Now()
	params, err := ckks.NewParametersFromLiteral(lit)
	if err != nil {
		panic(err)
	}
	if *logSlots > 0 {
		btpLit.LogSlots = utils.Pointy(*logSlots)
	}
	btpParams, err := bootstrapping.NewParametersFromLiteral(params, btpLit)
	if err != nil {
		panic(err)
	}
	kgen := rlwe.NewKeyGenerator(params)
	sk, pk := kgen.GenKeyPairNew()
	tk := time.Now()
	evk, _, err := btpParams.GenEvaluationKeys(sk)
	if err != nil {
		panic(err)
	}
	keygen := time.Since(tk).Seconds()
	eval, err := bootstrapping.NewEvaluator(btpParams, evk)
	if err != nil {
		panic(err)
	}
	setup := time.Since(t0).Seconds()

	enc := ckks.NewEncoder(params)
	encr := rlwe.NewEncryptor(params, pk)
	decr := rlwe.NewDecryptor(params, sk)

	slots := 1 << btpParams.LogMaxSlots()
	r := rand.New(rand.NewSource(*seed))
	var x any
	level := 0
	if isHekate {
		level = 1
		if *realInputs {
			x = randVec(r, slots)
		} else {
			x = randComplexVec(r, slots)
		}
	} else {
		x = randVec(r, slots)
	}
	if *inLevel >= 0 {
		level = *inLevel
	}
	pt := ckks.NewPlaintext(params, level)
	pt.LogDimensions = btpParams.LogMaxDimensions()
	if err := enc.Encode(x, pt); err != nil {
		panic(err)
	}
	ct, err := encr.EncryptNew(pt)
	if err != nil {
		panic(err)
	}

	// The evaluator works on its input in place: every bootstrap gets a copy
	// (made outside the timing).
	var out *rlwe.Ciphertext
	for i := 0; i < *warmup; i++ {
		if out, err = eval.Bootstrap(ct.CopyNew()); err != nil {
			panic(err)
		}
	}
	ts := make([]float64, *reps)
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			panic(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			panic(err)
		}
	}
	for i := range ts {
		in := ct.CopyNew()
		t := time.Now()
		if out, err = eval.Bootstrap(in); err != nil {
			panic(err)
		}
		ts[i] = time.Since(t).Seconds()
	}
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	med, mn := median(ts), minOf(ts)

	ptOut := decr.DecryptNew(out)
	var mx, mean float64
	switch want := x.(type) {
	case []complex128:
		got := make([]complex128, slots)
		if err := enc.Decode(ptOut, got); err != nil {
			panic(err)
		}
		mx, mean = errStatsComplex(want, got)
	case []float64:
		got := make([]float64, slots)
		if err := enc.Decode(ptOut, got); err != nil {
			panic(err)
		}
		mx, mean = errStats(want, got)
	}

	bp := btpParams.BootstrappingParameters
	rec := map[string]any{
		"scheme": "CKKS", "op": "bootstrap", "set": *set + " " + name,
		"logN": params.LogN(), "log_slots": btpParams.LogMaxSlots(),
		"input_level":                level,
		"residual_levels_after_boot": out.Level(), "residual_max_level": params.MaxLevel(),
		"residual_logQP": params.LogQP(), "residual_Xs": fmt.Sprintf("%+v", params.Xs()),
		"btp_logQP": bp.LogQP(), "btp_Q_limbs": bp.QCount(), "btp_P_limbs": bp.PCount(),
		"btp_logQ": bp.LogQi(), "btp_logP": bp.LogPi(),
		"btp_Xs": fmt.Sprintf("%+v", bp.Xs()), "ephemeral_H": btpParams.EphemeralSecretWeight,
		"mod1_type": fmt.Sprintf("%d", btpParams.Mod1ParametersLiteral.Mod1Type),
		"K":         btpParams.Mod1ParametersLiteral.K, "mod1_degree": btpParams.Mod1ParametersLiteral.Mod1Degree,
		"double_angle":      btpParams.Mod1ParametersLiteral.DoubleAngle,
		"log_message_ratio": btpParams.Mod1ParametersLiteral.LogMessageRatio,
		"median_s":          med, "min_s": mn, "reps": *reps, "warmup": *warmup, "times_s": ts,
		"keygen_s": keygen, "setup_total_s": setup,
		"evk_bytes":    evk.BinarySize(),
		"log2_max_err": mx, "log2_mean_err": mean,
		"prec_bits_max_err": -mx, "prec_bits_mean_err": -mean,
	}
	if isHekate {
		rec["stages_s"] = stageTimes(eval, ct)
	}
	rec["maxrss_MiB"] = maxRSSMiB()
	emit(rec)
}

// stageTimes runs the public stages of one bootstrap once, in sequence, on a
// copy of ct: ScaleDown, ModUp (with the trace of sparse packings),
// CoeffsToSlots, EvalMod (both halves, where there are two) and SlotsToCoeffs.
func stageTimes(eval *bootstrapping.Evaluator, ct *rlwe.Ciphertext) map[string]float64 {
	check := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	st := map[string]float64{}
	c := ct.CopyNew()
	t := time.Now()
	c, _, err := eval.ScaleDown(c)
	check(err)
	st["scale_down"] = time.Since(t).Seconds()
	t = time.Now()
	c, err = eval.ModUp(c)
	check(err)
	st["mod_up"] = time.Since(t).Seconds()
	t = time.Now()
	re, im, err := eval.CoeffsToSlots(c)
	check(err)
	st["coeffs_to_slots"] = time.Since(t).Seconds()
	t = time.Now()
	re, err = eval.EvalMod(re)
	check(err)
	if im != nil {
		im, err = eval.EvalMod(im)
		check(err)
	}
	st["eval_mod"] = time.Since(t).Seconds()
	t = time.Now()
	_, err = eval.SlotsToCoeffs(re, im)
	check(err)
	st["slots_to_coeffs"] = time.Since(t).Seconds()
	return st
}

// errStatsComplex returns log2 of the largest and of the mean |want - got|.
func errStatsComplex(want, got []complex128) (log2Max, log2Mean float64) {
	mx, sum := 0.0, 0.0
	for i := range want {
		d := want[i] - got[i]
		e := math.Hypot(real(d), imag(d))
		sum += e
		if e > mx {
			mx = e
		}
	}
	return math.Log2(mx), math.Log2(sum / float64(len(want)))
}

// randComplexVec returns n values a + bi, a and b uniform in (-1, 1).
func randComplexVec(r *rand.Rand, n int) []complex128 {
	v := make([]complex128, n)
	for i := range v {
		v[i] = complex(2*r.Float64()-1, 2*r.Float64()-1)
	}
	return v
}

// maxRSSMiB returns the peak resident set size of this process (Linux ru_maxrss is in KiB).
func maxRSSMiB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return float64(ru.Maxrss) / 1024
}
