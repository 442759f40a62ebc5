package runtime

import (
	"encoding/json"
	"math"
	"strconv"
	"time"
)

// This file holds the Decoder's scalar reads.

// String reads a string. It makes *Decoder a fmt.Stringer by its name only: printing
// a Decoder with fmt would read a value, so do not.
func (d *Decoder) String() string {
	b, _, ok := d.text("a string")
	if !ok {
		return ""
	}
	return string(b)
}

// text reads a string and returns its text, valid until the next read, and its offset.
func (d *Decoder) text(expected string) ([]byte, int, bool) {
	if d.err != nil {
		return nil, 0, false
	}
	if d.next() != '"' {
		d.typeError(expected)
		return nil, 0, false
	}
	start := d.pos
	b, ok := d.stringBytes()
	return b, start, ok
}

// Int64 reads a number that is a whole number fitting an int64. Whole numbers written
// with a fraction or an exponent, such as 1.0 or 1e2, are accepted; 1.5 is not.
func (d *Decoder) Int64() int64 {
	v, _ := d.integer(64)
	return v
}

// Int32 reads a number that is a whole number fitting an int32, as Int64 does.
func (d *Decoder) Int32() int32 {
	v, _ := d.integer(32)
	return int32(v)
}

func (d *Decoder) integer(bits uint) (int64, bool) {
	if d.err != nil {
		return 0, false
	}
	if !isNumberStart(d.next()) {
		d.typeError("an integer")
		return 0, false
	}
	start := d.pos
	end, ok := d.scanNumber()
	if !ok {
		return 0, false
	}
	v, message := parseInteger(d.data[start:end], bits)
	if message != "" {
		d.fail(start, message)
		return 0, false
	}
	d.pos = end
	return v, true
}

func isNumberStart(c int) bool { return c == '-' || c >= '0' && c <= '9' }

// parseInteger converts a number's checked text to an integer of that many bits, or
// returns why it cannot.
func parseInteger(text []byte, bits uint) (int64, string) {
	neg := text[0] == '-'
	digits := text
	if neg {
		digits = text[1:]
	}
	if len(digits) <= 18 && digitsEnd(digits, 0) == len(digits) {
		// The common case: up to 18 digits cannot overflow an int64.
		var v int64
		for _, c := range digits {
			v = v*10 + int64(c-'0')
		}
		if neg {
			v = -v
		}
		if bits < 64 && (v < math.MinInt32 || v > math.MaxInt32) {
			return 0, outOfRange(text, bits)
		}
		return v, ""
	}
	u, whole := wholeMagnitude(digits)
	limit := uint64(1) << (bits - 1)
	switch {
	case !whole:
		return 0, "expected an integer, got " + numberText(text)
	case u == math.MaxUint64 || u > limit || u == limit && !neg:
		return 0, outOfRange(text, bits)
	case neg:
		return -int64(u), "" // right for -limit too, by wrapping
	}
	return int64(u), ""
}

// wholeMagnitude returns the value of an unsigned number's checked text, with
// math.MaxUint64 standing for "too large", and whether it is a whole number. It reads
// the number as its digits (integer and fraction parts together) times a power of
// ten, so that 1.50e1 is whole and 100e-2 is 1, exactly, without floating point.
func wholeMagnitude(text []byte) (uint64, bool) {
	intEnd := digitsEnd(text, 0)
	intPart, rest := text[:intEnd], text[intEnd:]
	var frac []byte
	if len(rest) > 0 && rest[0] == '.' {
		end := digitsEnd(rest, 1)
		frac, rest = rest[1:end], rest[end:]
	}
	exp := 0
	if len(rest) > 0 { // e or E, an optional sign, digits
		rest = rest[1:]
		negExp := rest[0] == '-'
		if rest[0] == '-' || rest[0] == '+' {
			rest = rest[1:]
		}
		for _, c := range rest {
			if exp < 1e6 { // saturate: any larger exponent decides the same way
				exp = exp*10 + int(c-'0')
			}
		}
		if negExp {
			exp = -exp
		}
	}
	n := len(intPart) + len(frac)
	digit := func(i int) byte {
		if i < len(intPart) {
			return intPart[i]
		}
		return frac[i-len(intPart)]
	}
	first, last := 0, n-1
	for first < n && digit(first) == '0' {
		first++
	}
	if first == n {
		return 0, true
	}
	for digit(last) == '0' {
		last--
	}
	scale := exp - len(frac) + (n - 1 - last) // the power of ten after the last nonzero digit
	switch {
	case scale < 0:
		return 0, false
	case last-first+1+scale > 19: // 19 digits always fit a uint64
		return math.MaxUint64, true
	}
	var u uint64
	for i := first; i <= last; i++ {
		u = u*10 + uint64(digit(i)-'0')
	}
	for ; scale > 0; scale-- {
		u *= 10
	}
	return u, true
}

