package runtime

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
)

// This file holds what a generated client's methods share: a value's text in a path or a
// query, a JSON body, and an answer's body read into its type.

// Text is the text of v in a path segment or a query value, as every client of the
// service sends it: a string as it is, anything else as its JSON (a number's digits,
// true or false, a date-time in RFC 3339, an object's JSON text).
func Text[T any](v T, write func(*Encoder, T)) string {
	var e Encoder
	write(&e, v)
	text := e.Bytes()
	if len(text) > 0 && text[0] == '"' {
		var s string
		if json.Unmarshal(text, &s) == nil {
			return s
		}
	}
	return string(text)
}

// Segment is text as one path segment, escaped; a value that cannot be one segment (empty,
// `.` or `..`, which a server or proxy would resolve as a path of their own, or one
// holding a control character, which some servers cut the path at) is refused by the
// name of its parameter, with or without validation.
func Segment(name, text string) (string, error) {
	problem := ""
	switch {
	case text == "" || text == "." || text == "..":
		problem = "must be a path segment: not empty, `.` or `..`"
	case strings.ContainsFunc(text, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		problem = "must be a path segment: it holds a control character"
	}
	if problem != "" {
		return "", &ValidationError{Violations: []Violation{{Path: name, Message: problem}}}
	}
	return url.PathEscape(text), nil
}

// JSON is the JSON text of a body.
func JSON[T any](v T, write func(*Encoder, T)) []byte {
	var e Encoder
	write(&e, v)
	return e.Bytes()
}

// Read reads an answer's body as a T, all of it.
func Read[T any](answer *Answer, read func(*Decoder) T) (T, error) {
	d := NewDecoder(answer.Body)
	v := read(d)
	if err := d.Finish(); err != nil {
		var decode *DecodeError
		if errors.As(err, &decode) {
			decode.Status = answer.Status
		}
		var zero T
		return zero, err
	}
	return v, nil
}

// StartAt points a list's call at the page at names: a cursor goes in the query value
// cursorParam (a list paged by cursor), a link is called as it is; the zero Resume
// leaves the call at the first page.
func (c *Call) StartAt(at Resume, cursorParam string) {
	if at.Cursor != "" && cursorParam != "" {
		c.SetQuery(cursorParam, at.Cursor)
	}
	if at.Link != "" {
		c.Path, c.Query = at.Link, nil
	}
}

// SetQuery sets a query value of the call, making its query when it has none.
func (c *Call) SetQuery(name, value string) {
	if c.Query == nil {
		c.Query = url.Values{}
	}
	c.Query.Set(name, value)
}
