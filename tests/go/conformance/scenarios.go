package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// sandboxSpec is a file's or a scenario's `sandbox:`: the sandbox's flags, and whether a
// reverse proxy is put in front of it.
type sandboxSpec struct {
	args  []string
	proxy bool
}

func (s sandboxSpec) key() string {
	return fmt.Sprintf("%q %v", s.args, s.proxy)
}

// control is a `sandbox` step: `METHOD /_sandbox/...`, with a JSON body when given.
type control struct {
	request string
	body    any
	hasBody bool
}

// expect is a step's `expect`: a key given counts, even with the value null.
type expect struct {
	ok, equals, error  any
	hasOK, hasEquals   bool
	hasError, hasCount bool
	count              int64
}

type step struct {
	call        string
	control     *control
	args        any
	mode        string
	save        string
	expect      expect
	requests    []any
	hasRequests bool
	events      []any
	hasEvents   bool
	minMs       float64
	maxMs       float64
	hasMin      bool
	hasMax      bool
}

// clientSpec is a scenario's client settings, the defaults filled in.
type clientSpec struct {
	credentials map[string]string
	rate        *rate
	settings    object
}

type rate struct {
	requests int
	windowMs int64
}

func (c clientSpec) int(key string) int64 {
	n, _ := integer(c.settings[key])
	return n
}

type scenario struct {
	file, name, iface string
	sandbox           sandboxSpec
	client            clientSpec
	script            []any
	steps             []step
}

// load reads the scenarios of every file in dir (JSON copies of the YAML files), in the
// files' order, checked against the format; names are unique across files.
func load(dir string, f *format) ([]scenario, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no scenario files in %s (cargo xtask writes them): %v", dir, err)
	}
	sort.Strings(paths)
	names := map[string]bool{}
	var all []scenario
	for _, path := range paths {
		file := strings.TrimSuffix(filepath.Base(path), ".json") + ".yaml"
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		doc, err := parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		list, err := scenariosOf(file, doc, names, f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		all = append(all, list...)
	}
	return all, nil
}

func scenariosOf(file string, doc any, names map[string]bool, f *format) ([]scenario, error) {
	if err := f.check(doc, "file", ""); err != nil {
		return nil, err
	}
	top, ok := isObject(doc)
	if !ok {
		return nil, fmt.Errorf("the file is a mapping")
	}
	fileSandbox, err := readSandbox(top["sandbox"], "sandbox")
	if err != nil {
		return nil, err
	}
	list, ok := top["scenarios"].([]any)
	if !ok {
		return nil, fmt.Errorf("`scenarios` is a list")
	}
	var out []scenario
	for i, entry := range list {
		s, err := readScenario(entry, i, fileSandbox, f)
		if err != nil {
			return nil, err
		}
		if names[s.name] {
			return nil, fmt.Errorf("the scenario name `%s` is used twice", s.name)
		}
		names[s.name] = true
		s.file = file
		out = append(out, s)
	}
	return out, nil
}

func readScenario(entry any, i int, fileSandbox sandboxSpec, f *format) (scenario, error) {
	m, ok := isObject(entry)
	name, _ := m["name"].(string)
	if !ok || name == "" {
		return scenario{}, fmt.Errorf("scenario %d has no name", i+1)
	}
	s := scenario{name: name, sandbox: fileSandbox}
	s.iface, _ = m["interface"].(string)
	if s.iface != "v3" && s.iface != "legacy" {
		return s, fmt.Errorf("%s: interface is v3 or legacy, not %s", name, show(m["interface"]))
	}
	if given, ok := m["sandbox"]; ok && given != nil {
		spec, err := readSandbox(given, name+": sandbox")
		if err != nil {
			return s, err
		}
		s.sandbox = spec
	}
	client, err := readClient(f.settings(s.iface, m["client"]), name+": client")
	if err != nil {
		return s, err
	}
	s.client = client
	if script, ok := m["script"]; ok && script != nil {
		if s.script, ok = script.([]any); !ok {
			return s, fmt.Errorf("%s: script is a list", name)
		}
	}
	steps, _ := m["steps"].([]any)
	if len(steps) == 0 {
		return s, fmt.Errorf("%s: has no steps", name)
	}
	for j, st := range steps {
		parsed, err := readStep(st, fmt.Sprintf("%s: step %d", name, j+1))
		if err != nil {
			return s, err
		}
		s.steps = append(s.steps, parsed)
	}
	return s, nil
}

