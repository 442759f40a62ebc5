package runtime

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// scalarCase reads doc with one scalar method: want is the value's fmt form, or the
// error message after the path and offset when it starts with "!".
type scalarCase struct {
	doc, want string
}

func checkScalars[T any](t *testing.T, read func(*Decoder) T, format func(T) string, cases []scalarCase) {
	t.Helper()
	for _, c := range cases {
		d := NewDecoder([]byte(c.doc))
		v := read(d)
		err := d.Finish()
		got := format(v)
		if err != nil {
			msg := err.Error()
			got = "!" + msg[strings.Index(msg, "): ")+3:]
			var zero T
			if format(v) != format(zero) && !strings.Contains(msg, "end of the input, got") {
				t.Errorf("%s: an error and the value %s", c.doc, format(v))
			}
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.doc, got, c.want)
		}
	}
}

func str[T any](v T) string { return strings.TrimSpace(strings.ReplaceAll(jsonText(v), `"`, "")) }

func jsonText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case time.Time:
		return v.Format(time.RFC3339Nano)
	case interface{ String() string }:
		return v.String()
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func TestInt64(t *testing.T) {
	checkScalars(t, (*Decoder).Int64, str[int64], []scalarCase{
		{`0`, "0"}, {`-0`, "0"}, {` 123 `, "123"}, {`1.0`, "1"}, {`1e2`, "100"}, {`1E+2`, "100"},
		{`100e-2`, "1"}, {`1.50e1`, "15"}, {`0.0e999999999999`, "0"}, {`-0.0`, "0"},
		{`9223372036854775807`, "9223372036854775807"}, {`-9223372036854775808`, "-9223372036854775808"},
		{`12345678901234567890e-1`, "1234567890123456789"}, {`9.223372036854775807e18`, "9223372036854775807"},
		{`000`, "!invalid number \"00\""},
		{`1.5`, "!expected an integer, got 1.5"}, {`1e-1`, "!expected an integer, got 1e-1"},
		{`9223372036854775808`, "!integer 9223372036854775808 does not fit in 64 bits"},
		{`-9223372036854775809`, "!integer -9223372036854775809 does not fit in 64 bits"},
		{`1e19`, "!integer 1e19 does not fit in 64 bits"},
		{`1e99999999999999999999`, "!integer 1e99999999999999999999 does not fit in 64 bits"},
		{`"1"`, "!expected an integer, got a string"}, {`true`, "!expected an integer, got a boolean"},
		{`null`, "!expected an integer, got null"}, {``, "!expected an integer, got the end of the input"},
		{`01`, "!invalid number \"01\""}, {`-`, "!invalid number \"-\""}, {`1e`, "!invalid number \"1e\""},
		{`.5`, "!expected an integer, got '.'"}, {`+1`, "!expected an integer, got '+'"},
		{`NaN`, "!expected an integer, got 'N'"}, {`1 2`, "!expected the end of the input, got a number"},
	})
}

func TestInt32(t *testing.T) {
	checkScalars(t, (*Decoder).Int32, str[int32], []scalarCase{
		{`2147483647`, "2147483647"}, {`-2147483648`, "-2147483648"}, {`2.147483647e9`, "2147483647"},
		{`2147483648`, "!integer 2147483648 does not fit in 32 bits"},
		{`-2147483649`, "!integer -2147483649 does not fit in 32 bits"},
		{`1e10`, "!integer 1e10 does not fit in 32 bits"},
		{`99999999999999999999`, "!integer 99999999999999999999 does not fit in 32 bits"},
	})
}

func TestNumber(t *testing.T) {
	long := "1" + strings.Repeat("0", maxNumberLen)
	checkScalars(t, (*Decoder).Number, str[json.Number], []scalarCase{
		{`-1.5e-3`, "-1.5e-3"}, {`0`, "0"}, {`1E+400`, "1E+400"}, {long[:maxNumberLen], long[:maxNumberLen]},
		{long, "!number longer than 1000 characters"}, {`1.e1`, "!invalid number \"1.e\""},
		{`"1"`, "!expected a number, got a string"}, {`-a`, "!invalid number \"-a\""},
	})
}

