package runtime

import (
	"math"
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	for _, s := range []string{"2024-02-29", "0000-01-01", "9999-12-31", "2023-04-30"} {
		d, err := ParseDate(s)
		if err != nil || d.String() != s {
			t.Errorf("%s: %v %v", s, d, err)
		}
	}
	for _, s := range []string{"", "2023-02-29", "2023-04-31", "2023-00-10", "2023-01-00", "2023-1-1",
		"2023/01/01", "２０２３-01-01", "-023-01-01", "2023-01-01 ", "20230-01-01"} {
		if _, err := ParseDate(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
	if (Date{}).String() != "0000-00-00" || !(Date{}).IsZero() || (Date{Day: 1}).IsZero() {
		t.Error("the zero Date")
	}
	if s := (Date{Year: 12345, Month: 1, Day: 2}).String(); s != "12345-01-02" {
		t.Errorf("a five-digit year: %s", s)
	}
	if s := (Date{Year: math.MinInt, Month: 1, Day: 2}).String(); s != "-9223372036854775808-01-02" {
		t.Errorf("the most negative year: %s", s)
	}
}

func TestDateUnions(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	if d, ok := DateOnly(Date{2024, 5, 6}).Date(); !ok || d != (Date{2024, 5, 6}) {
		t.Error("DateOnly")
	}
	if _, ok := DateOnly(Date{}).DateTime(); ok {
		t.Error("DateOnly holds a date-time")
	}
	if v, ok := At(at).DateTime(); !ok || !v.Equal(at) || At(at).String() != "2024-05-06T07:08:09Z" {
		t.Error("At")
	}
	if _, ok := At(at).Date(); ok {
		t.Error("At holds a date")
	}
	if v, ok := Instant(at).Instant(); !ok || !v.Equal(at) {
		t.Error("Instant")
	}
	if _, _, ok := Instant(at).Range(); ok {
		t.Error("Instant holds a range")
	}
	from, to, ok := Between(at, at.Add(time.Second)).Range()
	if !ok || !from.Equal(at) || to.Sub(from) != time.Second {
		t.Error("Between")
	}
	if s := Between(at, at).String(); s != "2024-05-06T07:08:09Z/2024-05-06T07:08:09Z" {
		t.Errorf("Between: %s", s)
	}
}
