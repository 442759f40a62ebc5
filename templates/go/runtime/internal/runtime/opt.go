package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The states of an Opt; absent must be 0 so that the zero Opt is absent.
const (
	optAbsent uint8 = iota
	optNull
	optSet
)

// Opt holds an optional value: absent (the zero Opt), null, or a value.
//
// Absent and null differ on the wire: an absent member is left out of the JSON sent,
// while a null one is sent as null (which, for a PATCH, typically clears the field).
type Opt[T any] struct {
	value T
	state uint8
}

// Some is an Opt holding v.
func Some[T any](v T) Opt[T] { return Opt[T]{value: v, state: optSet} }

// Null is an Opt holding an explicit null.
func Null[T any]() Opt[T] { return Opt[T]{state: optNull} }

// Get returns the value and true when o holds one (it is neither absent nor null).
func (o Opt[T]) Get() (T, bool) { return o.value, o.state == optSet }

// Value returns the value o holds, or T's zero value when it is absent or null.
func (o Opt[T]) Value() T { return o.value }

// Or returns the value o holds, or fallback when it is absent or null.
func (o Opt[T]) Or(fallback T) T {
	if o.state == optSet {
		return o.value
	}
	return fallback
}

// IsSet reports whether o holds a value.
func (o Opt[T]) IsSet() bool { return o.state == optSet }

// IsNull reports whether o holds an explicit null.
func (o Opt[T]) IsNull() bool { return o.state == optNull }

// IsZero reports whether o is absent, so that encoding/json's omitzero and the
// generated encoders leave it out while an explicit null is still sent.
func (o Opt[T]) IsZero() bool { return o.state == optAbsent }

// String returns "absent", "null", or the value as fmt.Sprint formats it.
func (o Opt[T]) String() string {
	switch o.state {
	case optSet:
		return fmt.Sprint(o.value)
	case optNull:
		return "null"
	}
	return "absent"
}

// MarshalJSON encodes the value with encoding/json, or null when o is null or absent:
// encoding/json cannot leave out a member unless its field is tagged omitzero.
func (o Opt[T]) MarshalJSON() ([]byte, error) {
	if o.state != optSet {
		return []byte("null"), nil
	}
	return json.Marshal(o.value)
}

// UnmarshalJSON sets o to Null for the literal null, and otherwise to Some of the value
// encoding/json decodes into a T.
func (o *Opt[T]) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		*o = Null[T]()
		return nil
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*o = Some(v)
	return nil
}
