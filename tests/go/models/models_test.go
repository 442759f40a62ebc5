// Package models tests the generated v3 models on the fixtures every language's tests
// read: read and written back, each is the same JSON text (member order, numbers,
// unknown members and union members).
package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"inspection.dev/client/v3"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "v3", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// marshal writes v as a user sending it would: encoding/json escapes <, > and & in what a
// Marshaler writes unless told not to, and the client writes them as they are.
func marshal(t *testing.T, v any) []byte {
	t.Helper()
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}

// roundTrips reads the fixture into a new T and writes it back: the compact text of the
// fixture must come out. A Go map has no order, so a fixture holding one (extended data,
// a PDF form's data) comes back with that map's keys sorted: for those (ordered false)
// both texts are compared in canonical form (every object's keys sorted), which still
// finds any member lost, added or changed; the others hold the members' order too.
func roundTrips[T any](t *testing.T, name string, ordered bool) T {
	t.Helper()
	data := fixture(t, name)
	var value T
	if err := json.Unmarshal(data, &value); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got, want := marshal(t, value), compact(t, data)
	if !ordered {
		got, want = canonical(t, got), canonical(t, want)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: written back as\n%s\nwant\n%s", name, got, want)
	}
	return value
}

// canonical is data with every object's keys sorted (encoding/json sorts a map's keys).
func canonical(t *testing.T, data []byte) []byte {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return marshal(t, v)
}

func compact(t *testing.T, data []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Compact(&out, data); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestEveryFixtureRoundTripsExactly(t *testing.T) {
	for _, name := range []string{"inspection_unknown_field_type.json",
		"inspection_unknown_result.json", "inspection_unknown_signature.json",
		"inspection_unknown_type.json"} {
		roundTrips[v3.Inspection](t, name, true)
	}
	roundTrips[v3.Inspection](t, "inspection.json", false) // a PDF form's data
	for _, name := range []string{"task.json", "task_completed.json", "task_unknown_status.json"} {
		roundTrips[v3.Task](t, name, false) // extended data
	}
	for _, name := range []string{"unit.json", "unit_extra_properties.json"} {
		roundTrips[v3.Unit](t, name, false) // extended data
	}
	roundTrips[v3.Unit](t, "unit_minimal.json", true)
	roundTrips[v3.ShareURL](t, "share_url.json", true)
}

func TestAnUnknownEnumValueIsKeptAndNotKnown(t *testing.T) {
	task := roundTrips[v3.Task](t, "task_unknown_status.json", false)
	status, ok := task.Status.Get()
	if !ok || status.IsKnown() || status != "paused" {
		t.Fatalf("status %q, set %v", status, ok)
	}
	if !v3.TaskStatusIdle.IsKnown() {
		t.Fatal("a listed value is not known")
	}
}

func TestAnUnknownUnionMemberKeepsItsWholeObject(t *testing.T) {
	inspection := roundTrips[v3.Inspection](t, "inspection_unknown_result.json", true)
	results, _ := inspection.Results.Get()
	var unknown *v3.UnknownInspectionResult
	for _, r := range results {
		switch m := r.(type) {
		case v3.InspectionResultChecklist, v3.InspectionResultDataTemplate:
		case v3.UnknownInspectionResult:
			unknown = &m
		}
	}
	if unknown == nil || unknown.Tag() == "" {
		t.Fatal("no unknown member kept")
	}
	out := marshal(t, unknown)
	if !bytes.Equal(out, compact(t, unknown.Raw())) {
		t.Fatalf("written as %s, read as %s", out, unknown.Raw())
	}
}

func TestUnknownMembersAreKeptAndSentBack(t *testing.T) {
	unit := roundTrips[v3.Unit](t, "unit_extra_properties.json", false)
	if unit.Extra().Len() == 0 {
		t.Fatal("no unknown member kept")
	}
	if err := unit.SetExtra("id", json.RawMessage(`"x"`)); err == nil {
		t.Fatal("SetExtra took the name of a listed field")
	}
	if err := unit.SetExtra("colour", json.RawMessage(`"red"`)); err != nil {
		t.Fatal(err)
	}
	out := marshal(t, unit)
	if !bytes.HasSuffix(out, []byte(`,"colour":"red"}`)) {
		t.Fatalf("the new member is not sent last: %s", out)
	}
}

func TestAbsentNullAndValueAreThreeStates(t *testing.T) {
	var unit v3.Unit
	unit.ID = "u1"
	out, _ := json.Marshal(unit)
	if string(out) != `{"id":"u1"}` {
		t.Fatalf("a zero Unit with an id: %s", out)
	}
	unit.Year = v3.Null[int64]()
	unit.Make = v3.Some("Volvo")
	out, _ = json.Marshal(unit)
	if !bytes.Contains(out, []byte(`"year":null`)) || !bytes.Contains(out, []byte(`"make":"Volvo"`)) {
		t.Fatalf("null or value lost: %s", out)
	}
}

func TestADocumentThatDoesNotFitIsADecodeErrorWithItsPath(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{`{"make":"x"}`, "cannot decode $ (byte 0): missing required member `id`"},
		{`{"id":"a","id":"b"}`, "cannot decode $ (byte 10): member `id` given twice"},
		{`{"id":"a","hours":"x"}`, "cannot decode $.hours (byte 18): expected an integer, got a string"},
	} {
		var unit v3.Unit
		err := json.Unmarshal([]byte(c.json), &unit)
		var decode *v3.DecodeError
		if !errors.As(err, &decode) || err.Error() != c.want {
			t.Errorf("%s: got %v, want %s", c.json, err, c.want)
		}
	}
	var inspection v3.Inspection
	err := json.Unmarshal([]byte(`{"id":"i","results":[{"object":"checklist","name":"n","data":[{"object":"field","type":"radio","value":1,"id":7}]}]}`), &inspection)
	if err == nil || !strings.Contains(err.Error(), "$.results[0].data[0].id") {
		t.Fatalf("got %v", err)
	}
}

