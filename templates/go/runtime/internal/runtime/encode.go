package runtime

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// Encoder appends compact JSON to a buffer. Its zero value is ready to use.
//
// Values written inside an array or object get their separating commas from the
// Encoder; a member is written as Name followed by its value. The Encoder does not
// check that calls nest properly: the generated code that drives it does.
type Encoder struct {
	buf []byte
	// comma tells whether a comma is due before the next value or name. One flag is
	// enough rather than a stack: a container starts with no comma due, and once it
	// ends a comma is due before whatever follows it in its parent, just as after a
	// scalar.
	comma bool
}

// Bytes returns the JSON written so far. It aliases the Encoder's buffer.
func (e *Encoder) Bytes() []byte { return e.buf }

// sep writes the comma a value needs when it is not the first in its container.
func (e *Encoder) sep() {
	if e.comma {
		e.buf = append(e.buf, ',')
	}
	e.comma = true
}

// open writes a container's opening bracket, after a comma unless it is the first value
// in its own container; its first value needs none.
func (e *Encoder) open(bracket byte) {
	e.sep()
	e.buf = append(e.buf, bracket)
	e.comma = false
}

// close writes a container's closing bracket; whatever follows it needs a comma.
func (e *Encoder) close(bracket byte) {
	e.buf = append(e.buf, bracket)
	e.comma = true
}

// BeginObject writes '{'.
func (e *Encoder) BeginObject() { e.open('{') }

// EndObject writes '}'.
func (e *Encoder) EndObject() { e.close('}') }

// BeginArray writes '['.
func (e *Encoder) BeginArray() { e.open('[') }

// EndArray writes ']'.
func (e *Encoder) EndArray() { e.close(']') }

// Name writes the next member's name and its colon, after a comma unless it is the
// object's first member.
func (e *Encoder) Name(name string) {
	e.sep()
	e.buf = appendQuoted(e.buf, name)
	e.buf = append(e.buf, ':')
	e.comma = false
}

// String writes s as a JSON string, escaped as encoding/json does but without its HTML
// escaping: <, > and & are written as they are. Invalid UTF-8 is written as \ufffd.
func (e *Encoder) String(s string) {
	e.sep()
	e.buf = appendQuoted(e.buf, s)
}

// Int64 writes v.
func (e *Encoder) Int64(v int64) {
	e.sep()
	e.buf = strconv.AppendInt(e.buf, v, 10)
}

// Int32 writes v.
func (e *Encoder) Int32(v int32) { e.Int64(int64(v)) }

// Bool writes true or false.
func (e *Encoder) Bool(v bool) {
	e.sep()
	e.buf = strconv.AppendBool(e.buf, v)
}

// Null writes null.
func (e *Encoder) Null() {
	e.sep()
	e.buf = append(e.buf, "null"...)
}

// Number writes n's text as it is, or 0 when n is empty (as encoding/json does). The
// text is not checked: a json.Number read by the Decoder is always valid.
func (e *Encoder) Number(n json.Number) {
	e.sep()
	if n == "" {
		e.buf = append(e.buf, '0')
		return
	}
	e.buf = append(e.buf, n...)
}

// Raw writes v's bytes as they are, or null when v is empty. The bytes are not
// checked: a json.RawMessage read by the Decoder is always valid.
func (e *Encoder) Raw(v json.RawMessage) {
	e.sep()
	if len(v) == 0 {
		e.buf = append(e.buf, "null"...)
		return
	}
	e.buf = append(e.buf, v...)
}

// Date writes v as a "YYYY-MM-DD" string.
func (e *Encoder) Date(v Date) {
	e.sep()
	e.buf = append(e.buf, '"')
	e.buf = v.appendTo(e.buf)
	e.buf = append(e.buf, '"')
}

// DateTime writes v as an RFC 3339 string: Z for UTC, and its fractional seconds, when
// it has any, as milliseconds, microseconds or nanoseconds (.250, never .25), as every
// client of the project writes them.
func (e *Encoder) DateTime(v time.Time) {
	e.sep()
	e.buf = append(e.buf, '"')
	e.buf = appendDateTime(e.buf, v)
	e.buf = append(e.buf, '"')
}

// appendDateTime appends v's text as Encoder.DateTime writes it.
func appendDateTime(b []byte, v time.Time) []byte {
	layout := "2006-01-02T15:04:05Z07:00"
	switch ns := v.Nanosecond(); {
	case ns == 0:
	case ns%1_000_000 == 0:
		layout = "2006-01-02T15:04:05.000Z07:00"
	case ns%1_000 == 0:
		layout = "2006-01-02T15:04:05.000000Z07:00"
	default:
		layout = "2006-01-02T15:04:05.000000000Z07:00"
	}
	return v.AppendFormat(b, layout)
}

// DateOrDateTime writes the date or the date-time v holds.
func (e *Encoder) DateOrDateTime(v DateOrDateTime) {
	if v.isTime {
		e.DateTime(v.time)
		return
	}
	e.Date(v.date)
}

// DateTimeOrRange writes a date-time, or a range as an array of its two ends.
func (e *Encoder) DateTimeOrRange(v DateTimeOrRange) {
	if !v.isRange {
		e.DateTime(v.from)
		return
	}
	e.BeginArray()
	e.DateTime(v.from)
	e.DateTime(v.to)
	e.EndArray()
}

// WriteOpt writes null when o is null and its value when it holds one. The caller
// leaves absent members out; an absent o given here is written as null.
func WriteOpt[T any](e *Encoder, o Opt[T], write func(*Encoder, T)) {
	if o.state != optSet {
		e.Null()
		return
	}
	write(e, o.value)
}

// WriteList writes list as an array; a nil list writes [].
func WriteList[T any](e *Encoder, list []T, write func(*Encoder, T)) {
	e.BeginArray()
	for _, v := range list {
		write(e, v)
	}
	e.EndArray()
}

// WriteMap writes m as an object with its keys sorted, so that the output is
// deterministic.
func WriteMap[T any](e *Encoder, m map[string]T, write func(*Encoder, T)) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.BeginObject()
	for _, k := range keys {
		e.Name(k)
		write(e, m[k])
	}
	e.EndObject()
}

// plain marks the ASCII bytes a JSON string holds as they are. Bytes from 0x80 are not
// plain: they need UTF-8 checking.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendQuoted writes s as a quoted JSON string, with encoding/json's escapes minus its
// HTML ones: U+2028 and U+2029 are still escaped, as JavaScript cannot hold them in a
// string literal.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			b = appendEscape(b, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		} else if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		} else {
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendEscape writes the escape of an ASCII byte that is not plain.
func appendEscape(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}
