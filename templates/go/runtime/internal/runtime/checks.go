package runtime

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file holds the checks of the documented limits the generated Validate methods run,
// in the words every client of the service uses.

// NoLimit stands for a limit the spec does not set.
const NoLimit = -1

// Violation is one documented limit a value breaks, at its path (`name`, `items[2].id`).
type Violation struct {
	// Path is where the value is, as the wire names it (`vin`, `parts[0].part_number`).
	Path string
	// Message says which limit it breaks, in the words every client of the project uses.
	Message string
}

// ValidationError lists every documented limit a value breaks: nothing is sent until
// they are all kept.
type ValidationError struct {
	// Violations are every limit broken, in the order the value was checked.
	Violations []Violation
}

// Error lists the violations, each with its path.
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = v.Path + ": " + v.Message
	}
	return "invalid request: " + strings.Join(parts, "; ")
}

// Checks gathers the violations of one value and its nested values.
type Checks struct {
	found []Violation
}

// Err is a *ValidationError of the violations found, or nil when there are none.
func (c *Checks) Err() error {
	if len(c.found) == 0 {
		return nil
	}
	return &ValidationError{Violations: c.found}
}

// Add records a violation.
func (c *Checks) Add(path, message string) {
	c.found = append(c.found, Violation{Path: path, Message: message})
}

// Field is the path of the member name of the value at path.
func Field(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// Item is the path of the i-th item of the list at path.
func Item(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// String checks a text's length in characters (maxLength, length: NoLimit when unset)
// and, when allow names a class ("ascii_digits", "ascii_alphanumeric"), its characters,
// none of forbid among them; a secret's character is never shown.
func (c *Checks) String(text string, secret bool, maxLength, length int, allow, forbid, path string) {
	n := utf8.RuneCountInString(text)
	if maxLength != NoLimit && n > maxLength {
		c.Add(path, fmt.Sprintf("must be at most %d characters, got %d", maxLength, n))
	}
	if length != NoLimit && n != length {
		c.Add(path, fmt.Sprintf("must be exactly %d characters, got %d", length, n))
	}
	if allow == "" {
		return
	}
	position := 0
	for _, r := range text {
		position++
		if !allowed(allow, r) || strings.ContainsRune(forbid, r) {
			found := "a character not allowed"
			if !secret {
				found = quoted(r)
			}
			c.Add(path, fmt.Sprintf("must hold only %s%s; found %s at position %d",
				describeClass(allow), never(forbid), found, position))
			return
		}
	}
}

func allowed(allow string, r rune) bool {
	digit := r >= '0' && r <= '9'
	if allow == "ascii_digits" {
		return digit
	}
	return digit || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

func describeClass(allow string) string {
	if allow == "ascii_digits" {
		return "ASCII digits"
	}
	return "ASCII letters and digits"
}

func never(forbid string) string {
	if forbid == "" {
		return ""
	}
	chars := make([]string, 0, len(forbid))
	for _, r := range forbid {
		chars = append(chars, string(r))
	}
	return ", never " + strings.Join(chars, ", ")
}

// quoted shows a character as the other clients do: in single quotes, control
// characters escaped.
func quoted(r rune) string {
	switch r {
	case '\n':
		return `'\n'`
	case '\r':
		return `'\r'`
	case '\t':
		return `'\t'`
	case '\\':
		return `'\\'`
	case '\'':
		return `'\''`
	}
	if r < 0x20 {
		return fmt.Sprintf(`'\u{%x}'`, r)
	}
	return "'" + string(r) + "'"
}

// Range checks a whole number against its documented bounds; nil bounds are unset.
func (c *Checks) Range(n int64, min, max *int64, path string) {
	if min != nil && n < *min {
		c.Add(path, fmt.Sprintf("must be at least %d, got %d", *min, n))
	}
	if max != nil && n > *max {
		c.Add(path, fmt.Sprintf("must be at most %d, got %d", *max, n))
	}
}

// DecimalRange checks a number's exact text against its documented bounds; nil bounds
// are unset, and text that is not a number is reported as such.
func (c *Checks) DecimalRange(text string, min, max *int64, path string) {
	n, ok := new(big.Rat).SetString(text)
	if !ok {
		c.Add(path, fmt.Sprintf("must be a number, got %q", text))
		return
	}
	if min != nil && n.Cmp(new(big.Rat).SetInt64(*min)) < 0 {
		c.Add(path, fmt.Sprintf("must be at least %d, got %s", *min, text))
	}
	if max != nil && n.Cmp(new(big.Rat).SetInt64(*max)) > 0 {
		c.Add(path, fmt.Sprintf("must be at most %d, got %s", *max, text))
	}
}

// Items checks how many items a list holds (NoLimit when unset).
func (c *Checks) Items(n, minItems, maxItems int, path string) {
	if minItems != NoLimit && n < minItems {
		c.Add(path, fmt.Sprintf("must have at least %d items, got %d", minItems, n))
	}
	if maxItems != NoLimit && n > maxItems {
		c.Add(path, fmt.Sprintf("must have at most %d items, got %d", maxItems, n))
	}
}

// Bound is a documented bound, for Range and DecimalRange.
func Bound(n int64) *int64 { return &n }

// OneOf records that a closed enum's value is none of the listed ones (listed: the
// values, quoted and joined).
func (c *Checks) OneOf(path, value, listed string) {
	c.Add(path, fmt.Sprintf("must be one of %s, got `%s`", listed, value))
}

// ExactlyOne records, unless exactly one group of an exactly-one-of choice is given,
// that one must be: all names the groups, given those set.
func (c *Checks) ExactlyOne(path, all string, given []string) {
	if len(given) == 1 {
		return
	}
	found := "none"
	if len(given) > 0 {
		found = strings.Join(given, " and ")
	}
	c.Add(path, fmt.Sprintf("expected exactly one of %s, found %s", all, found))
}
