package conformance

import (
	"fmt"
	"strings"
)

// format is tests/conformance/format.json: the keys of each kind of mapping, what each
// holds, and the client settings' defaults.
type format struct {
	mappings map[string]object
	client   object
	creds    map[string]object
}

func loadFormat(path string) (*format, error) {
	doc, err := readJSON(path)
	if err != nil {
		return nil, err
	}
	top, _ := isObject(doc)
	f := &format{mappings: map[string]object{}, creds: map[string]object{}}
	mappings, _ := isObject(top["mappings"])
	for kind, keys := range mappings {
		f.mappings[kind], _ = isObject(keys)
	}
	defaults, _ := isObject(top["defaults"])
	f.client, _ = isObject(defaults["client"])
	creds, _ := isObject(defaults["credentials"])
	for iface, c := range creds {
		f.creds[iface], _ = isObject(c)
	}
	if len(f.mappings) == 0 || f.client == nil {
		return nil, fmt.Errorf("%s: no mappings or client defaults", path)
	}
	return f, nil
}

func join(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

// check refuses a key value (a mapping of kind, at the path at) may not have, anywhere in
// it, and a value the format does not allow. A value of another shape than the format
// names is left to the reader.
func (f *format) check(value any, kind, at string) error {
	m, ok := isObject(value)
	if !ok {
		return nil
	}
	keys := f.mappings[kind]
	for key, v := range m {
		holds, known := keys[key]
		if !known {
			where := at
			if where == "" {
				where = "the file"
			}
			return fmt.Errorf("unknown key `%s` in %s", key, where)
		}
		inner := join(at, key)
		switch h := holds.(type) {
		case string:
			if err := f.check(v, h, inner); err != nil {
				return err
			}
		case []any:
			list, _ := v.([]any)
			for i, entry := range list {
				if err := f.check(entry, fmt.Sprint(h[0]), fmt.Sprintf("%s[%d]", inner, i)); err != nil {
					return err
				}
			}
		case map[string]any:
			allowed, _ := h["one_of"].([]any)
			text, _ := v.(string)
			found := false
			for _, a := range allowed {
				found = found || a == text
			}
			if !found {
				return fmt.Errorf("%s is one of %s, not %s", inner, show(allowed), show(v))
			}
		}
	}
	return nil
}

// settings are a scenario's client settings: each given (not null), else the default;
// the credentials key by key.
func (f *format) settings(iface string, given any) object {
	client := object{}
	for k, v := range f.client {
		client[k] = v
	}
	creds := object{}
	for k, v := range f.creds[iface] {
		creds[k] = v
	}
	client["credentials"] = creds
	m, _ := isObject(given)
	for key, v := range m {
		if key == "credentials" {
			over, _ := isObject(v)
			for k, c := range over {
				if c != nil {
					creds[k] = c
				}
			}
			continue
		}
		if v != nil {
			client[key] = v
		}
	}
	return client
}

// words is a list of strings at key of m, taken out of it.
func words(m object, key string) ([]string, error) {
	v, ok := m[key]
	delete(m, key)
	if !ok {
		return nil, nil
	}
	list, ok := v.([]any)
	out := make([]string, 0, len(list))
	for _, w := range list {
		s, isText := w.(string)
		ok = ok && isText
		out = append(out, s)
	}
	if !ok {
		// A misspelt list must fail, not turn the check off.
		return nil, fmt.Errorf("`%s` must be a list of strings, got %s", key, show(v))
	}
	return out, nil
}

// label names a step in failures.
func label(s *step) string {
	if s.call != "" {
		return "call " + s.call
	}
	return "sandbox " + strings.TrimSpace(s.control.request)
}