func readSandbox(v any, what string) (sandboxSpec, error) {
	var spec sandboxSpec
	m, ok := isObject(v)
	if !ok {
		return spec, nil
	}
	args, _ := m["args"].([]any)
	for _, a := range args {
		text, ok := a.(string)
		if !ok {
			return spec, fmt.Errorf("%s.args is a list of strings, not %s", what, show(m["args"]))
		}
		spec.args = append(spec.args, text)
	}
	spec.proxy, _ = m["proxy"].(bool)
	return spec, nil
}

func readClient(m object, what string) (clientSpec, error) {
	c := clientSpec{credentials: map[string]string{}, settings: m}
	creds, _ := isObject(m["credentials"])
	for k, v := range creds {
		text, ok := v.(string)
		if !ok {
			return c, fmt.Errorf("%s.credentials.%s is a string, not %s", what, k, show(v))
		}
		c.credentials[k] = text
	}
	if r, ok := isObject(m["rate_limit"]); ok {
		requests, ok1 := integer(r["requests"])
		window, ok2 := integer(r["window_ms"])
		if !ok1 || !ok2 {
			return c, fmt.Errorf("%s.rate_limit needs requests and window_ms", what)
		}
		c.rate = &rate{requests: int(requests), windowMs: window}
	}
	for _, key := range []string{"max_attempts", "initial_backoff_ms", "max_backoff_ms", "timeout_ms",
		"max_polls", "poll_interval_ms", "max_response_bytes", "max_error_bytes", "max_empty_pages"} {
		if _, ok := integer(m[key]); !ok {
			return c, fmt.Errorf("%s.%s is a whole number, not %s", what, key, show(m[key]))
		}
	}
	if _, ok := m["validate"].(bool); !ok {
		return c, fmt.Errorf("%s.validate is true or false", what)
	}
	return c, nil
}

func readStep(v any, what string) (step, error) {
	m, ok := isObject(v)
	if !ok {
		return step{}, fmt.Errorf("%s is a mapping", what)
	}
	s := step{mode: "send", args: m["args"]}
	if mode, ok := m["mode"].(string); ok {
		s.mode = mode
	}
	s.call, _ = m["call"].(string)
	ctl, err := readControl(m["sandbox"], what+".sandbox")
	if err != nil {
		return s, err
	}
	s.control = ctl
	if (s.call == "") == (ctl == nil) {
		return s, fmt.Errorf("%s has exactly one of `call` and `sandbox`", what)
	}
	s.save, _ = m["save"].(string)
	if e, ok := isObject(m["expect"]); ok {
		s.expect.ok, s.expect.hasOK = e["ok"]
		s.expect.equals, s.expect.hasEquals = e["equals"]
		s.expect.error = e["error"]
		s.expect.hasError = e["error"] != nil
		if c, ok := e["count"]; ok {
			if s.expect.count, ok = integer(c); !ok {
				return s, fmt.Errorf("%s.expect.count is a whole number", what)
			}
			s.expect.hasCount = true
		}
	}
	if r, ok := m["expect_requests"]; ok && r != nil {
		if s.requests, ok = r.([]any); !ok {
			return s, fmt.Errorf("%s.expect_requests is a list", what)
		}
		s.hasRequests = true
	}
	if e, ok := m["expect_events"]; ok && e != nil {
		if s.events, ok = e.([]any); !ok {
			return s, fmt.Errorf("%s.expect_events is a list", what)
		}
		s.hasEvents = true
	}
	s.minMs, s.hasMin = number(m["min_ms"])
	s.maxMs, s.hasMax = number(m["max_ms"])
	return s, nil
}

// readControl reads `sandbox: "POST /_sandbox/..."` or `{request: ..., body: ...}`.
func readControl(v any, what string) (*control, error) {
	switch c := v.(type) {
	case nil:
		return nil, nil
	case string:
		return &control{request: c}, nil
	case map[string]any:
		request, ok := c["request"].(string)
		if !ok {
			return nil, fmt.Errorf("%s needs `request`", what)
		}
		body, has := c["body"]
		return &control{request: request, body: body, hasBody: has}, nil
	}
	return nil, fmt.Errorf("%s is a request or a mapping, not %s", what, show(v))
}
