// Package conformance runs the conformance scenarios of tests/conformance (their format
// in tests/conformance/README.md, as data in format.json) with the generated Go clients
// against the sandbox binary. It reads the JSON copies of the scenario files that
// `cargo xtask` writes under target/conformance-json (Go has no YAML parser of its own).
package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// object is a JSON object as encoding/json reads it.
type object = map[string]any

// parse reads one JSON value, numbers kept exact (json.Number).
func parse(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more after the JSON value")
	}
	return v, nil
}

// readJSON reads the JSON file at path; an error names the file.
func readJSON(path string) (any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc, nil
}

// marshal writes v as JSON without escaping <, > and & (what the patterns compare is the
// text the service and the client write).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// asJSON writes v as JSON and reads it back, so that what a client gives compares as the
// JSON it writes.
func asJSON(v any) (any, error) {
	data, err := marshal(v)
	if err != nil {
		return nil, err
	}
	return parse(data)
}

// show writes a value for a failure message.
func show(v any) string {
	data, err := marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(data)
}

func isObject(v any) (object, bool) {
	m, ok := v.(map[string]any)
	return m, ok
}

// number reads a JSON number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

// integer reads a JSON number that is whole.
func integer(v any) (int64, bool) {
	f, ok := number(v)
	if !ok || f != float64(int64(f)) {
		return 0, false
	}
	return int64(f), true
}

// num is a whole number as the JSON the patterns compare.
func num(n int64) json.Number { return json.Number(fmt.Sprint(n)) }

// normalized is a name as compared with a Go identifier: lower case, no underscores or
// dashes (list_units and ListUnits, per_page and PerPage, referenceNumber and
// ReferenceNumber).
func normalized(name string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(name))
}
