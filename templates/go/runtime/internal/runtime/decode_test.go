package runtime

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// transcode copies the next value from d to e through the Decoder's API, as generated
// code would, recursing on containers (the Decoder caps their nesting).
func transcode(d *Decoder, e *Encoder) {
	switch c := d.next(); {
	case c == '{':
		d.Object()
		e.BeginObject()
		for name, ok := d.Member(); ok; name, ok = d.Member() {
			e.Name(name)
			transcode(d, e)
		}
		e.EndObject()
	case c == '[':
		d.Array()
		e.BeginArray()
		for d.Element() {
			transcode(d, e)
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
		e.Number(d.Number())
	}
}

var roundTrips = []string{
	`{}`,
	`[]`,
	`null`,
	`"x"`,
	`-1.5e-7`,
	`{"a":1,"b":[true,false,null],"c":{"d":"e","f":[]},"g":{}}`,
	`[[[]],[{}],{"":""}]`,
	`{"data":[{"id":"1","tags":["a","b"],"score":12.50,"n":-0},{"id":"2","tags":[],"score":1E+2}]}`,
	`{"text":"quote \" backslash \\ tab \t nl \n ctl \u0001 html <&> é 😀 \u2028"}`,
	`{"a b":{"c.d":[0,{"e":[1e5,2.0]}]}}`,
}

func TestRoundTrip(t *testing.T) {
	for _, doc := range roundTrips {
		for _, in := range []string{doc, spaced(doc)} {
			d := NewDecoder([]byte(in))
			var e Encoder
			transcode(d, &e)
			if err := d.Finish(); err != nil {
				t.Fatalf("%s: %v", in, err)
			}
			if got := string(e.Bytes()); got != doc {
				t.Errorf("round trip of %s\n got %s\nwant %s", in, got, doc)
			}
		}
	}
}

// spaced adds whitespace around every token of a compact document.
func spaced(doc string) string {
	var b strings.Builder
	inString := false
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		switch {
		case inString && c == '\\':
			b.WriteByte(c)
			i++
			b.WriteByte(doc[i])
			continue
		case c == '"':
			inString = !inString
		case !inString && strings.IndexByte("{}[],:", c) >= 0:
			b.WriteString(" \t\n\r")
			b.WriteByte(c)
			b.WriteString("\n ")
			continue
		}
		b.WriteByte(c)
	}
	return " " + b.String() + "\r\n"
}

func TestErrorPathsAndOffsets(t *testing.T) {
	doc := `{"data":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":1}]}`
	d := NewDecoder([]byte(doc))
	d.Object()
	for name, ok := d.Member(); ok; name, ok = d.Member() {
		if name != "data" {
			t.Fatalf("member %q", name)
		}
		ReadList(d, func(d *Decoder) string {
			var id string
			for d.Object(); ; {
				name, ok := d.Member()
				if !ok {
					return id
				}
				if name == "id" {
					id = d.String()
				}
			}
		})
	}
	want := "cannot decode $.data[3].id (byte 48): expected a string, got a number"
	if d.Err() == nil || d.Err().Error() != want || doc[48] != '1' {
		t.Fatalf("got %v\nwant %s", d.Err(), want)
	}
	// Sticky: later reads give zero values and keep the first error.
	if d.String() != "" || d.Object() || d.Element() || d.Finish().Error() != want {
		t.Fatal("the error is not sticky")
	}
}

