package agreement

import (
	"encoding/json"
	"math"
	"strconv"
)

// Value is a coefficient that may be undefined. Agreement statistics divide
// by expected disagreement, which is zero when one class is used
// throughout, so a bare float64 would leak NaN or ±Inf into reports; Value
// carries the reason instead and encodes as a JSON number or null.
type Value struct {
	// V is the figure; meaningful only when OK is true.
	V float64
	// OK reports whether V is defined.
	OK bool
	// Why says why the value is undefined (empty when OK).
	Why string
}

// Defined returns a defined Value, or an undefined one when v is NaN or
// infinite, so that no arithmetic accident can reach the JSON encoder.
func Defined(v float64) Value {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Undefined("the computation gave no finite number")
	}
	return Value{V: v, OK: true}
}

// Undefined returns a Value that is undefined for the given reason.
func Undefined(why string) Value { return Value{Why: why} }

// String formats the value to three decimals, or "undefined".
func (v Value) String() string {
	if !v.OK {
		return "undefined"
	}
	return strconv.FormatFloat(v.V, 'f', 3, 64)
}

// MarshalJSON implements json.Marshaler: a number when defined, else null.
func (v Value) MarshalJSON() ([]byte, error) {
	if !v.OK || math.IsNaN(v.V) || math.IsInf(v.V, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v.V, 'g', -1, 64), nil
}

// UnmarshalJSON implements json.Unmarshaler so that stored reports (for
// example inside a card) read back: null becomes an undefined Value.
func (v *Value) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = Undefined("null in the source")
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*v = Value{V: f, OK: true}
	return nil
}

// ratio returns num/den as a Value, undefined with why when den is zero.
func ratio(num, den float64, why string) Value {
	if den == 0 || math.IsNaN(den) {
		return Undefined(why)
	}
	return Defined(num / den)
}
