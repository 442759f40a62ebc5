package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// mixedWalk copies the next value from d to e using most of the Decoder's API: Tag on
// objects, Raw for some members, Int64 where a number is an integer, Number otherwise.
func mixedWalk(d *Decoder, e *Encoder) {
	switch c := d.next(); {
	case c == '{':
		d.Tag("type")
		d.Object()
		e.BeginObject()
		for name, ok := d.Member(); ok; name, ok = d.Member() {
			e.Name(name)
			if len(name)%2 == 1 {
				e.Raw(d.Raw())
			} else {
				mixedWalk(d, e)
			}
		}
		e.EndObject()
	case c == '[':
		e.BeginArray()
		list := ReadList(d, func(d *Decoder) Opt[json.RawMessage] { return ReadOpt(d, (*Decoder).Raw) })
		for _, v := range list {
			WriteOpt(e, v, (*Encoder).Raw)
		}
		e.EndArray()
	case c == '"':
		e.String(d.String())
	case c == 't' || c == 'f':
		e.Bool(d.Bool())
	case c == 'n':
		d.Null()
		e.Null()
	default:
		mixedNumber(d, e)
	}
}

func mixedNumber(d *Decoder, e *Encoder) {
	end, ok := d.scanNumber()
	// Int64 where it writes the same text back: no fraction, exponent or -0.
	if ok && !bytes.ContainsAny(d.data[d.pos:end], ".eE") && end-d.pos < 19 &&
		!bytes.HasPrefix(d.data[d.pos:end], []byte("-0")) {
		e.Int64(d.Int64())
		return
	}
	e.Number(d.Number())
}

// sameValue reports whether two JSON documents hold the same value for encoding/json.
func sameValue(t *testing.T, a, b []byte) bool {
	var va, vb any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if err := da.Decode(&va); err != nil {
		t.Fatalf("%q: %v", a, err)
	}
	if err := db.Decode(&vb); err != nil {
		t.Fatalf("%q: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

func checkDecodeError(t *testing.T, data []byte, err error) {
	var de *DecodeError
	if !errors.As(err, &de) || de.Offset < 0 || de.Offset > len(data) || !strings.HasPrefix(de.Path, "$") {
		t.Fatalf("%q: bad error %#v", data, err)
	}
}

func FuzzDecoder(f *testing.F) {
	for _, doc := range roundTrips {
		f.Add([]byte(doc))
		f.Add([]byte(spaced(doc)))
	}
	for _, doc := range strictRefusals {
		f.Add([]byte(doc))
	}
	f.Add([]byte(`{"type":"a","x":[1,{"type":2}],"yy":"\ud800\udc00\ud800"}`))
	f.Add([]byte("[\"\xff\xfe\",1e400,-0.0,123456789012345678901234]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := json.Valid(data)
		d := NewDecoder(data)
		d.Skip()
		skipErr := d.Finish()
		if skipErr != nil {
			checkDecodeError(t, data, skipErr)
			if valid && !strings.Contains(skipErr.Error(), tooDeep) {
				t.Fatalf("%q: valid JSON refused: %v", data, skipErr)
			}
		} else if !valid {
			t.Fatalf("%q: invalid JSON accepted", data)
		}

		d = NewDecoder(data)
		raw := d.Raw()
		if rawErr := d.Finish(); (rawErr == nil) != (skipErr == nil) {
			t.Fatalf("%q: Skip gave %v, Raw %v", data, skipErr, rawErr)
		} else if rawErr == nil && (!json.Valid(raw) || !bytes.Equal(raw, bytes.Trim(data, " \t\r\n"))) {
			t.Fatalf("%q: Raw gave %q", data, raw)
		}

		d = NewDecoder(data)
		var e Encoder
		mixedWalk(d, &e)
		walkErr := d.Finish()
		if walkErr != nil {
			checkDecodeError(t, data, walkErr)
			if skipErr == nil && !strings.Contains(walkErr.Error(), "longer than 1000") {
				t.Fatalf("%q: Skip accepted it, the walk gave %v", data, walkErr)
			}
			return
		}
		if skipErr != nil {
			t.Fatalf("%q: Skip gave %v, the walk accepted it", data, skipErr)
		}
		if !json.Valid(e.Bytes()) || !sameValue(t, data, e.Bytes()) {
			t.Fatalf("%q: the walk wrote %q", data, e.Bytes())
		}
	})
}