// errorCases read a document with a function and expect an error.
var errorCases = []struct {
	doc  string
	read func(*Decoder)
	want string
}{
	{`{"a":{"b c":[1,2,tru]}}`, (*Decoder).Skip, `$.a["b c"][2] (byte 17): invalid literal, expected true`},
	{`{"x":{"y":[1,}]}`, readMemberRaw, `$.x.y[1] (byte 13): expected a value, got '}'`},
	{`{"é":{"k":"a\qb"}}`, (*Decoder).Skip, `$["é"].k (byte 13): invalid escape 'q' in a string`},
	{`{"a":1 "b":2}`, skipMembers, `$ (byte 7): expected ',' or '}' after an object member, got a string`},
	{`{"a":1,}`, skipMembers, `$ (byte 7): expected a member name, got '}'`},
	{`{"a":1,}`, (*Decoder).Skip, `$ (byte 7): expected a member name, got '}'`},
	{`{"a"1}`, skipMembers, `$ (byte 4): expected ':' after a member name, got a number`},
	{`[1,]`, readInts, `$[1] (byte 3): expected a value, got ']'`},
	{`[1,]`, (*Decoder).Skip, `$[1] (byte 3): expected a value, got ']'`},
	{`[1 2]`, readInts, `$ (byte 3): expected ',' or ']' after an array element, got a number`},
	{`[01]`, readInts, `$[0] (byte 2): invalid number "01"`},
	{`[1.]`, (*Decoder).Skip, `$[0] (byte 3): invalid number "1.]"`},
	{`{} x`, skipFinish, `$ (byte 3): expected the end of the input, got 'x'`},
	{`{"a":[`, (*Decoder).Skip, `$.a[0] (byte 6): expected a value, got the end of the input`},
	{`"abc`, (*Decoder).Skip, `$ (byte 4): unexpected end of the input in a string`},
	{`"a` + "\x01" + `"`, func(d *Decoder) { _ = d.String() }, `$ (byte 2): control character byte 0x01 in a string`},
	{`// c` + "\n1", (*Decoder).Skip, `$ (byte 0): expected a value, got '/'`},
	{`[NaN]`, (*Decoder).Skip, `$[0] (byte 1): expected a value, got 'N'`},
	{"\xef\xbb\xbf{}", (*Decoder).Skip, `$ (byte 0): expected a value, got '\ufeff'`},
	{`{"a":1}`, func(d *Decoder) { d.Element() }, `$ (byte 0): Element called outside of an open array`},
}

func readMemberRaw(d *Decoder) {
	d.Object()
	d.Member()
	d.Raw()
}

func skipMembers(d *Decoder) {
	d.Object()
	for _, ok := d.Member(); ok; _, ok = d.Member() {
		d.Skip()
	}
}

func readInts(d *Decoder) { ReadList(d, (*Decoder).Int64) }

func skipFinish(d *Decoder) {
	d.Skip()
	d.Finish()
}

func TestErrorMessages(t *testing.T) {
	for _, c := range errorCases {
		d := NewDecoder([]byte(c.doc))
		c.read(d)
		err := d.Err()
		if want := "cannot decode " + c.want; err == nil || err.Error() != want {
			t.Errorf("%q:\n got %v\nwant %s", c.doc, err, want)
		}
	}
}

func TestMissingDuplicateFail(t *testing.T) {
	doc := `{"data":{"a":1},"x":{"a":1,"a":2},"pet":{"kind":"zebra"}}`
	check := func(read func(*Decoder), want string) {
		t.Helper()
		d := NewDecoder([]byte(doc))
		d.Object()
		read(d)
		if err := d.Err(); err == nil || err.Error() != "cannot decode "+want {
			t.Errorf("got %v\nwant %s", err, want)
		}
	}
	check(func(d *Decoder) {
		d.Member()
		skipMembers(d)
		d.Missing("id")
	}, "$.data (byte 8): missing required member `id`")
	check(func(d *Decoder) {
		d.Member()
		d.Skip()
		d.Member()
		d.Object()
		d.Member()
		d.Skip()
		d.Member()
		d.Duplicate("a")
	}, "$.x (byte 27): member `a` given twice")
	check(func(d *Decoder) {
		for name, _ := d.Member(); name != "pet"; name, _ = d.Member() {
			d.Skip()
		}
		if tag, ok := d.Tag("kind"); !ok || tag != "zebra" {
			t.Fatalf("tag %q %v", tag, ok)
		}
		d.Fail(`unknown kind "zebra"`)
	}, `$.pet (byte 40): unknown kind "zebra"`)
}

