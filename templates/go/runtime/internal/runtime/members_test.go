package runtime

import (
	"encoding/json"
	"strconv"
	"testing"
)

func names(m Members) string {
	s := ""
	for name, value := range m.All() {
		s += name + "=" + string(value) + ";"
	}
	return s
}

func TestMembers(t *testing.T) {
	var m Members
	if m.Len() != 0 || names(m) != "" {
		t.Fatal("the zero Members is not empty")
	}
	if !m.Add("b", json.RawMessage(`1`)) || !m.Add("a", json.RawMessage(`2`)) {
		t.Fatal("Add refused a new name")
	}
	if m.Add("b", json.RawMessage(`3`)) {
		t.Fatal("Add took a name given twice")
	}
	m.Set("a", json.RawMessage(`4`))
	m.Set("c", json.RawMessage(`"x"`))
	if got := names(m); got != `b=1;a=4;c="x";` {
		t.Fatalf("got %s", got)
	}
	if v, ok := m.Get("a"); !ok || string(v) != "4" {
		t.Errorf("Get a: %s %v", v, ok)
	}
	if _, ok := m.Get("z"); ok {
		t.Error("Get found a missing name")
	}
	clone := m.Clone()
	m.Delete("b")
	m.Delete("zz")
	if got := names(m); got != `a=4;c="x";` || m.Len() != 2 {
		t.Errorf("after Delete: %s", got)
	}
	if got := names(clone); got != `b=1;a=4;c="x";` {
		t.Errorf("the clone changed: %s", got)
	}
	var e Encoder
	e.BeginObject()
	e.Name("known")
	e.Bool(true)
	clone.Write(&e)
	e.EndObject()
	if got := string(e.Bytes()); got != `{"known":true,"b":1,"a":4,"c":"x"}` {
		t.Errorf("Write: %s", got)
	}
	for range m.All() {
		break // stopping early must not panic
	}
}

// TestMembersMany goes past the length from which an index is used.
func TestMembersMany(t *testing.T) {
	var m Members
	const n = 1000
	for i := range n {
		if !m.Add("k"+strconv.Itoa(i), json.RawMessage(strconv.Itoa(i))) {
			t.Fatalf("Add %d refused", i)
		}
	}
	for i := range n {
		if m.Add("k"+strconv.Itoa(i), nil) {
			t.Fatalf("Add %d twice accepted", i)
		}
		if v, ok := m.Get("k" + strconv.Itoa(i)); !ok || string(v) != strconv.Itoa(i) {
			t.Fatalf("Get %d: %s", i, v)
		}
	}
	m.Delete("k0")
	m.Set("k5", json.RawMessage(`"five"`))
	if v, _ := m.Get("k5"); string(v) != `"five"` || m.Len() != n-1 {
		t.Fatalf("after Delete and Set: %s, %d", v, m.Len())
	}
	if _, ok := m.Get("k0"); ok || !m.Add("k0", nil) {
		t.Fatal("the deleted name is still found")
	}
	// A copy that diverges must not be misled by the index it shares.
	c := m
	c.Add("only-in-copy", nil)
	if _, ok := m.Get("only-in-copy"); ok {
		t.Error("the original sees the copy's member")
	}
	if !m.Add("only-in-original", nil) {
		t.Error("the original refused a new name")
	}
	// Both appended into the storage they share, so the copy's member is gone (as
	// with slices, the reason for Clone), but the copy must not find it under the
	// wrong name.
	if v, ok := c.Get("only-in-copy"); ok {
		t.Errorf("the copy found an overwritten member: %s", v)
	}
}

// TestUnknownMembers reads an object's unknown members as generated code does.
func TestUnknownMembers(t *testing.T) {
	doc := `{"z":[1,{"a":2}],"id":"x","y":null,"z":3}`
	d := NewDecoder([]byte(doc))
	var extra Members
	var id string
	d.Object()
	for name, ok := d.Member(); ok; name, ok = d.Member() {
		if name == "id" {
			id = d.String()
		} else if !extra.Add(name, d.Raw()) {
			d.Duplicate(name)
		}
	}
	want := "cannot decode $ (byte 35): member `z` given twice"
	if err := d.Finish(); err == nil || err.Error() != want || id != "x" {
		t.Fatalf("got %v, %q", err, id)
	}
	if got := names(extra); got != `z=[1,{"a":2}];y=null;` {
		t.Errorf("got %s", got)
	}
}
