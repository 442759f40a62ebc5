package runtime

import (
	"unicode/utf16"
	"unicode/utf8"
)

// This file holds the Decoder's lexing: whitespace, strings, numbers, literals, and
// skipping whole values without recursion.

// maxDepth caps the nesting of arrays and objects, so that a hostile document cannot
// make the caller's generated code recurse without end.
const maxDepth = 512

// maxNumberLen caps the numbers Number returns.
const maxNumberLen = 1000

// inString marks the bytes a string holds as they are when skipped: everything but
// the quote, the backslash and the control characters (invalid UTF-8 is replaced, not
// refused, so it needs no check here).
var inString = func() (t [256]bool) {
	for c := 0x20; c < 0x100; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// next skips whitespace and returns the next byte, or -1 at the end of the input.
func (d *Decoder) next() int {
	for d.pos < len(d.data) {
		switch c := d.data[d.pos]; c {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return int(c)
		}
	}
	return -1
}

// stringBytes reads the string opening at d.pos and returns its text. The text is a
// slice of the input when the string is plain ASCII without escapes, else d.scratch:
// either way it is only valid until the next read.
func (d *Decoder) stringBytes() ([]byte, bool) {
	data := d.data
	start := d.pos + 1
	i := start
	for i < len(data) && plain[data[i]] {
		i++
	}
	if i < len(data) && data[i] == '"' {
		d.pos = i + 1
		return data[start:i], true
	}
	return d.slowString(start, i)
}

// slowString finishes a string from i, after the plain bytes start..i, decoding its
// escapes and replacing invalid UTF-8.
func (d *Decoder) slowString(start, i int) ([]byte, bool) {
	data := d.data
	buf := append(d.scratch[:0], data[start:i]...)
	for {
		if i >= len(data) {
			d.fail(i, "unexpected end of the input in a string")
			return nil, false
		}
		switch c := data[i]; {
		case plain[c]:
			j := i + 1
			for j < len(data) && plain[data[j]] {
				j++
			}
			buf = append(buf, data[i:j]...)
			i = j
		case c == '"':
			d.pos = i + 1
			d.scratch = buf
			return buf, true
		case c == '\\':
			r, n := d.escape(i)
			if n == 0 {
				return nil, false
			}
			buf = utf8.AppendRune(buf, r)
			i += n
		case c < 0x20:
			d.fail(i, "control character "+describeByte(data, i)+" in a string")
			return nil, false
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				buf = append(buf, "\uFFFD"...)
			} else {
				buf = append(buf, data[i:i+size]...)
			}
			i += size
		}
	}
}

// escape decodes the escape at i and returns its rune and length, or a length of 0
// after recording an error. A lone surrogate becomes U+FFFD, as in encoding/json.
func (d *Decoder) escape(i int) (rune, int) {
	data := d.data
	if i+1 >= len(data) {
		d.fail(i, "unexpected end of the input in a string")
		return 0, 0
	}
	switch data[i+1] {
	case '"', '\\', '/':
		return rune(data[i+1]), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r, ok := hex4(data, i+2)
		if !ok {
			d.fail(i, `invalid \u escape in a string`)
			return 0, 0
		}
		if !utf16.IsSurrogate(r) {
			return r, 6
		}
		// A high surrogate pairs with a low one in the escape that follows; anything
		// else leaves it alone, and that next escape is read on its own.
		if i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
			if r2, ok := hex4(data, i+8); ok {
				if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
					return pair, 12
				}
			}
		}
		return utf8.RuneError, 6
	}
	d.fail(i, "invalid escape "+describeByte(data, i+1)+" in a string")
	return 0, 0
}

// hex4 decodes the four hex digits at i.
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// skipString checks the string opening at d.pos and moves past it, decoding nothing.
func (d *Decoder) skipString() bool {
	data := d.data
	i := d.pos + 1
	for {
		for i < len(data) && inString[data[i]] {
			i++
		}
		if i >= len(data) {
			d.fail(i, "unexpected end of the input in a string")
			return false
		}
		switch data[i] {
		case '"':
			d.pos = i + 1
			return true
		case '\\':
			if i+1 < len(data) && data[i+1] == 'u' {
				if _, ok := hex4(data, i+2); !ok {
					d.fail(i, `invalid \u escape in a string`)
					return false
				}
				i += 6
				continue
			}
			if _, n := d.escape(i); n == 0 {
				return false
			}
			i += 2
		default:
			d.fail(i, "control character "+describeByte(data, i)+" in a string")
			return false
		}
	}
}