func TestTag(t *testing.T) {
	cases := []struct {
		doc, tag string
		ok       bool
	}{
		{`{"type":"a"}`, "a", true},
		{` {"x":1,"data":{"type":"inner"},"list":[{"type":"no"}],"type":"outer"}`, "outer", true},
		{`{"data":{"type":"inner"}}`, "", false},
		{`{"type":1}`, "", false},
		{`{"type":null,"type":"b"}`, "", false},
		{`{"typ\u0065":"\u00e9"}`, "é", true},
		{`{"types":"a"}`, "", false},
		{`{}`, "", false},
		{`["type","a"]`, "", false},
		{`"type"`, "", false},
	}
	for _, c := range cases {
		d := NewDecoder([]byte(c.doc))
		tag, ok := d.Tag("type")
		if tag != c.tag || ok != c.ok || d.Err() != nil {
			t.Errorf("%s: got %q %v %v", c.doc, tag, ok, d.Err())
		}
		// Nothing was consumed: the whole value still reads.
		var e Encoder
		transcode(d, &e)
		if err := d.Finish(); err != nil {
			t.Errorf("%s: after Tag: %v", c.doc, err)
		}
	}
	d := NewDecoder([]byte(`{"a":{"b":[1,2,}],"type":"x"}`))
	if _, ok := d.Tag("type"); ok {
		t.Fatal("a malformed object gave a tag")
	}
	want := "cannot decode $.a.b[2] (byte 15): expected a value, got '}'"
	if d.Err() == nil || d.Err().Error() != want {
		t.Fatalf("got %v\nwant %s", d.Err(), want)
	}
}

func TestNestingCap(t *testing.T) {
	for _, open := range []string{"[", `{"a":`} {
		close := map[string]string{"[": "]", `{"a":`: "}"}[open]
		ok := strings.Repeat(open, maxDepth) + "0" + strings.Repeat(close, maxDepth)
		deep := strings.Repeat(open, maxDepth+1) + "0" + strings.Repeat(close, maxDepth+1)
		for _, read := range []func(*Decoder){(*Decoder).Skip, func(d *Decoder) { d.Raw() }, readAll} {
			if err := run(ok, read); err != nil {
				t.Errorf("%d levels refused: %v", maxDepth, err)
			}
			err := run(deep, read)
			if err == nil || !strings.Contains(err.Error(), tooDeep) {
				t.Errorf("%d levels: got %v", maxDepth+1, err)
			}
		}
	}
	// Far deeper input, as a hostile server could send, fails fast without recursion.
	if err := run(strings.Repeat("[", 1e6), (*Decoder).Skip); err == nil {
		t.Error("a million open brackets accepted")
	}
}

func readAll(d *Decoder) {
	var e Encoder
	transcode(d, &e)
}

func run(doc string, read func(*Decoder)) error {
	d := NewDecoder([]byte(doc))
	read(d)
	return d.Finish()
}

