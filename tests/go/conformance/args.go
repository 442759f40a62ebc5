package conformance

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// args are a step's `args`, taken key by key, so that leftovers can be named.
type args struct {
	path, query, other object
	body               any
	hasBody            bool
}

func newArgs(v any) (*args, error) {
	a := &args{path: object{}, query: object{}, other: object{}}
	if v == nil {
		return a, nil
	}
	m, ok := isObject(v)
	if !ok {
		return nil, fmt.Errorf("`args` is a mapping, not %s", show(v))
	}
	for k, e := range m {
		switch k {
		case "path", "query":
			section, ok := isObject(e)
			if e != nil && !ok {
				return nil, fmt.Errorf("`args.%s` is a mapping, not %s", k, show(e))
			}
			for name, value := range section {
				map[string]object{"path": a.path, "query": a.query}[k][name] = value
			}
		case "body":
			a.body, a.hasBody = e, true
		default:
			a.other[k] = e
		}
	}
	return a, nil
}

func (a *args) take(name string) (any, bool) {
	v, ok := a.other[name]
	delete(a.other, name)
	return v, ok && v != nil
}

func (a *args) string(name string, required bool) (string, bool, error) {
	v, ok := a.take(name)
	if !ok {
		if required {
			return "", false, fmt.Errorf("`args.%s` is required", name)
		}
		return "", false, nil
	}
	text, isText := v.(string)
	if !isText {
		return "", false, fmt.Errorf("`args.%s` is a string, not %s", name, show(v))
	}
	return text, true, nil
}

func (a *args) strings(name string) ([]string, error) {
	v, _ := a.take(name)
	list, ok := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		text, isText := e.(string)
		ok = ok && isText
		out = append(out, text)
	}
	if !ok {
		return nil, fmt.Errorf("`args.%s` is a list of strings, not %s", name, show(v))
	}
	return out, nil
}

// finish fails when an argument was given that the call does not take.
func (a *args) finish() error {
	var left []string
	for k := range a.path {
		left = append(left, "path."+k)
	}
	for k := range a.query {
		left = append(left, "query."+k)
	}
	if a.hasBody {
		left = append(left, "body")
	}
	for k := range a.other {
		left = append(left, k)
	}
	if len(left) > 0 {
		sort.Strings(left)
		return fmt.Errorf("this call takes no `args.%s`", strings.Join(left, "`, `args."))
	}
	return nil
}

// convert is a JSON value as the Go type t reads it (its UnmarshalJSON, or encoding/json's).
func convert(v any, t reflect.Type, what string) (reflect.Value, error) {
	data, err := marshal(v)
	if err != nil {
		return reflect.Value{}, err
	}
	p := reflect.New(t)
	if err := json.Unmarshal(data, p.Interface()); err != nil {
		return reflect.Value{}, fmt.Errorf("`args.%s` does not fit %s: %w", what, t, err)
	}
	return p.Elem(), nil
}

// input is a path value or a required query value.
func (a *args) input(in input, t reflect.Type) (reflect.Value, error) {
	section, what := a.query, "query."+in.name
	if in.path {
		section, what = a.path, "path."+in.name
	}
	v, ok := section[in.name]
	delete(section, in.name)
	if !ok {
		return reflect.Value{}, fmt.Errorf("`args.%s` is required", what)
	}
	if in.path && t.Kind() == reflect.String {
		text, err := pathText(v, what)
		if err != nil {
			return reflect.Value{}, err
		}
		return reflect.ValueOf(text).Convert(t), nil
	}
	return convert(v, t, what)
}

// pathText is a path value as text: an id, or a record reference written as the
// interface writes it (`{external: X}` as `_X`, `{self: true}` as `self`).
func pathText(v any, what string) (string, error) {
	switch c := v.(type) {
	case string:
		return c, nil
	case json.Number:
		return string(c), nil
	case map[string]any:
		if external, ok := c["external"].(string); ok && len(c) == 1 {
			return "_" + external, nil
		}
		if c["self"] == true && len(c) == 1 {
			return "self", nil
		}
	}
	return "", fmt.Errorf("`args.%s`: an id, {external: ...} or {self: true}, not %s", what, show(v))
}

// bodyValue is the body (the bytes of `body_text` for a body of bytes, with the call
// option of `content_type`), or the absent Opt of an optional body not given.
func (a *args) bodyValue(op *operation, iface string, t reflect.Type) (reflect.Value, []reflect.Value, error) {
	if op.body.binary {
		text, _, err := a.string("body_text", true)
		if err != nil {
			return reflect.Value{}, nil, err
		}
		var opts []reflect.Value
		if ct, given, err := a.string("content_type", false); err != nil {
			return reflect.Value{}, nil, err
		} else if given {
			opt, err := contentType(iface, ct)
			if err != nil {
				return reflect.Value{}, nil, err
			}
			opts = append(opts, opt)
		}
		return reflect.ValueOf([]byte(text)).Convert(t), opts, nil
	}
	v, given := a.body, a.hasBody
	a.body, a.hasBody = nil, false
	if !given {
		if !op.body.optional {
			return reflect.Value{}, nil, fmt.Errorf("`args.body` is required")
		}
		return reflect.Zero(t), nil, nil
	}
	value, err := convert(v, t, "body")
	return value, nil, err
}

// queryStruct is the struct of optional query values, each given value in the field of
// its name.
func (a *args) queryStruct(names []string, t reflect.Type) (reflect.Value, error) {
	s := reflect.New(t).Elem()
	for _, name := range names {
		v, ok := a.query[name]
		delete(a.query, name)
		if !ok {
			continue
		}
		field, found := s, false
		for i := 0; i < t.NumField(); i++ {
			if normalized(t.Field(i).Name) == normalized(name) {
				field, found = s.Field(i), true
			}
		}
		if !found {
			return reflect.Value{}, fmt.Errorf("%s has no field for `%s`", t, name)
		}
		value, err := convert(v, field.Type(), "query."+name)
		if err != nil {
			return reflect.Value{}, err
		}
		field.Set(value)
	}
	return s, nil
}
