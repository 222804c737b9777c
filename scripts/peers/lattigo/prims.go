package main

// prims: Lattigo's ring primitives on one thread, to set hekate's kernels beside them
// (issue 17: is the portable path as fast as pure Go?). One limb forward and inverse NTT,
// ModUp (exact basis extension Q_alpha -> P) and ModDown (QP -> Q, NTT form), at N = 2^logn
// with 50-bit primes (the first Q prime 60-bit, as in `ckks`).
//
//	go run . prims -logn 16 -alpha 6 -limbs 16 -p 7 -reps 31

import (
	"flag"

	"github.com/tuneinsight/lattigo/v6/ring"
)

func runPrims(args []string) {
	fs := flag.NewFlagSet("prims", flag.ExitOnError)
	logN := fs.Int("logn", 16, "log2 N")
	alpha := fs.Int("alpha", 6, "primes of the ModUp input (one hybrid digit)")
	limbs := fs.Int("limbs", 16, "Q limbs")
	np := fs.Int("p", 7, "P limbs")
	reps := fs.Int("reps", 31, "timed repetitions")
	fs.StringVar(&outPath, "out", "", "append JSON lines here")
	fs.Parse(args)
	n := 1 << *logN
	gen := ring.NewNTTFriendlyPrimesGenerator(50, uint64(2*n))
	qs, _ := gen.NextAlternatingPrimes(*limbs - 1)
	g60 := ring.NewNTTFriendlyPrimesGenerator(60, uint64(2*n))
	q0, _ := g60.NextAlternatingPrime()
	qs = append([]uint64{q0}, qs...)
	ps, _ := gen.NextAlternatingPrimes(*np)
	ringQ, err := ring.NewRing(n, qs)
	if err != nil {
		panic(err)
	}
	ringP, err := ring.NewRing(n, ps)
	if err != nil {
		panic(err)
	}
	one := ringQ.AtLevel(0)
	a := ringQ.NewPoly()
	for i := range a.Coeffs {
		for j := range a.Coeffs[i] {
			a.Coeffs[i][j] = uint64(j*7919+i) % qs[i]
		}
	}
	b := ringQ.NewPoly()
	do := func(op string, fn func()) {
		med, mn := medianTime(*reps, 2, fn)
		emit(map[string]any{"op": op, "logN": *logN, "alpha": *alpha, "limbs_Q": *limbs, "limbs_P": *np,
			"median_s": med, "min_s": mn, "reps": *reps})
	}
	do("ntt(one 60-bit limb)", func() { one.NTT(a, b) })
	do("intt(one 60-bit limb)", func() { one.INTT(a, b) })
	oneB := ringQ.AtLevel(1)
	do("ntt(two limbs)", func() { oneB.NTT(a, b) })
	be := ring.NewBasisExtender(ringQ, ringP)
	pP := ringP.NewPoly()
	// ModUp from the first alpha Q primes to every P prime (Lattigo's ModUpQtoP at level alpha-1).
	do("modup(alpha -> P)", func() { be.ModUpQtoP(*alpha-1, *np-1, a, pP) })
	c := ringQ.NewPoly()
	do("moddown(QP -> Q, NTT form)", func() { be.ModDownQPtoQNTT(*limbs-1, *np-1, a, pP, c) })
	do("mul_coeffs_montgomery(all Q limbs)", func() { ringQ.MulCoeffsMontgomery(a, b, c) })
}
