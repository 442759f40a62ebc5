// Package peers benchmarks the Go client's decoding of a page beside its peers': the page
// of 100 inspections every language's parse benchmark reads (`cargo xtask bench` writes
// it; PAGE names another file), decoded by the client's types, by encoding/json into
// map[string]any, and by encoding/json into the types oapi-codegen generates from the
// v3 OpenAPI description (into ./oapiv3, which `cargo xtask bench` generates first; see
// xtask/src/go_peers.rs): `go test -run '^$' -bench Page .` here.
package peers

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"inspection.dev/client/tests/peers/oapiv3"
	"inspection.dev/client/v3"
)

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

// oapi-codegen's types (from the description rendered as OpenAPI 3.0), as its users read
// a page: encoding/json's reflection. Its unions are json.RawMessage, kept unread until
// asked for, so it does less than the client's decoder, which reads every result.
func BenchmarkPageOapiCodegen(b *testing.B) {
	data := benchPage(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var page struct {
			Data   []oapiv3.Inspection `json:"data"`
			Paging *oapiv3.Paging      `json:"paging"`
		}
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
