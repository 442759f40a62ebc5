package conformance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// root is the checkout, two folders up from tests/go/conformance.
func root() string {
	abs, _ := filepath.Abs(filepath.Join("..", "..", ".."))
	return abs
}

// TestConformance runs every scenario, a subtest each, against the sandbox binary
// (SANDBOX, else target/debug/sandbox), reading the scenario copies CONFORMANCE_DIR names
// (else target/conformance-json). CONFORMANCE_ONLY=<part of a name> runs a subset;
// without it the count of scenarios run is written to CONFORMANCE_COUNT, for xtask to
// hold against the files.
func TestConformance(t *testing.T) {
	dir := envOr("CONFORMANCE_DIR", filepath.Join(root(), "target", "conformance-json"))
	f, err := loadFormat(filepath.Join(root(), "tests", "conformance", "format.json"))
	if err != nil {
		t.Fatal(err)
	}
	scenarios, err := load(dir, f)
	if err != nil {
		t.Fatal(err)
	}
	ops, err := loadOperations(filepath.Join(root(), "generated", "ir.json"))
	if err != nil {
		t.Fatal(err)
	}
	boxes := newSandboxes(envOr("SANDBOX", filepath.Join(root(), "target", "debug", "sandbox")))
	defer boxes.close()
	only := os.Getenv("CONFORMANCE_ONLY")
	ran := 0
	for i := range scenarios {
		sc := &scenarios[i]
		if only != "" && !strings.Contains(sc.name, only) {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			if err := run(sc, boxes, ops); err != nil {
				t.Fatalf("%s: %s: %v", sc.file, sc.name, err)
			}
			ran++
		})
	}
	if count := os.Getenv("CONFORMANCE_COUNT"); count != "" && only == "" {
		data, _ := json.Marshal(map[string]any{"client": ran, "skipped": []string{}})
		if err := os.WriteFile(count, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}
