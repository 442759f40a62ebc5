package runtime

import (
	"encoding/json"
	"iter"
)

// Member is one member of an object: its name and its value's JSON.
type Member struct {
	// Name is the member's name.
	Name string
	// Value is its JSON value as it came.
	Value json.RawMessage
}

// Members are the members of an object the client does not know, kept in their order
// so that they are sent back as they came. Its zero value is empty.
//
// Like a slice, a copy of Members shares its storage with the original: use Clone for
// an independent copy before changing either.
type Members struct {
	list []Member
	// index maps names to positions once the list is long, so that adding the n
	// members of a large object stays linear instead of quadratic.
	index *memberIndex
}

// memberIndex is valid for a list only while it is the very list it was built for:
// same first element and same length. A copy that diverged rebuilds its own.
type memberIndex struct {
	first *Member
	n     int
	pos   map[string]int
}

// indexFrom is the length from which lookups go through a map rather than a scan.
const indexFrom = 16

// find returns the position of name, or -1, building the index when the list is
// long and has none valid.
func (m *Members) find(name string) int {
	if len(m.list) < indexFrom {
		return m.scan(name)
	}
	if !m.indexed() {
		ix := &memberIndex{pos: make(map[string]int, len(m.list))}
		for i := len(m.list) - 1; i >= 0; i-- { // backwards so the first of twins wins
			ix.pos[m.list[i].Name] = i
		}
		ix.first, ix.n = &m.list[0], len(m.list)
		m.index = ix
	}
	return m.indexAt(name)
}

// indexAt returns the position the index gives for name, or -1. It checks the name
// there, as a copy sharing the storage may have overwritten that member.
func (m *Members) indexAt(name string) int {
	if i, ok := m.index.pos[name]; ok && m.list[i].Name == name {
		return i
	}
	return -1
}

// lookup is find for the value receivers: they only read an index, never build one,
// since what they build would be dropped with their copy.
func (m Members) lookup(name string) int {
	if !m.indexed() {
		return m.scan(name)
	}
	return m.indexAt(name)
}

func (m *Members) scan(name string) int {
	for i := range m.list {
		if m.list[i].Name == name {
			return i
		}
	}
	return -1
}

// indexed reports whether m.index was built for this very list.
func (m *Members) indexed() bool {
	ix := m.index
	return ix != nil && len(m.list) > 0 && ix.n == len(m.list) && ix.first == &m.list[0]
}

// push appends a member and keeps a valid index up to date.
func (m *Members) push(name string, value json.RawMessage) {
	valid := m.indexed()
	m.list = append(m.list, Member{Name: name, Value: value})
	if valid {
		ix := m.index
		ix.pos[name] = len(m.list) - 1
		ix.first, ix.n = &m.list[0], len(m.list)
	}
}

// Add appends the member, or returns false and adds nothing when a member of that name
// is already there.
func (m *Members) Add(name string, value json.RawMessage) bool {
	if m.find(name) >= 0 {
		return false
	}
	m.push(name, value)
	return true
}

// Set replaces the value of the member of that name, or appends the member.
func (m *Members) Set(name string, value json.RawMessage) {
	if i := m.find(name); i >= 0 {
		m.list[i].Value = value
		return
	}
	m.push(name, value)
}

// Delete removes the member of that name, if there is one.
func (m *Members) Delete(name string) {
	i := m.find(name)
	if i < 0 {
		return
	}
	// A new list rather than shifting in place, so that copies sharing the old one
	// are left as they were.
	list := make([]Member, 0, len(m.list)-1)
	list = append(list, m.list[:i]...)
	m.list = append(list, m.list[i+1:]...)
	m.index = nil
}

// Get returns the value of the member of that name and true, or nil and false.
func (m Members) Get(name string) (json.RawMessage, bool) {
	if i := m.lookup(name); i >= 0 {
		return m.list[i].Value, true
	}
	return nil, false
}

// Len returns the number of members.
func (m Members) Len() int { return len(m.list) }

// All yields the members' names and values in their order.
func (m Members) All() iter.Seq2[string, json.RawMessage] {
	return func(yield func(string, json.RawMessage) bool) {
		for _, mem := range m.list {
			if !yield(mem.Name, mem.Value) {
				return
			}
		}
	}
}

// Write writes each member as a name and its raw value, in order, into the object
// the Encoder is writing.
func (m Members) Write(e *Encoder) {
	for _, mem := range m.list {
		e.Name(mem.Name)
		e.Raw(mem.Value)
	}
}

// Clone returns a copy of m that shares nothing with it, values included.
func (m Members) Clone() Members {
	if m.list == nil {
		return Members{}
	}
	list := make([]Member, len(m.list))
	for i, mem := range m.list {
		list[i] = Member{Name: mem.Name, Value: cloneBytes(mem.Value)}
	}
	return Members{list: list}
}

func cloneBytes(b json.RawMessage) json.RawMessage {
	if b == nil {
		return nil
	}
	return append(json.RawMessage{}, b...)
}
