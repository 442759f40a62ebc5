package runtime

import (
	"errors"
	"testing"
	"time"
)

func TestTextIsWhatEveryClientSends(t *testing.T) {
	at := time.Date(2026, 3, 4, 16, 2, 41, 0, time.UTC)
	for _, c := range []struct{ got, want string }{
		{Text("a b/c", (*Encoder).String), "a b/c"},
		{Text(int64(42), (*Encoder).Int64), "42"},
		{Text(true, (*Encoder).Bool), "true"},
		{Text(at, (*Encoder).DateTime), "2026-03-04T16:02:41Z"},
		{Text([]string{"x"}, func(e *Encoder, v []string) { WriteList(e, v, (*Encoder).String) }), `["x"]`},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestASegmentIsEscapedOrRefusedByName(t *testing.T) {
	if got, err := Segment("unit_id", "a/b c"); err != nil || got != "a%2Fb%20c" {
		t.Fatalf("got %q, %v", got, err)
	}
	for _, bad := range []string{"", ".", "..", "a\tb", "x\x00", "del\x7f"} {
		_, err := Segment("unit_id", bad)
		var invalid *ValidationError
		if !errors.As(err, &invalid) || invalid.Violations[0].Path != "unit_id" {
			t.Errorf("%q: got %v", bad, err)
		}
	}
}

func TestACallStartsAtItsCursorOrLink(t *testing.T) {
	call := &Call{Path: "/units"}
	call.SetQuery("per_page", "2")
	call.StartAt(Resume{Cursor: "c1"}, "page")
	if call.Path != "/units" || call.Query.Get("page") != "c1" || call.Query.Get("per_page") != "2" {
		t.Fatalf("a cursor: %s %v", call.Path, call.Query)
	}
	call.StartAt(Resume{Link: "https://api.example/v3/units?page=c2"}, "page")
	if call.Path != "https://api.example/v3/units?page=c2" || call.Query != nil {
		t.Fatalf("a link: %s %v", call.Path, call.Query)
	}
	first := &Call{Path: "/units"}
	first.StartAt(Resume{}, "page")
	if first.Path != "/units" || first.Query != nil {
		t.Fatalf("the first page: %s %v", first.Path, first.Query)
	}
}

func TestReadRefusesTrailingText(t *testing.T) {
	if _, err := Read(&Answer{Body: []byte(`"a" x`)}, (*Decoder).String); err == nil {
		t.Fatal("text after the value was taken")
	}
	if v, err := Read(&Answer{Body: []byte(` "a" `)}, (*Decoder).String); err != nil || v != "a" {
		t.Fatalf("got %q, %v", v, err)
	}
}
