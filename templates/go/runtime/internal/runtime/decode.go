package runtime

import (
	"encoding/json"
	"time"
)

// Decoder reads one JSON value held in memory, strictly per RFC 8259: no comments,
// trailing commas, leading zeros, NaN or other extensions, nothing but whitespace
// after the value (see Finish), and at most 512 nested arrays and objects.
//
// Strings have their escapes decoded, \uXXXX surrogate pairs included. As in
// encoding/json, invalid UTF-8 and escapes of lone surrogates are not refused but each
// replaced with U+FFFD.
//
// The error is sticky, as in bufio.Scanner: after the first error every method returns
// zero values or false, and Err returns that first error. The Decoder never recurses
// on the input's nesting, never panics, and reads in time linear in the input's size
// (Tag looks ahead within an object, so nested tagged unions read the deepest bytes
// once per enclosing union, at most 512 times).
//
// Objects and arrays are read by the caller, member by member:
//
//	if d.Object() {
//		for name, ok := d.Member(); ok; name, ok = d.Member() {
//			switch name { ... read the value ... default: d.Skip() }
//		}
//	}
type Decoder struct {
	data []byte
	pos  int
	err  *DecodeError
	// frames are the open objects and arrays, outermost first; they give the path
	// of an error without building it unless one happens.
	frames []frame
	// closed is the offset of the object or array closed last, where Missing points.
	closed int
	// anchor is where the value being skipped or looked into starts, while anchored:
	// an error inside it gets the rest of its path by walking from there.
	anchor   int
	anchored bool
	// scratch holds the text of strings with escapes or non-ASCII bytes.
	scratch []byte
	// names interns member names, as objects in an array repeat the same ones.
	names map[string]string
	// zoneOff and zone cache the last fixed zone of a date-time.
	zoneOff int
	zone    *time.Location
}

// frame is an open object or array.
type frame struct {
	name   string // the name of the object's current member
	index  int    // members or elements begun so far
	start  int    // the offset of its '{' or '['
	at     int    // the offset of the current member's name
	array  bool
	inItem bool // a member or element is current: the path goes into it
}

// NewDecoder returns a Decoder reading the JSON value in data. It does not copy data,
// which must not change while it is read.
func NewDecoder(data []byte) *Decoder { return &Decoder{data: data} }

// Err returns the first error, a *DecodeError, or nil.
func (d *Decoder) Err() error {
	if d.err == nil {
		return nil // not a nil *DecodeError, which would be a non-nil error
	}
	return d.err
}

// Finish checks that only whitespace follows the value read and returns Err.
func (d *Decoder) Finish() error {
	if d.err == nil {
		if len(d.frames) > 0 {
			d.fail(d.pos, "the value was not read to its end")
		} else if d.next() >= 0 {
			d.fail(d.pos, "expected the end of the input, got "+describe(d.data, d.pos))
		}
	}
	return d.Err()
}

// fail records an error at off, at the path of the next value, unless one is recorded.
func (d *Decoder) fail(off int, message string) { d.record(off, message, false) }

// record records an error at off unless one is recorded. Its path is that of the
// current member or element, or of the current object itself when outer is set.
func (d *Decoder) record(off int, message string, outer bool) {
	if d.err != nil {
		return
	}
	segs := make([]seg, 0, len(d.frames)+4)
	for i, f := range d.frames {
		if !f.inItem || outer && i == len(d.frames)-1 {
			continue
		}
		if f.array {
			segs = append(segs, seg{index: f.index - 1, array: true})
		} else {
			segs = append(segs, seg{name: f.name})
		}
	}
	if d.anchored && !outer {
		segs = append(segs, walkPath(d.data, d.anchor, off)...)
	}
	d.err = &DecodeError{Path: formatPath(segs), Offset: off, Message: message}
}

// typeError records that the next value is not what was expected.
func (d *Decoder) typeError(expected string) {
	d.fail(d.pos, "expected "+expected+", got "+describe(d.data, d.pos))
}

// Object consumes the '{' opening an object, or returns false after recording an
// error when an object does not come next.
func (d *Decoder) Object() bool { return d.open('{', false, "an object") }

// Array consumes the '[' opening an array, or returns false after recording an error
// when an array does not come next.
func (d *Decoder) Array() bool { return d.open('[', true, "an array") }

func (d *Decoder) open(bracket int, array bool, expected string) bool {
	if d.err != nil {
		return false
	}
	if d.next() != bracket {
		d.typeError(expected)
		return false
	}
	if len(d.frames) >= maxDepth {
		d.fail(d.pos, tooDeep)
		return false
	}
	d.frames = append(d.frames, frame{start: d.pos, array: array})
	d.pos++
	return true
}