// The documented limits, checked before anything is sent: every one broken is listed,
// with its path, in the words every client of the service uses.
func TestValidateListsEveryLimitBrokenWithItsPath(t *testing.T) {
	unit := v3.NewUnit{ReferenceNumber: strings.Repeat("r", 256)}
	unit.Vin = v3.Some("1HGCM82633A00435I")
	unit.Year = v3.Some[int64](1799)
	unit.Hours = v3.Some[int32](-1)
	var invalid *v3.ValidationError
	if err := unit.Validate(); !errors.As(err, &invalid) {
		t.Fatalf("got %v", err)
	}
	got := map[string]string{}
	for _, v := range invalid.Violations {
		got[v.Path] = v.Message
	}
	want := map[string]string{
		"reference_number": "must be at most 255 characters, got 256",
		"vin":              "must hold only ASCII letters and digits, never I, O, Q, i, o, q; found 'I' at position 17",
		"year":             "must be at least 1800, got 1799",
		"hours":            "must be at least 0, got -1",
	}
	for path, message := range want {
		if got[path] != message {
			t.Errorf("%s: got %q, want %q", path, got[path], message)
		}
	}
	// The boundaries themselves are kept.
	unit = v3.NewUnit{ReferenceNumber: strings.Repeat("r", 255)}
	unit.Year = v3.Some[int64](9999)
	unit.Vin = v3.Some("1HGCM82633A004352")
	if err := unit.Validate(); err != nil {
		t.Fatalf("a unit within its limits: %v", err)
	}
	unit.Year = v3.Some[int64](10000)
	if err := unit.Validate(); err == nil || !strings.Contains(err.Error(), "year: must be at most 9999, got 10000") {
		t.Fatalf("got %v", err)
	}
}

func TestAChoiceOfExactlyOneIsChecked(t *testing.T) {
	task := v3.TaskRequest{Name: "n", ReferenceNumber: "r"}
	err := task.Validate()
	if err == nil || !strings.Contains(err.Error(), "assignee: expected exactly one of `assignee_username`, `location_id`, `user_group_id`, found none") {
		t.Fatalf("got %v", err)
	}
	task.LocationID = v3.Some[int64](1)
	if err := task.Validate(); err != nil {
		t.Fatalf("one given: %v", err)
	}
}

func TestAPageReadsItsRecordsThroughTheirOwnTypes(t *testing.T) {
	page := roundTrips[v3.Page[v3.Inspection]](t, "inspections_page.json", false)
	if len(page.Data) == 0 || page.Data[0].ID == "" {
		t.Fatalf("no records read: %+v", page)
	}
	if _, ok := page.Paging.Get(); !ok {
		t.Fatal("the paging object was not read")
	}
	var wrong v3.Page[v3.Inspection]
	err := json.Unmarshal([]byte(`{"data":[{"id":"a"},{"id":3}]}`), &wrong)
	if err == nil || !strings.Contains(err.Error(), "$.data[1].id") {
		t.Fatalf("got %v", err)
	}
}

func TestWebhookEventsAreTypedAndUnknownOnesKeptWhole(t *testing.T) {
	event, err := v3.ParseEvent([]byte(`{"type":"task.completed","data":{"id":"tsk_1"},"created_at":"2026-03-04T16:02:41Z"}`))
	completed, ok := event.(v3.Event_TaskCompleted)
	if err != nil || !ok {
		t.Fatalf("got %T, %v", event, err)
	}
	if task, _ := completed.Data.Get(); task.ID != "tsk_1" {
		t.Fatalf("the task was not read: %+v", completed)
	}
	raw := `{"type":"unit.sold","data":{"price":12},"created_at":"2026-03-04T16:02:41Z"}`
	event, err = v3.ParseEvent([]byte(raw))
	unknown, ok := event.(v3.UnknownEvent_)
	if err != nil || !ok || unknown.Tag() != "unit.sold" || string(marshal(t, unknown)) != raw {
		t.Fatalf("got %T %v", event, err)
	}
	_, err = v3.ParseEvent([]byte(`{"type":"task.completed","data":{"id":7}}`))
	if err == nil || !strings.Contains(err.Error(), "$.data.id") {
		t.Fatalf("got %v", err)
	}
}
