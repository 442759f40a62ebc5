package runtime

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestEncoderCommas(t *testing.T) {
	var e Encoder
	e.BeginObject()
	e.Name("a")
	e.BeginArray()
	e.Int64(1)
	e.Int32(-2)
	e.BeginObject()
	e.EndObject()
	e.BeginArray()
	e.EndArray()
	e.Bool(true)
	e.Null()
	e.EndArray()
	e.Name("b")
	e.Number("")
	e.Name("c")
	e.Number("1.5e3")
	e.Name("d")
	e.Raw(nil)
	e.Name("e")
	e.Raw(json.RawMessage(`{"x":[1]}`))
	e.Name("f")
	WriteList[string](&e, nil, (*Encoder).String)
	e.Name("g")
	WriteMap(&e, map[string]int64{"z": 1, "a": 2, "m": 3}, (*Encoder).Int64)
	e.Name("h")
	WriteOpt(&e, Null[string](), (*Encoder).String)
	e.Name("i")
	WriteOpt(&e, Some("s"), (*Encoder).String)
	e.Name("j")
	WriteList(&e, []int32{1, 2}, (*Encoder).Int32)
	e.EndObject()
	want := `{"a":[1,-2,{},[],true,null],"b":0,"c":1.5e3,"d":null,"e":{"x":[1]},"f":[],` +
		`"g":{"a":2,"m":3,"z":1},"h":null,"i":"s","j":[1,2]}`
	if got := string(e.Bytes()); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if !json.Valid(e.Bytes()) {
		t.Error("invalid JSON")
	}
}

// TestEncoderStrings checks the escapes against encoding/json's without HTML escaping.
func TestEncoderStrings(t *testing.T) {
	var all strings.Builder
	for c := 0; c < 0x80; c++ {
		all.WriteByte(byte(c))
	}
	cases := []string{"", all.String(), "<a href=\"x\">&amp;</a>", "é😀\u2028\u2029\u00a0\ufeff",
		"\xff", "a\xe2\x82b", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\x7f", strings.Repeat("long ", 100)}
	for _, s := range cases {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		var e Encoder
		e.String(s)
		if got := string(e.Bytes()); got != strings.TrimSuffix(want.String(), "\n") {
			t.Errorf("%q:\n got %s\nwant %s", s, got, want.String())
		}
	}
	var e Encoder
	e.String("<>&")
	if string(e.Bytes()) != `"<>&"` {
		t.Errorf("HTML escaped: %s", e.Bytes())
	}
}

func TestEncoderDates(t *testing.T) {
	zone := time.FixedZone("", -(9*60+30)*60)
	at := time.Date(2024, 1, 2, 3, 4, 5, 100000000, zone)
	var e Encoder
	e.BeginArray()
	e.Date(Date{2024, 2, 9})
	e.DateTime(at)
	e.DateTime(at.UTC())
	e.DateOrDateTime(DateOnly(Date{1, 1, 1}))
	e.DateOrDateTime(At(at))
	e.DateTimeOrRange(Instant(at))
	e.DateTimeOrRange(Between(at, at.Add(time.Hour)))
	e.EndArray()
	// Fractions in milliseconds, microseconds or nanoseconds: .100, never .1.
	want := `["2024-02-09","2024-01-02T03:04:05.100-09:30","2024-01-02T12:34:05.100Z","0001-01-01",` +
		`"2024-01-02T03:04:05.100-09:30","2024-01-02T03:04:05.100-09:30",` +
		`["2024-01-02T03:04:05.100-09:30","2024-01-02T04:04:05.100-09:30"]]`
	if got := string(e.Bytes()); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for ns, text := range map[int]string{0: "05Z", 250_000_000: "05.250Z", 1_500: "05.000001500Z", 7_000: "05.000007Z"} {
		if got := string(appendDateTime(nil, time.Date(2024, 1, 2, 3, 4, 5, ns, time.UTC))); got != "2024-01-02T03:04:"+text {
			t.Errorf("%d ns: %s", ns, got)
		}
	}
	// And back: the Decoder reads what the Encoder writes, offsets kept.
	d := NewDecoder(e.Bytes())
	d.Array()
	d.Element()
	if v := d.Date(); v != (Date{2024, 2, 9}) {
		t.Errorf("date %v", v)
	}
	d.Element()
	if v := d.DateTime(); !v.Equal(at) || v.Format(time.RFC3339Nano) != at.Format(time.RFC3339Nano) {
		t.Errorf("date-time %v", v)
	}
	for d.Element() {
		d.Skip()
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
}
