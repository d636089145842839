// Package quantity reads the CPU counts and memory sizes of set files, exactly
// (no floating point): config checks and hashes them with it, the planner
// gives them to the engine.
package quantity

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

var cpusRe = regexp.MustCompile(`^([0-9]*)(?:\.([0-9]+))?$`)

// CPUs parses a CPU count such as "0.5" or "2" into nano CPUs (Docker's
// NanoCPUs), exactly: no floating point, at most 9 decimal places.
func CPUs(s string) (int64, error) {
	m := cpusRe.FindStringSubmatch(s)
	if m == nil || m[1]+m[2] == "" {
		return 0, fmt.Errorf("%q is not a positive decimal number of CPUs", s)
	}
	whole, frac := m[1], strings.TrimRight(m[2], "0")
	if len(frac) > 9 {
		return 0, fmt.Errorf("%q has more than 9 decimal places", s)
	}
	var n int64
	if whole != "" {
		w, err := strconv.ParseInt(whole, 10, 64)
		if err != nil || w > (math.MaxInt64-999_999_999)/1_000_000_000 {
			return 0, fmt.Errorf("%q is too large", s)
		}
		n = w * 1e9
	}
	if frac != "" {
		f, _ := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
		n += f
	}
	if n == 0 {
		return 0, fmt.Errorf("%q must be greater than 0", s)
	}
	return n, nil
}

var memoryRe = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?) ?([a-zA-Z]*)$`)

// memoryUnits are binary whatever the spelling: Kubernetes users write Mi,
// Docker users write m or M, and both mean MiB to them.
var memoryUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1 << 10, "kb": 1 << 10, "ki": 1 << 10, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mi": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gi": 1 << 30, "gib": 1 << 30,
	"t": 1 << 40, "tb": 1 << 40, "ti": 1 << 40, "tib": 1 << 40,
}

// Memory parses a memory size into bytes: a number of bytes ("1048576")
// or a number with a binary unit ("256Mi", "1Gi", "512M", "1g", "1.5g").
func Memory(s string) (int64, error) {
	m := memoryRe.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("%q is not a memory size (like 256Mi, 1Gi, 512m or a number of bytes)", s)
	}
	unit, ok := memoryUnits[strings.ToLower(m[2])]
	if !ok {
		return 0, fmt.Errorf("%q has an unknown unit %q (use Ki, Mi, Gi, Ti, or k, m, g, t)", s, m[2])
	}
	r, _ := new(big.Rat).SetString(m[1])
	r.Mul(r, new(big.Rat).SetInt64(unit))
	bytes := new(big.Int).Quo(r.Num(), r.Denom())
	if !bytes.IsInt64() {
		return 0, fmt.Errorf("%q is too large", s)
	}
	if bytes.Sign() == 0 {
		return 0, fmt.Errorf("%q must be greater than 0", s)
	}
	return bytes.Int64(), nil
}