// scanNumber checks the number at d.pos against RFC 8259's grammar and returns where
// it ends, without moving.
func (d *Decoder) scanNumber() (int, bool) {
	data := d.data
	i := d.pos
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		i = digitsEnd(data, i)
	default:
		return d.badNumber(i)
	}
	if i < len(data) && data[i] == '.' {
		if i++; i >= len(data) || !isDigit(data[i]) {
			return d.badNumber(i)
		}
		i = digitsEnd(data, i)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		if i++; i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return d.badNumber(i)
		}
		i = digitsEnd(data, i)
	}
	// What follows must end the number: this refuses leading zeros as in 01, and
	// runs such as 1.5.2 or 12abc, as one bad number rather than a confusing later
	// error about a missing comma.
	if i < len(data) && numberTail[data[i]] {
		return d.badNumber(i)
	}
	return i, true
}

func (d *Decoder) badNumber(i int) (int, bool) {
	end := min(i+1, len(d.data))
	d.fail(i, "invalid number "+snippet(d.data[d.pos:end]))
	return 0, false
}

// numberTail marks the bytes that cannot follow a number.
var numberTail = func() (t [256]bool) {
	for _, c := range []byte("0123456789.+-eE") {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	return t
}()

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digitsEnd(data []byte, i int) int {
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	return i
}

// hasLiteral reports whether data starts with the literal lit, not followed by more
// letters or digits.
func hasLiteral(data []byte, lit string) bool {
	return len(data) >= len(lit) && string(data[:len(lit)]) == lit &&
		(len(data) == len(lit) || !numberTail[data[len(lit)]])
}

// literal consumes the literal lit at d.pos.
func (d *Decoder) literal(lit string) bool {
	if !hasLiteral(d.data[d.pos:], lit) {
		d.fail(d.pos, "invalid literal, expected "+lit)
		return false
	}
	d.pos += len(lit)
	return true
}

// skipScalar consumes the string, number or literal starting with c.
func (d *Decoder) skipScalar(c int) bool {
	switch c {
	case '"':
		return d.skipString()
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		end, ok := d.scanNumber()
		d.pos = max(d.pos, end)
		return ok
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case 'n':
		return d.literal("null")
	}
	d.fail(d.pos, "expected a value, got "+describe(d.data, d.pos))
	return false
}

// skipName consumes a member's name and its colon.
func (d *Decoder) skipName() bool {
	if d.next() != '"' {
		d.fail(d.pos, "expected a member name, got "+describe(d.data, d.pos))
		return false
	}
	if !d.skipString() {
		return false
	}
	if d.next() != ':' {
		d.fail(d.pos, "expected ':' after a member name, got "+describe(d.data, d.pos))
		return false
	}
	d.pos++
	return true
}

// skipValue consumes the next value whole, checking it, with base levels of nesting
// already open. It keeps which open containers are arrays in a bit set rather than
// recursing, so that no input can exhaust the stack.
func (d *Decoder) skipValue(base int) bool {
	var arrays [maxDepth / 64]uint64
	depth := 0
	for {
		switch c := d.next(); c {
		case '{', '[':
			if base+depth >= maxDepth {
				d.fail(d.pos, tooDeep)
				return false
			}
			isArray := c == '['
			bit := uint64(1) << (depth % 64)
			if isArray {
				arrays[depth/64] |= bit
			} else {
				arrays[depth/64] &^= bit
			}
			depth++
			d.pos++
			if e := d.next(); e == '}' && !isArray || e == ']' && isArray {
				d.pos++
				depth--
			} else {
				if !isArray && !d.skipName() {
					return false
				}
				continue
			}
		default:
			if !d.skipScalar(c) {
				return false
			}
		}
		var ok bool
		if depth, ok = d.skipClosers(&arrays, depth); !ok || depth == 0 {
			return ok
		}
	}
}

// skipClosers follows a value inside open containers: it consumes the brackets that
// close them, then the comma (and the name) before the next value, if any.
func (d *Decoder) skipClosers(arrays *[maxDepth / 64]uint64, depth int) (int, bool) {
	for depth > 0 {
		isArray := arrays[(depth-1)/64]&(1<<((depth-1)%64)) != 0
		switch c := d.next(); {
		case c == ',':
			d.pos++
			return depth, isArray || d.skipName()
		case c == ']' && isArray, c == '}' && !isArray:
			d.pos++
			depth--
		case isArray:
			d.fail(d.pos, "expected ',' or ']' after an array element, got "+describe(d.data, d.pos))
			return depth, false
		default:
			d.fail(d.pos, "expected ',' or '}' after an object member, got "+describe(d.data, d.pos))
			return depth, false
		}
	}
	return 0, true
}

const tooDeep = "nesting deeper than 512 arrays and objects"
