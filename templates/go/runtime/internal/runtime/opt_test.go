package runtime

import (
	"encoding/json"
	"testing"
)

func TestOptStates(t *testing.T) {
	var absent Opt[int]
	null, set, zero := Null[int](), Some(7), Some(0)
	cases := []struct {
		o                    Opt[int]
		isSet, isNull, isZer bool
		value, or            int
		str                  string
	}{
		{absent, false, false, true, 0, -1, "absent"},
		{null, false, true, false, 0, -1, "null"},
		{set, true, false, false, 7, 7, "7"},
		{zero, true, false, false, 0, 0, "0"},
	}
	for _, c := range cases {
		v, ok := c.o.Get()
		if ok != c.isSet || v != c.value || c.o.IsSet() != c.isSet || c.o.IsNull() != c.isNull ||
			c.o.IsZero() != c.isZer || c.o.Value() != c.value || c.o.Or(-1) != c.or || c.o.String() != c.str {
			t.Errorf("%s: wrong state", c.str)
		}
	}
	if absent == null || null == zero {
		t.Error("states compare equal")
	}
}

type withOpts struct {
	A Opt[int]    `json:"a,omitzero"`
	B Opt[string] `json:"b,omitzero"`
	C Opt[[]int]  `json:"c,omitzero"`
	D Opt[int]    `json:"d"`
}

func TestOptEncodingJSON(t *testing.T) {
	in := withOpts{A: Some(1), B: Null[string]()}
	b, err := json.Marshal(in)
	if err != nil || string(b) != `{"a":1,"b":null,"d":null}` {
		t.Fatalf("Marshal: %s %v", b, err)
	}
	var out withOpts
	if err := json.Unmarshal([]byte(`{"a":1,"b":null,"c":[1,2]}`), &out); err != nil {
		t.Fatal(err)
	}
	if out.A != Some(1) || !out.B.IsNull() || len(out.C.Value()) != 2 || !out.D.IsZero() {
		t.Errorf("Unmarshal: %+v", out)
	}
	if err := json.Unmarshal([]byte(`{"a":"x"}`), &out); err == nil {
		t.Error("a string accepted for Opt[int]")
	}
	var o Opt[int]
	if err := o.UnmarshalJSON([]byte(" null ")); err != nil || !o.IsNull() {
		t.Errorf("null gave %v %v", o, err)
	}
}
