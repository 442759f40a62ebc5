package conformance

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// vars are the results saved by earlier steps, and `origin`.
type vars map[string]any

var digits = regexp.MustCompile(`^[0-9]+$`)

func (v vars) lookup(reference string) (any, error) {
	parts := strings.Split(reference, ".")
	value, ok := v[parts[0]]
	if !ok {
		return nil, fmt.Errorf("`${%s}`: nothing was saved as `%s`", reference, parts[0])
	}
	for _, part := range parts[1:] {
		var next any
		found := false
		switch c := value.(type) {
		case []any:
			if digits.MatchString(part) {
				i, _ := strconv.Atoi(part)
				if i < len(c) {
					next, found = c[i], true
				}
			}
		case map[string]any:
			next, found = c[part]
		}
		if !found {
			return nil, fmt.Errorf("`${%s}`: `%s` is not in %s", reference, part, show(value))
		}
		value = next
	}
	return value, nil
}

func (v vars) fillString(s string) (any, error) {
	if strings.HasPrefix(s, "${") && strings.HasSuffix(s, "}") && !strings.Contains(s[2:], "${") {
		return v.lookup(s[2 : len(s)-1])
	}
	var out strings.Builder
	rest := s
	for {
		start := strings.Index(rest, "${")
		if start < 0 {
			break
		}
		out.WriteString(rest[:start])
		after := rest[start+2:]
		end := strings.Index(after, "}")
		if end < 0 {
			return nil, fmt.Errorf("`%s`: `${` without a closing `}`", s)
		}
		value, err := v.lookup(after[:end])
		if err != nil {
			return nil, err
		}
		if text, ok := value.(string); ok {
			out.WriteString(text)
		} else {
			out.WriteString(show(value))
		}
		rest = after[end+1:]
	}
	out.WriteString(rest)
	return out.String(), nil
}

// fill replaces every `${name.path}` in the strings of value (a whole-string reference
// keeps its JSON type).
func (v vars) fill(value any) (any, error) {
	switch c := value.(type) {
	case string:
		return v.fillString(c)
	case []any:
		out := make([]any, len(c))
		for i, e := range c {
			f, err := v.fill(e)
			if err != nil {
				return nil, err
			}
			out[i] = f
		}
		return out, nil
	case map[string]any:
		out := make(object, len(c))
		for k, e := range c {
			f, err := v.fill(e)
			if err != nil {
				return nil, err
			}
			out[k] = f
		}
		return out, nil
	}
	return value, nil
}

// same is equality, numbers by value, objects with the same keys.
func same(a, b any) bool {
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !same(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !same(v, w) {
				return false
			}
		}
		return true
	}
	if n, ok := number(a); ok {
		m, isNumber := number(b)
		return isNumber && n == m
	}
	return a == b
}

// matcher is a pattern's `{$name: argument}`, if it is one.
func matcher(pattern any) (string, any, bool) {
	m, ok := isObject(pattern)
	if !ok || len(m) != 1 {
		return "", nil, false
	}
	for k, v := range m {
		if strings.HasPrefix(k, "$") {
			return k, v, true
		}
	}
	return "", nil, false
}

// check matches actual (present false: absent) against pattern, as the README's patterns
// say; at names the place in failures ("" for the result).
func check(pattern, actual any, present bool, at string) error {
	here := at
	if here == "" {
		here = "the result"
	}
	if name, arg, ok := matcher(pattern); ok {
		matched, err := matches(name, arg, actual, present)
		if err != nil {
			return fmt.Errorf("%s: %w", here, err)
		}
		if !matched {
			return fmt.Errorf("%s: expected %s, got %s", here, show(pattern), shown(actual, present))
		}
		return nil
	}
	if !present {
		return fmt.Errorf("%s: expected %s, got nothing", here, show(pattern))
	}
	if p, ok := isObject(pattern); ok {
		if a, ok := isObject(actual); ok {
			for k, v := range p {
				got, has := a[k]
				if err := check(v, got, has, join(at, k)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if p, ok := pattern.([]any); ok {
		if a, ok := actual.([]any); ok {
			if len(p) != len(a) {
				return fmt.Errorf("%s: expected %d entries, got %d: %s", here, len(p), len(a), show(a))
			}
			for i := range p {
				if err := check(p[i], a[i], true, fmt.Sprintf("%s[%d]", at, i)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	if !same(pattern, actual) {
		return fmt.Errorf("%s: expected %s, got %s", here, show(pattern), show(actual))
	}
	return nil
}

func shown(v any, present bool) string {
	if !present {
		return "nothing"
	}
	return show(v)
}

func matches(name string, arg, actual any, present bool) (bool, error) {
	switch name {
	case "$absent":
		return !present, nil
	case "$any":
		return present, nil
	case "$at_least":
		n, ok1 := number(actual)
		least, ok2 := number(arg)
		return present && ok1 && ok2 && n >= least, nil
	case "$starts_with":
		text, ok1 := actual.(string)
		prefix, ok2 := arg.(string)
		return present && ok1 && ok2 && strings.HasPrefix(text, prefix), nil
	case "$json":
		text, ok := actual.(string)
		if !present || !ok {
			return false, nil
		}
		parsed, err := parse([]byte(text))
		return err == nil && same(arg, parsed), nil
	}
	return false, fmt.Errorf("unknown matcher `%s`", name)
}

// text is a number or boolean pattern as the JSON text a query value is compared with.
func text(pattern any) any {
	switch p := pattern.(type) {
	case json.Number:
		return string(p)
	case bool:
		return strconv.FormatBool(p)
	case []any:
		out := make([]any, len(p))
		for i, e := range p {
			out[i] = text(e)
		}
		return out
	}
	return pattern
}