// top returns the innermost open container when it is the kind wanted, or nil after
// recording an error: the generated code calling Member in an array is a bug, but one
// that must not panic.
func (d *Decoder) top(array bool, method string) *frame {
	if n := len(d.frames); n > 0 && d.frames[n-1].array == array {
		return &d.frames[n-1]
	}
	kind := "object"
	if array {
		kind = "array"
	}
	d.fail(d.pos, method+" called outside of an open "+kind)
	return nil
}

// close consumes the bracket closing the innermost container.
func (d *Decoder) close(f *frame) {
	d.pos++
	d.closed = f.start
	d.frames = d.frames[:len(d.frames)-1]
}

// Member consumes the next member's name and its ':' and returns the name, leaving the
// Decoder at the member's value, which the caller must read or Skip. At the '}'
// closing the object it consumes it and returns false.
func (d *Decoder) Member() (string, bool) {
	if d.err != nil {
		return "", false
	}
	f := d.top(false, "Member")
	if f == nil {
		return "", false
	}
	f.inItem = false
	c := d.next()
	if c == '}' {
		d.close(f)
		return "", false
	}
	if f.index > 0 {
		if c != ',' {
			d.fail(d.pos, "expected ',' or '}' after an object member, got "+describe(d.data, d.pos))
			return "", false
		}
		d.pos++
		c = d.next()
	}
	if c != '"' {
		d.fail(d.pos, "expected a member name, got "+describe(d.data, d.pos))
		return "", false
	}
	at := d.pos
	name, ok := d.name()
	if !ok {
		return "", false
	}
	if d.next() != ':' {
		d.fail(d.pos, "expected ':' after a member name, got "+describe(d.data, d.pos))
		return "", false
	}
	d.pos++
	f.name, f.at, f.inItem = name, at, true
	f.index++
	return name, true
}

// name reads a member name, interning short ones: the map lookup with string(b) does
// not allocate, so names repeated across an array's objects are allocated once.
func (d *Decoder) name() (string, bool) {
	b, ok := d.stringBytes()
	if !ok {
		return "", false
	}
	if s, ok := d.names[string(b)]; ok {
		return s, true
	}
	s := string(b)
	if len(s) <= 64 && len(d.names) < 1024 {
		if d.names == nil {
			d.names = make(map[string]string)
		}
		d.names[s] = s
	}
	return s, true
}

// Element reports whether another element follows in the array, leaving the Decoder
// at it; the caller must read or Skip it. At the ']' closing the array it consumes it
// and returns false.
func (d *Decoder) Element() bool {
	if d.err != nil {
		return false
	}
	f := d.top(true, "Element")
	if f == nil {
		return false
	}
	f.inItem = false
	c := d.next()
	if c == ']' {
		d.close(f)
		return false
	}
	if f.index > 0 {
		if c != ',' {
			d.fail(d.pos, "expected ',' or ']' after an array element, got "+describe(d.data, d.pos))
			return false
		}
		d.pos++
	}
	f.index++
	f.inItem = true
	if f.index > 1 && d.next() == ']' {
		d.typeError("a value") // a trailing comma
		return false
	}
	return true
}

// Skip consumes the next value whole, checking it as strictly as reading it would.
func (d *Decoder) Skip() {
	if d.err == nil {
		d.skip()
	}
}

// skip consumes the next value, anchoring the path of any error inside it.
func (d *Decoder) skip() bool {
	d.next()
	d.anchor, d.anchored = d.pos, true
	ok := d.skipValue(len(d.frames))
	d.anchored = false
	return ok
}

// Raw returns a copy of the next value's exact bytes, checked as strictly as reading
// the value would, and consumes it.
func (d *Decoder) Raw() json.RawMessage {
	if d.err != nil {
		return nil
	}
	d.next()
	start := d.pos
	if !d.skip() {
		return nil
	}
	return append(json.RawMessage(nil), d.data[start:d.pos]...)
}

// IsNull reports whether the next value is the literal null, consuming nothing.
func (d *Decoder) IsNull() bool {
	return d.err == nil && d.next() == 'n' && hasLiteral(d.data[d.pos:], "null")
}

// Null consumes a null.
func (d *Decoder) Null() {
	if d.err != nil {
		return
	}
	if d.next() != 'n' {
		d.typeError("null")
		return
	}
	d.literal("null")
}

// Tag looks ahead, consuming nothing: when the next value is an object with a member
// of that name whose value is a string, it returns that string and true. Only the
// object's own members count, not those of objects nested in it; the first member of
// that name is the one looked at. A malformed object records its error.
func (d *Decoder) Tag(name string) (string, bool) {
	if d.err != nil || d.next() != '{' {
		return "", false
	}
	start := d.pos
	d.anchor, d.anchored = start, true
	tag, ok := d.findTag(name)
	d.anchored = false
	d.pos = start
	if d.err != nil {
		return "", false
	}
	return tag, ok
}