// strictRefusals are documents RFC 8259 refuses and encoding/json too.
var strictRefusals = []string{
	``, ` `, `[1,]`, `{"a":1,}`, `[,1]`, `{,}`, `01`, `-01`, `1.`, `.1`, `+1`, `1e`, `1e+`,
	`0x10`, `NaN`, `Infinity`, `-Infinity`, `'a'`, `{a:1}`, `{"a" 1}`, `[1 2]`, `tru`, `nul`,
	`True`, `null1`, `[1]]`, `{}}`, `/*c*/1`, `1 //c`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"\t\"",
	"\"\x00\"", `"a`, `"\`, `[`, `{`, `{"a"`, `{"a":`, `[1,`, "\xef\xbb\xbf1", `1 2`, `"\'"`,
	"\u00a01", `[1e1.5]`, `[-]`, `{"a":1}{}`, `{"a"::1}`,
}

func TestStrict(t *testing.T) {
	for _, doc := range strictRefusals {
		if json.Valid([]byte(doc)) {
			t.Fatalf("%q: encoding/json accepts it, fix the test", doc)
		}
		for _, read := range []func(*Decoder){(*Decoder).Skip, func(d *Decoder) { d.Raw() }, readAll} {
			if err := run(doc, read); err == nil {
				t.Errorf("%q accepted", doc)
			}
		}
	}
}

func TestReadHelpers(t *testing.T) {
	d := NewDecoder([]byte(`{"a":[],"b":[1,2],"c":{"x":null,"y":"s"},"d":{"k":1,"k":2}}`))
	d.Object()
	d.Member()
	if list := ReadList(d, (*Decoder).Int64); list == nil || len(list) != 0 {
		t.Errorf("[] gave %#v", list)
	}
	d.Member()
	if list := ReadList(d, (*Decoder).Int32); len(list) != 2 || list[1] != 2 {
		t.Errorf("[1,2] gave %v", list)
	}
	d.Member()
	m := ReadMap(d, func(d *Decoder) Opt[string] { return ReadOpt(d, (*Decoder).String) })
	if len(m) != 2 || !m["x"].IsNull() || m["y"] != Some("s") {
		t.Errorf("map gave %v", m)
	}
	d.Member()
	if m := ReadMap(d, (*Decoder).Int64); m != nil {
		t.Errorf("a name given twice gave %v", m)
	}
	if err := d.Err(); err == nil || err.Error() != "cannot decode $.d (byte 52): member `k` given twice" {
		t.Errorf("got %v", err)
	}
	d = NewDecoder([]byte(`"x"`))
	if o := ReadOpt(d, (*Decoder).Int64); o != (Opt[int64]{}) || d.Err() == nil {
		t.Errorf("a string read as an integer gave %v, %v", o, d.Err())
	}
}

func TestRaw(t *testing.T) {
	doc := ` { "a" : [ 1 , "x" ] , "b" : {"c":null} } `
	d := NewDecoder([]byte(doc))
	raws := []string{}
	d.Object()
	for _, ok := d.Member(); ok; _, ok = d.Member() {
		raws = append(raws, string(d.Raw()))
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
	if raws[0] != `[ 1 , "x" ]` || raws[1] != `{"c":null}` {
		t.Errorf("got %q", raws)
	}
	data := []byte(`"abc"`)
	raw := NewDecoder(data).Raw()
	data[1] = 'X'
	if string(raw) != `"abc"` {
		t.Error("Raw does not copy")
	}
}

func TestIsNullAndFinish(t *testing.T) {
	d := NewDecoder([]byte(" null "))
	first := d.IsNull()
	if !first || !d.IsNull() { // asked twice: a peek consumes nothing
		t.Fatal("IsNull is not a peek")
	}
	d.Null()
	if d.IsNull() || d.Finish() != nil {
		t.Fatal("null not consumed")
	}
	d = NewDecoder([]byte(`nullx`))
	d.Null()
	if d.Err() == nil {
		t.Error("nullx accepted")
	}
	d = NewDecoder([]byte(`{"a":1}`))
	d.Object()
	if err := d.Finish(); err == nil || !strings.Contains(err.Error(), "not read to its end") {
		t.Errorf("an unfinished object gave %v", err)
	}
	if NewDecoder(nil).Err() != nil {
		t.Error("Err is not nil before any error")
	}
}

func TestMemberNamesAreCopies(t *testing.T) {
	data := []byte(`{"name":1,"nam\u0065":2}`)
	d := NewDecoder(data)
	d.Object()
	a, _ := d.Member()
	d.Skip()
	b, _ := d.Member()
	copy(data, bytes.Repeat([]byte{'#'}, len(data)))
	if a != "name" || b != "name" {
		t.Errorf("names %q %q", a, b)
	}
}

func TestBareTellsARecordFromItsEnvelopeWithoutConsumingIt(t *testing.T) {
	knows := []string{"id", "name", "transaction"}
	for text, bare := range map[string]bool{
		`{"transaction":{"id":"1"}}`:                 false,
		`{"transaction":{"id":"1"},"served_by":"b"}`: false,
		`{"id":"1","name":"x"}`:                      true,
		`{"transaction":{"id":"7"},"id":"43"}`:       true,
		`{}`:                                         true,
		`[1]`:                                        false,
		`"x"`:                                        false,
	} {
		d := NewDecoder([]byte(text))
		if got := d.Bare("transaction", knows); got != bare {
			t.Errorf("%s: Bare is %v", text, got)
		}
		d.Skip()
		if err := d.Finish(); err != nil {
			t.Errorf("%s: after Bare, %v", text, err)
		}
	}
	d := NewDecoder([]byte(`{"transaction" 1}`))
	if d.Bare("transaction", knows) || d.Err() == nil {
		t.Error("a malformed object was taken for a record")
	}
}
