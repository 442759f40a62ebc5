package runtime

import (
	"errors"
	"strconv"
	"time"
)

// Date is a calendar date without a time or a zone, written "YYYY-MM-DD" (RFC 3339's
// full-date).
type Date struct {
	// Year is the year, written with four digits.
	Year int
	// Month is the month of the year.
	Month time.Month
	// Day is the day of the month, 1 to 31.
	Day int
}

// ParseDate parses a date written "YYYY-MM-DD", refusing days the month does not have.
func ParseDate(s string) (Date, error) {
	d, ok := parseDate(s)
	if !ok {
		return Date{}, errors.New("invalid date " + strconv.Quote(s) + ": want YYYY-MM-DD")
	}
	return d, nil
}

// parseDate is ParseDate for the Decoder too, which holds bytes and needs no error.
func parseDate[S string | []byte](s S) (Date, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return Date{}, false
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	day, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || day < 1 || day > daysIn(y, time.Month(m)) {
		return Date{}, false
	}
	return Date{Year: y, Month: time.Month(m), Day: day}, true
}

// digits parses a run of ASCII digits; strconv.Atoi would also take signs.
func digits[S string | []byte](s S) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func daysIn(year int, m time.Month) int {
	switch m {
	case time.February:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case time.April, time.June, time.September, time.November:
		return 30
	}
	return 31
}

// String returns the date as "YYYY-MM-DD".
func (d Date) String() string { return string(d.appendTo(nil)) }

// appendTo writes the date without fmt, as the Encoder calls it for every date.
func (d Date) appendTo(b []byte) []byte {
	b = appendPadded(b, d.Year, 4)
	b = append(b, '-')
	b = appendPadded(b, int(d.Month), 2)
	b = append(b, '-')
	return appendPadded(b, d.Day, 2)
}

func appendPadded(b []byte, n, width int) []byte {
	u := uint64(n)
	if n < 0 {
		b = append(b, '-')
		u = -u // modular, so right for the most negative int too
	}
	var tmp [20]byte
	s := strconv.AppendUint(tmp[:0], u, 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d == Date{} }

// DateOrDateTime holds a date or a date-time. Its zero value holds the zero Date.
type DateOrDateTime struct {
	date   Date
	time   time.Time
	isTime bool
}

// DateOnly is the DateOrDateTime holding a date.
func DateOnly(d Date) DateOrDateTime { return DateOrDateTime{date: d} }

// At is the DateOrDateTime holding a date-time.
func At(t time.Time) DateOrDateTime { return DateOrDateTime{time: t, isTime: true} }

// Date returns the date and true when v holds a date.
func (v DateOrDateTime) Date() (Date, bool) { return v.date, !v.isTime }

// DateTime returns the date-time and true when v holds a date-time.
func (v DateOrDateTime) DateTime() (time.Time, bool) { return v.time, v.isTime }

// String returns the date as "YYYY-MM-DD" or the date-time in RFC 3339.
func (v DateOrDateTime) String() string {
	if v.isTime {
		return string(appendDateTime(nil, v.time))
	}
	return v.date.String()
}

// DateTimeOrRange holds one date-time, or a range of two: [From, To].
// Its zero value holds the zero time.Time.
type DateTimeOrRange struct {
	from, to time.Time
	isRange  bool
}

// Instant is the DateTimeOrRange holding one date-time.
func Instant(t time.Time) DateTimeOrRange { return DateTimeOrRange{from: t} }

// Between is the DateTimeOrRange holding the range from..to.
func Between(from, to time.Time) DateTimeOrRange {
	return DateTimeOrRange{from: from, to: to, isRange: true}
}

// Instant returns the date-time and true when v holds one date-time.
func (v DateTimeOrRange) Instant() (time.Time, bool) { return v.from, !v.isRange }

// Range returns the two ends and true when v holds a range.
func (v DateTimeOrRange) Range() (from, to time.Time, ok bool) {
	return v.from, v.to, v.isRange
}

// String returns the date-time in RFC 3339, or a range as "from/to" (ISO 8601's
// interval notation).
func (v DateTimeOrRange) String() string {
	if v.isRange {
		return string(appendDateTime(nil, v.from)) + "/" + string(appendDateTime(nil, v.to))
	}
	return string(appendDateTime(nil, v.from))
}