func outOfRange(text []byte, bits uint) string {
	return "integer " + numberText(text) + " does not fit in " + strconv.Itoa(int(bits)) + " bits"
}

// numberText shortens a number's text for a message.
func numberText(text []byte) string {
	if len(text) > 40 {
		return string(text[:40]) + "..."
	}
	return string(text)
}

// Bool reads true or false.
func (d *Decoder) Bool() bool {
	if d.err != nil {
		return false
	}
	switch d.next() {
	case 't':
		return d.literal("true")
	case 'f':
		d.literal("false")
		return false
	}
	d.typeError("a boolean")
	return false
}

// Number reads a number and returns its exact text. Numbers longer than 1000
// characters are refused, so that a hostile document cannot make the caller convert
// a huge one.
func (d *Decoder) Number() json.Number {
	if d.err != nil {
		return ""
	}
	if !isNumberStart(d.next()) {
		d.typeError("a number")
		return ""
	}
	start := d.pos
	end, ok := d.scanNumber()
	if !ok {
		return ""
	}
	if end-start > maxNumberLen {
		d.fail(start, "number longer than 1000 characters")
		return ""
	}
	d.pos = end
	return json.Number(d.data[start:end])
}

// Date reads a string holding a date, "YYYY-MM-DD".
func (d *Decoder) Date() Date {
	b, start, ok := d.text("a date")
	if !ok {
		return Date{}
	}
	v, ok := parseDate(b)
	if !ok {
		d.fail(start, "expected a date (YYYY-MM-DD), got "+snippet(b))
	}
	return v
}

// DateTime reads a string holding a date-time in any of the ISO 8601 forms the service
// writes, keeping its offset: RFC 3339 (a 'T', 't' or space between date and time, a
// '.' or ',' before fractional seconds), seconds left out, no offset (taken as UTC, as
// every client of the project takes it), ±hh, ±hhmm or ±hh:mm, or a bare date
// (midnight UTC). Z gives time.UTC, other offsets a fixed zone. Leap seconds (:60) are
// refused, as time refuses them.
func (d *Decoder) DateTime() time.Time {
	b, start, ok := d.text("a date-time")
	if !ok {
		return time.Time{}
	}
	t, ok := d.parseDateTime(b)
	if !ok {
		d.fail(start, "expected an ISO 8601 date-time, got "+snippet(b))
	}
	return t
}

// parseDateTime parses a date-time as DateTime describes.
func (d *Decoder) parseDateTime(b []byte) (time.Time, bool) {
	if len(b) < 10 {
		return time.Time{}, false
	}
	date, ok := parseDate(b[:10])
	if !ok {
		return time.Time{}, false
	}
	if len(b) == 10 {
		return time.Date(date.Year, date.Month, date.Day, 0, 0, 0, 0, time.UTC), true
	}
	if sep := b[10]; sep != 'T' && sep != 't' && sep != ' ' || len(b) < 16 || b[13] != ':' {
		return time.Time{}, false
	}
	hour, ok1 := digits(b[11:13])
	minute, ok2 := digits(b[14:16])
	sec, nsec, rest, ok3 := seconds(b[16:])
	if !ok1 || !ok2 || !ok3 || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	loc, ok := d.zoneOf(rest)
	if !ok {
		return time.Time{}, false
	}
	return time.Date(date.Year, date.Month, date.Day, hour, minute, sec, nsec, loc), true
}