func TestBool(t *testing.T) {
	checkScalars(t, (*Decoder).Bool, str[bool], []scalarCase{
		{`true`, "true"}, {` false `, "false"},
		{`tru`, "!invalid literal, expected true"}, {`truex`, "!invalid literal, expected true"},
		{`True`, "!expected a boolean, got 'T'"}, {`1`, "!expected a boolean, got a number"},
		{`"true"`, "!expected a boolean, got a string"}, {`[true]`, "!expected a boolean, got an array"},
	})
}

func TestString(t *testing.T) {
	checkScalars(t, (*Decoder).String, func(s string) string { return s }, []scalarCase{
		{`"plain"`, "plain"}, {`""`, ""}, {`"a\u00e9\ud83d\ude00\n\t\/\"\\"`, "aé😀\n\t/\"\\"},
		{`"\ud800x"`, "\uFFFDx"}, {`"\ud800\u0041"`, "\uFFFDA"}, {`"\udc00\ud800"`, "\uFFFD\uFFFD"},
		{`"\ud800\ud800\udc00"`, "\uFFFD\U00010000"}, {"\"\xff\xe2\x82\"", "\uFFFD\uFFFD\uFFFD"},
		{"\"\xed\xa0\x80\"", "\uFFFD\uFFFD\uFFFD"}, {"\"é\x80<>&\"", "é\uFFFD<>&"},
		{`"\x"`, "!invalid escape 'x' in a string"}, {`"\u12"`, `!invalid \u escape in a string`},
		{`"\U0041"`, "!invalid escape 'U' in a string"}, {"\"a\nb\"", "!control character byte 0x0a in a string"},
		{`"abc`, "!unexpected end of the input in a string"}, {`"abc\`, "!unexpected end of the input in a string"},
		{`1`, "!expected a string, got a number"}, {`{}`, "!expected a string, got an object"},
	})
}

// TestStringsLikeEncodingJSON checks decoding against encoding/json's on strings
// mixing escapes, surrogates and invalid UTF-8.
func TestStringsLikeEncodingJSON(t *testing.T) {
	parts := []string{"a", "é", "😀", `\u00e9`, `\ud83d`, `\ude00`, `\ud83d\ude00`, "\xff", "\xe2\x82",
		"\xed\xa0\x80", "\xf4\x90\x80\x80", `\n`, `\\`, `\"`, `\/`, "<", "\u2028", `\u0000`, `\uFFFF`}
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				doc := `"` + a + b + c + `"`
				var want string
				if err := json.Unmarshal([]byte(doc), &want); err != nil {
					t.Fatalf("%s: %v", doc, err)
				}
				d := NewDecoder([]byte(doc))
				if got := d.String(); got != want || d.Finish() != nil {
					t.Errorf("%s: got %q want %q (%v)", doc, got, want, d.Err())
				}
			}
		}
	}
}

func TestNull(t *testing.T) {
	checkScalars(t, func(d *Decoder) string { d.Null(); return "" }, func(s string) string { return s }, []scalarCase{
		{`null`, ""}, {`nul`, "!invalid literal, expected null"}, {`0`, "!expected null, got a number"},
	})
}

func TestDate(t *testing.T) {
	checkScalars(t, (*Decoder).Date, Date.String, []scalarCase{
		{`"2024-02-29"`, "2024-02-29"}, {`"0001-01-01"`, "0001-01-01"}, {`"2000-02-29"`, "2000-02-29"},
		{`"2023-02-29"`, `!expected a date (YYYY-MM-DD), got "2023-02-29"`},
		{`"1900-02-29"`, `!expected a date (YYYY-MM-DD), got "1900-02-29"`},
		{`"2024-13-01"`, `!expected a date (YYYY-MM-DD), got "2024-13-01"`},
		{`"2024-1-01"`, `!expected a date (YYYY-MM-DD), got "2024-1-01"`},
		{`"2024-01-02T00:00:00Z"`, `!expected a date (YYYY-MM-DD), got "2024-01-02T00:00:00Z"`},
		{`"+024-01-01"`, `!expected a date (YYYY-MM-DD), got "+024-01-01"`},
		{`20240101`, `!expected a date, got a number`},
	})
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	name, off := t.Zone()
	return t.Format(time.RFC3339Nano) + " " + name + "/" + jsonText(off)
}