// findTag scans the object at d.pos for the member name, skipping the other values.
func (d *Decoder) findTag(name string) (string, bool) {
	if len(d.frames)+1 > maxDepth {
		return "", false // reading the object will record the error
	}
	found := false
	d.eachName(func(key []byte) bool {
		found = string(key) == name
		return !found
	})
	if !found || d.err != nil {
		return "", false
	}
	if d.next() != ':' {
		d.fail(d.pos, "expected ':' after a member name, got "+describe(d.data, d.pos))
		return "", false
	}
	d.pos++
	if d.next() != '"' {
		return "", false
	}
	b, ok := d.stringBytes()
	return string(b), ok
}

// Bare looks ahead, consuming nothing, at an object that may come wrapped in an
// envelope's member or bare: it reports true (bare) when the next value is an object
// with no member named envelope, or with a member the wrapped record knows (a record
// may hold a member named like its envelope, as a transaction holds its nested one).
func (d *Decoder) Bare(envelope string, knows []string) bool {
	if d.err != nil || d.next() != '{' || len(d.frames)+1 > maxDepth {
		return false
	}
	start := d.pos
	d.anchor, d.anchored = start, true
	wrapped, known := false, false
	d.eachName(func(name []byte) bool {
		if string(name) == envelope {
			wrapped = true
		} else {
			for _, k := range knows {
				known = known || string(name) == k
			}
		}
		return !known
	})
	d.anchored = false
	d.pos = start
	return d.err == nil && (known || !wrapped)
}

// eachName gives visit the member names of the object at d.pos, skipping their values,
// until visit returns false (d.pos is then just after that name) or the object ends.
func (d *Decoder) eachName(visit func([]byte) bool) {
	base := len(d.frames) + 1 // the object looked into counts as open
	d.pos++
	if d.next() == '}' {
		return
	}
	for {
		if d.next() != '"' {
			d.fail(d.pos, "expected a member name, got "+describe(d.data, d.pos))
			return
		}
		key, ok := d.stringBytes()
		if !ok || !visit(key) {
			return
		}
		if d.next() != ':' {
			d.fail(d.pos, "expected ':' after a member name, got "+describe(d.data, d.pos))
			return
		}
		d.pos++
		if !d.skipValue(base) {
			return
		}
		switch d.next() {
		case ',':
			d.pos++
		case '}':
			return
		default:
			d.fail(d.pos, "expected ',' or '}' after an object member, got "+describe(d.data, d.pos))
			return
		}
	}
}

// Missing records that the object just read lacks the required member name. The
// error points at the object's '{'.
func (d *Decoder) Missing(name string) {
	d.fail(d.closed, "missing required member `"+name+"`")
}

// Duplicate records that the member name was given twice in the object being read.
// The error points at the current member's name, with the object's path.
func (d *Decoder) Duplicate(name string) {
	off := d.pos
	if n := len(d.frames); n > 0 && !d.frames[n-1].array {
		off = d.frames[n-1].at
	}
	d.record(off, "member `"+name+"` given twice", true)
}

// Fail records an error with this message at the path of the next value, for what the
// generated code finds wrong, such as an unknown tag of a closed union.
func (d *Decoder) Fail(message string) {
	if d.err == nil {
		d.next()
		d.fail(d.pos, message)
	}
}

// ReadOpt reads null as Null, and any other value as Some of what read returns.
func ReadOpt[T any](d *Decoder, read func(*Decoder) T) Opt[T] {
	if d.IsNull() {
		d.Null()
		return Null[T]()
	}
	v := read(d)
	if d.err != nil {
		return Opt[T]{}
	}
	return Some(v)
}

// ReadList reads an array with read for each element. An empty array gives a non-nil
// empty slice; an error gives nil.
func ReadList[T any](d *Decoder, read func(*Decoder) T) []T {
	if !d.Array() {
		return nil
	}
	list := make([]T, 0)
	for d.Element() {
		list = append(list, read(d))
	}
	if d.err != nil {
		return nil
	}
	return list
}

// ReadMap reads an object into a map with read for each value. A name given twice is
// an error, as it is for the members of a generated type. An error gives nil.
func ReadMap[T any](d *Decoder, read func(*Decoder) T) map[string]T {
	if !d.Object() {
		return nil
	}
	m := make(map[string]T)
	for name, ok := d.Member(); ok; name, ok = d.Member() {
		if _, dup := m[name]; dup {
			d.Duplicate(name)
			return nil
		}
		m[name] = read(d)
	}
	if d.err != nil {
		return nil
	}
	return m
}
