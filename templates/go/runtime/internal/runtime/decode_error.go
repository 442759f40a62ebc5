package runtime

import (
	"strconv"
	"unicode/utf8"
)

// DecodeError is a JSON document that is malformed or does not fit its type, with the
// JSON path of the value where it went wrong and the offset of the offending byte.
type DecodeError struct {
	// Path is the JSON path of the value, as in $.data[3].id; names that are not
	// plain identifiers are quoted, as in $["a b"].
	Path string
	// Offset is the offset of the offending byte, counted from 0; for a value that
	// does not fit, the offset of its first byte.
	Offset int
	// Message says what went wrong, as in "expected a string, got a number".
	Message string
	// Status is the HTTP status of the answer the document came in, or 0 for one that
	// came otherwise (a webhook delivery).
	Status int
}

// Error returns the error as "cannot decode PATH (byte OFFSET): MESSAGE".
func (e *DecodeError) Error() string {
	return "cannot decode " + e.Path + " (byte " + strconv.Itoa(e.Offset) + "): " + e.Message
}

// seg is one step of a JSON path: a member name or an array index.
type seg struct {
	name  string
	index int
	array bool
}

// formatPath writes segs as a path from the root, $.
func formatPath(segs []seg) string {
	b := []byte{'$'}
	for _, s := range segs {
		switch {
		case s.array:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.index), 10)
			b = append(b, ']')
		case isIdentifier(s.name):
			b = append(b, '.')
			b = append(b, s.name...)
		default:
			b = append(b, '[')
			b = appendQuoted(b, s.name)
			b = append(b, ']')
		}
	}
	return string(b)
}

func isIdentifier(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return name != ""
}

// walkPath returns the steps from the value starting at start down to the byte at
// off. The decoder has checked the bytes before off, so this only tracks brackets,
// commas and member names; it is run once, when an error is recorded inside a value
// that was skipped or looked into rather than read step by step.
func walkPath(data []byte, start, off int) []seg {
	type level struct {
		seg
		named bool // an object's member name has been read: the path goes into it
	}
	var stack []level
	for i := start; i < off && i < len(data); i++ {
		switch data[i] {
		case '{':
			stack = append(stack, level{})
		case '[':
			stack = append(stack, level{seg: seg{array: true}})
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if n := len(stack); n > 0 {
				stack[n-1].index++
				stack[n-1].named = false
			}
		case '"':
			end := stringEnd(data, i)
			if end >= off {
				i = off // the error is inside this string
				break
			}
			if n := len(stack); n > 0 && !stack[n-1].array && !stack[n-1].named {
				t := Decoder{data: data[:end+1], pos: i}
				b, _ := t.stringBytes()
				stack[n-1].name, stack[n-1].named = string(b), true
			}
			i = end
		}
	}
	segs := make([]seg, 0, len(stack))
	for _, l := range stack {
		if l.array || l.named {
			segs = append(segs, l.seg)
		}
	}
	return segs
}

// stringEnd returns the offset of the quote closing the string that opens at i, or
// len(data) when it is not closed.
func stringEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(data)
}

// describe names the value or token at off, for "expected X, got Y" messages.
func describe(data []byte, off int) string {
	if off >= len(data) {
		return "the end of the input"
	}
	switch c := data[off]; c {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return "a number"
	case 't', 'f':
		if hasLiteral(data[off:], "true") || hasLiteral(data[off:], "false") {
			return "a boolean"
		}
	case 'n':
		if hasLiteral(data[off:], "null") {
			return "null"
		}
	}
	return describeByte(data, off)
}

// describeByte names a byte that starts no value: a character when it is printable.
func describeByte(data []byte, off int) string {
	c := data[off]
	if c >= 0x20 && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	if r, size := utf8.DecodeRune(data[off:]); c >= utf8.RuneSelf && size > 1 {
		return strconv.QuoteRune(r)
	}
	return "byte 0x" + string(hexDigits[c>>4]) + string(hexDigits[c&0xF])
}

// snippet quotes the start of a text for a message, so that a huge value does not
// make a huge message.
func snippet(b []byte) string {
	const most = 40
	if len(b) > most {
		return strconv.Quote(string(b[:most])) + "..."
	}
	return strconv.Quote(string(b))
}