func TestDateTime(t *testing.T) {
	bad := func(s string) scalarCase {
		return scalarCase{`"` + s + `"`, `!expected an ISO 8601 date-time, got "` + s + `"`}
	}
	checkScalars(t, (*Decoder).DateTime, formatTime, []scalarCase{
		{`"2024-01-02T03:04:05Z"`, "2024-01-02T03:04:05Z UTC/0"},
		{`"2024-01-02t03:04:05.123456789z"`, "2024-01-02T03:04:05.123456789Z UTC/0"},
		{`"2024-01-02T03:04:05.1+02:00"`, "2024-01-02T03:04:05.1+02:00 /7200"},
		{`"2024-01-02T03:04:05.1234567891-09:30"`, "2024-01-02T03:04:05.123456789-09:30 /-34200"},
		{`"2024-01-02T03:04:05+00:00"`, "2024-01-02T03:04:05Z UTC/0"},
		{`"2024-02-29T23:59:59.000Z"`, "2024-02-29T23:59:59Z UTC/0"},
		// The other ISO 8601 forms the service writes: no offset (UTC), a space, a comma,
		// no seconds, ±hh and ±hhmm offsets, a bare date (midnight UTC).
		{`"2024-01-02T03:04:05"`, "2024-01-02T03:04:05Z UTC/0"},
		{`"2024-01-02 03:04:05,1Z"`, "2024-01-02T03:04:05.1Z UTC/0"},
		{`"2024-01-02T03:04"`, "2024-01-02T03:04:00Z UTC/0"},
		{`"2024-01-02T03:04:05+0200"`, "2024-01-02T03:04:05+02:00 /7200"},
		{`"2024-01-02T03:04:05-05"`, "2024-01-02T03:04:05-05:00 /-18000"},
		{`"2024-01-02"`, "2024-01-02T00:00:00Z UTC/0"},
		bad("2024-01-02T3:04:05Z"), bad("2024-01-02T03:04:5Z"), bad("2024-01-02T03:04:05+2"),
		bad("2024-01-02T24:00:00Z"), bad("2024-01-02T03:04:60Z"), bad("2024-01-02T03:04:05+24:00"),
		bad("2024-01-02x03:04:05Z"), bad("2024-01-02T03:04:05.Z"), bad("2023-02-29T03:04:05Z"),
		bad("2024-01-02T03:04:05+02:0"), bad("2024-01-02T03:04:05Zx"), bad("2024-01-0"),
		{`1`, "!expected a date-time, got a number"},
	})
}

func TestDateOrDateTime(t *testing.T) {
	checkScalars(t, (*Decoder).DateOrDateTime, DateOrDateTime.String, []scalarCase{
		{`"2024-01-02"`, "2024-01-02"}, {`"2024-01-02T03:04:05+01:00"`, "2024-01-02T03:04:05+01:00"},
		{`"2024-01-0"`, `!expected a date or an ISO 8601 date-time, got "2024-01-0"`},
		{`"2024-01-32"`, `!expected a date or an ISO 8601 date-time, got "2024-01-32"`},
		{`null`, `!expected a date or a date-time, got null`},
	})
	d := NewDecoder([]byte(`"2024-01-02"`))
	if v, ok := d.DateOrDateTime().Date(); !ok || v != (Date{2024, 1, 2}) {
		t.Errorf("got %v %v", v, ok)
	}
}

func TestDateTimeOrRange(t *testing.T) {
	const a, b = `"2024-01-02T03:04:05Z"`, `"2024-01-03T00:00:00-01:00"`
	checkScalars(t, (*Decoder).DateTimeOrRange, DateTimeOrRange.String, []scalarCase{
		{a, "2024-01-02T03:04:05Z"}, {"[" + a + "," + b + "]", "2024-01-02T03:04:05Z/2024-01-03T00:00:00-01:00"},
		{`[]`, "!expected an array of exactly two date-times"},
		{"[" + a + "]", "!expected an array of exactly two date-times"},
		{"[" + a + "," + a + "," + a + "]", "!expected an array of exactly two date-times"},
		{"[1," + a + "]", "!expected a date-time, got a number"},
		{`5`, "!expected a date-time or an array of two date-times, got a number"},
	})
	d := NewDecoder([]byte("[" + a + "," + a + "," + a + "]"))
	d.DateTimeOrRange()
	if err := d.Err(); err == nil || !strings.HasPrefix(err.Error(), "cannot decode $[2] (byte 47)") {
		t.Errorf("got %v", err)
	}
}