// seconds reads what may follow a date-time's minutes: ":ss" and a fraction after '.'
// or ',' (digits past nanoseconds dropped, as time drops them), and gives the rest.
func seconds(b []byte) (sec, nsec int, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != ':' {
		return 0, 0, b, true
	}
	if len(b) < 3 {
		return 0, 0, nil, false
	}
	if sec, ok = digits(b[1:3]); !ok {
		return 0, 0, nil, false
	}
	rest = b[3:]
	if len(rest) > 0 && (rest[0] == '.' || rest[0] == ',') {
		end := digitsEnd(rest, 1)
		if end == 1 {
			return 0, 0, nil, false
		}
		for i := 1; i <= 9; i++ {
			nsec *= 10
			if i < end {
				nsec += int(rest[i] - '0')
			}
		}
		rest = rest[end:]
	}
	return sec, nsec, rest, true
}

// zoneOf parses a date-time's offset (none or Z: UTC; ±hh, ±hhmm or ±hh:mm) into a
// location, caching the last fixed zone so that a document full of the same offset
// allocates it once.
func (d *Decoder) zoneOf(b []byte) (*time.Location, bool) {
	if len(b) == 0 || len(b) == 1 && (b[0] == 'Z' || b[0] == 'z') {
		return time.UTC, true
	}
	if b[0] != '+' && b[0] != '-' {
		return nil, false
	}
	hm := b[1:]
	if len(hm) == 5 && hm[2] == ':' {
		hm = []byte{hm[0], hm[1], hm[3], hm[4]}
	}
	if len(hm) != 2 && len(hm) != 4 {
		return nil, false
	}
	h, ok := digits(hm[:2])
	m := 0
	if len(hm) == 4 {
		var okM bool
		m, okM = digits(hm[2:])
		ok = ok && okM
	}
	if !ok || h > 23 || m > 59 {
		return nil, false
	}
	off := (h*60 + m) * 60
	if b[0] == '-' {
		off = -off
	}
	if off == 0 {
		return time.UTC, true
	}
	if d.zone == nil || d.zoneOff != off {
		d.zone, d.zoneOff = time.FixedZone("", off), off
	}
	return d.zone, true
}

// DateOrDateTime reads a string holding a date, or a date-time as DateTime reads one.
func (d *Decoder) DateOrDateTime() DateOrDateTime {
	b, start, ok := d.text("a date or a date-time")
	if !ok {
		return DateOrDateTime{}
	}
	if len(b) == len("2006-01-02") {
		if v, ok := parseDate(b); ok {
			return DateOnly(v)
		}
	} else if t, ok := d.parseDateTime(b); ok {
		return At(t)
	}
	d.fail(start, "expected a date or an ISO 8601 date-time, got "+snippet(b))
	return DateOrDateTime{}
}

// DateTimeOrRange reads a string holding an RFC 3339 date-time, or an array of exactly
// two of them: a range.
func (d *Decoder) DateTimeOrRange() DateTimeOrRange {
	if d.err != nil {
		return DateTimeOrRange{}
	}
	switch d.next() {
	case '"':
		return Instant(d.DateTime())
	case '[':
	default:
		d.typeError("a date-time or an array of two date-times")
		return DateTimeOrRange{}
	}
	const want = "expected an array of exactly two date-times"
	d.Array()
	var ends [2]time.Time
	for i := range ends {
		if !d.Element() {
			d.fail(d.closed, want)
			return DateTimeOrRange{}
		}
		ends[i] = d.DateTime()
	}
	if d.Element() {
		d.fail(d.pos, want)
	}
	if d.err != nil {
		return DateTimeOrRange{}
	}
	return Between(ends[0], ends[1])
}
