package models

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"inspection.dev/client/v3"
)

// The page of 100 inspections every language's parse benchmark reads (`cargo xtask bench`
// writes it; PAGE names another file), decoded by the client's types and by encoding/json
// into map[string]any: `go test -run '^$' -bench Page ./models/` in tests/go.
func benchPage(b *testing.B) []byte {
	path := os.Getenv("PAGE")
	if path == "" {
		path = filepath.Join("..", "..", "..", "target", "bench", "page.json")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("no page to read (run cargo xtask bench --quick first): %v", err)
	}
	return data
}

// As the client reads an answer's body: the page's own decoder over the bytes.
func BenchmarkPageTyped(b *testing.B) {
	data := benchPage(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var page v3.Page[v3.Inspection]
		if err := page.UnmarshalJSON(data); err != nil || len(page.Data) != 100 {
			b.Fatalf("%v (%d records)", err, len(page.Data))
		}
	}
}

// As a program holding the body reads it with encoding/json, which first checks the
// whole text and then hands it to the page's decoder.
func BenchmarkPageTypedThroughEncodingJSON(b *testing.B) {
	data := benchPage(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var page v3.Page[v3.Inspection]
		if err := json.Unmarshal(data, &page); err != nil || len(page.Data) != 100 {
			b.Fatalf("%v (%d records)", err, len(page.Data))
		}
	}
}

func BenchmarkPageMap(b *testing.B) {
	data := benchPage(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var page map[string]any
		if err := json.Unmarshal(data, &page); err != nil {
			b.Fatal(err)
		}
	}
}
