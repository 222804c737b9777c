// Lattigo v6 peer harness.
//
//	go run . ckks -logn 16 -limbs 16,24,32 -dnum 3 -reps 7
//	go run . boot -set dense0 -reps 3
//	go run . boot -set hekate-quick-dense -reps 3 -warmup 0
//	go run . prims -logn 16 -alpha 6 -limbs 16 -p 7 -reps 31
//	go run . bgv -logn 14,15 -scheme bgv,bfv -t 65537 -depth 10 -reps 7 [-set default|example14] [-warmup 1]
//
// bgv times Lattigo's integer scheme (schemes/bgv) as BGV (Mul + Rescale) and
// as BFV (the scale-invariant evaluator, MulScaleInvariant): encode, encrypt,
// tensor, relin, mult+relin, rescale, column rotation, hoisted rotations,
// decrypt, and an x^(2^depth) squaring chain checked slot by slot; see
// bgv_ops.go for the default moduli (-logq/-logp override them).
//
// Every result is printed as one JSON line (and appended to -out if given).
// Run with GOMAXPROCS=1 for single-threaded numbers.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

var outPath string

func emit(rec map[string]any) {
	rec["lib"] = "lattigo/v6.2.0"
	rec["gomaxprocs"] = runtime.GOMAXPROCS(0)
	b, _ := json.Marshal(rec)
	fmt.Println(string(b))
	if outPath != "" {
		f, err := os.OpenFile(outPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			f.Write(append(b, '\n'))
			f.Close()
		}
	}
}

func medianTime(reps, warmup int, fn func()) (med, min float64) {
	for i := 0; i < warmup; i++ {
		fn()
	}
	ts := make([]float64, reps)
	for i := 0; i < reps; i++ {
		t0 := time.Now()
		fn()
		ts[i] = time.Since(t0).Seconds()
	}
	return median(ts), minOf(ts)
}

// median returns the median of ts (the mean of the middle two for an even count).
func median(ts []float64) float64 {
	s := append([]float64(nil), ts...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// minOf returns the smallest of ts.
func minOf(ts []float64) float64 {
	m := math.Inf(1)
	for _, t := range ts {
		m = math.Min(m, t)
	}
	return m
}

func copyMap(m map[string]any) map[string]any {
	o := map[string]any{}
	for k, v := range m {
		o[k] = v
	}
	return o
}

func parseInts(s string) []int {
	var r []int
	for _, x := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil {
			panic(err)
		}
		r = append(r, v)
	}
	return r
}

func errStats(want, got []float64) (log2Max, log2Mean float64) {
	mx, sum := 0.0, 0.0
	for i := range want {
		e := math.Abs(want[i] - got[i])
		sum += e
		if e > mx {
			mx = e
		}
	}
	return math.Log2(mx), math.Log2(sum / float64(len(want)))
}

func randVec(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 2*r.Float64() - 1
	}
	return v
}

func main() {
	if len(os.Args) < 2 {
		fmt.Println("usage: lattigo-peers ckks|boot|bgv [flags]")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "ckks":
		runCKKS(os.Args[2:])
	case "boot":
		runBoot(os.Args[2:])
	case "bgv":
		runBGV(os.Args[2:])
	case "prims":
		runPrims(os.Args[2:])
	default:
		fmt.Println("unknown subcommand", os.Args[1])
		os.Exit(2)
	}
}
