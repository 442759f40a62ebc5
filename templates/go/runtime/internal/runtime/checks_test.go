package runtime

import (
	"errors"
	"testing"
)

func TestChecksSayWhatTheOtherClientsSay(t *testing.T) {
	var c Checks
	c.String("abcdef", false, 5, NoLimit, "", "", "name")
	c.String("1HGCM82633A00435I", false, NoLimit, 17, "ascii_alphanumeric", "IOQ", "vin")
	c.String("12a", true, NoLimit, NoLimit, "ascii_digits", "", "pin")
	c.String("ok", false, 5, 2, "ascii_alphanumeric", "", "fine")
	c.Range(1799, Bound(1800), Bound(9999), "year")
	c.Range(10000, Bound(1800), Bound(9999), "year")
	c.Range(-1, Bound(0), nil, "hours")
	c.DecimalRange("-0.5", Bound(0), nil, "cost")
	c.Items(0, 1, NoLimit, "items")
	c.Items(3, NoLimit, 2, Field(Item("a", 2), "b"))
	want := []Violation{
		{"name", "must be at most 5 characters, got 6"},
		{"vin", "must hold only ASCII letters and digits, never I, O, Q; found 'I' at position 17"},
		{"pin", "must hold only ASCII digits; found a character not allowed at position 3"},
		{"year", "must be at least 1800, got 1799"},
		{"year", "must be at most 9999, got 10000"},
		{"hours", "must be at least 0, got -1"},
		{"cost", "must be at least 0, got -0.5"},
		{"items", "must have at least 1 items, got 0"},
		{"a[2].b", "must have at most 2 items, got 3"},
	}
	var v *ValidationError
	if err := c.Err(); !errors.As(err, &v) || len(v.Violations) != len(want) {
		t.Fatalf("got %v", err)
	}
	for i, w := range want {
		if v.Violations[i] != w {
			t.Errorf("%d: got %+v, want %+v", i, v.Violations[i], w)
		}
	}
	var none Checks
	none.String("fine", false, 10, NoLimit, "", "", "x")
	if none.Err() != nil {
		t.Fatal("a value within its limits was refused")
	}
}

func TestACharacterIsCountedNotAByte(t *testing.T) {
	var c Checks
	c.String("ééé", false, 3, NoLimit, "", "", "x")
	c.String("line\nbreak", false, NoLimit, NoLimit, "ascii_alphanumeric", "", "y")
	if len(c.found) != 1 || c.found[0].Message != `must hold only ASCII letters and digits; found '\n' at position 5` {
		t.Fatalf("got %+v", c.found)
	}
}

func TestChoicesAndClosedEnums(t *testing.T) {
	var c Checks
	c.ExactlyOne("assignee", "`a`, `b`", nil)
	c.ExactlyOne("assignee", "`a`, `b`", []string{"`a`", "`b`"})
	c.ExactlyOne("assignee", "`a`, `b`", []string{"`a`"})
	c.OneOf("status", "paused", "`idle`, `started`")
	want := []string{
		"expected exactly one of `a`, `b`, found none",
		"expected exactly one of `a`, `b`, found `a` and `b`",
		"must be one of `idle`, `started`, got `paused`",
	}
	if len(c.found) != len(want) {
		t.Fatalf("got %+v", c.found)
	}
	for i, w := range want {
		if c.found[i].Message != w {
			t.Errorf("got %q, want %q", c.found[i].Message, w)
		}
	}
}
