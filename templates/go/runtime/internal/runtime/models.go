package runtime

import (
	"fmt"
	"strconv"
)

// This file holds what the generated models need beside reading and writing values.

// ID reads an id: a string or, where the interface also takes ids written as JSON
// integers (integers), a whole number, given as its digits.
func (d *Decoder) ID(integers bool) string {
	if integers && d.err == nil && isNumberStart(d.next()) {
		return strconv.FormatInt(d.Int64(), 10)
	}
	return d.String()
}

// ListedMember is the error of SetExtra given the name of one of the record's own
// fields, which are set through the field.
func ListedMember(name string) error {
	return fmt.Errorf("`%s` is a listed property: set it through its field", name)
}

// Len is how many bytes the Encoder holds: the mark MoveLastMember takes.
func (e *Encoder) Len() int { return len(e.buf) }

// MoveLastMember makes the last member written of the object whose members start at
// mark (just after its '{') its at-th member, counted from 0: a union member's tag,
// written after the fields, goes back where it stood when read. An at past the
// members leaves it last. The members must be complete JSON the Encoder wrote.
func (e *Encoder) MoveLastMember(mark, at int) {
	if at < 0 || mark >= len(e.buf) {
		return
	}
	starts := memberStarts(e.buf[mark:])
	if at >= len(starts)-1 {
		return
	}
	last := mark + starts[len(starts)-1]
	target := mark + starts[at]
	moved := make([]byte, 0, len(e.buf)-target)
	moved = append(moved, e.buf[last:]...)
	moved = append(moved, ',')
	moved = append(moved, e.buf[target:last-1]...) // without the comma before the last
	copy(e.buf[target:], moved)
}

// memberStarts gives the offsets in members (compact, valid JSON members separated by
// commas) where each member starts.
func memberStarts(members []byte) []int {
	starts := []int{0}
	depth := 0
	inString := false
	for i := 0; i < len(members); i++ {
		c := members[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == ',' && depth == 0:
			starts = append(starts, i+1)
		}
	}
	return starts
}
