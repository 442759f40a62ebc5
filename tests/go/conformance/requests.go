package conformance

import (
	"fmt"
	"strings"
)

// checkRequests holds what the sandbox recorded to a step's `expect_requests`: as many,
// each matching in order.
func checkRequests(expected, recorded []any) error {
	listing := func() string {
		var b strings.Builder
		for _, r := range recorded {
			m, _ := isObject(r)
			q, _ := m["query"].(string)
			if q != "" {
				q = "?" + q
			}
			fmt.Fprintf(&b, "\n  %v %v%s -> %s", m["method"], m["path"], q, show(m["status"]))
		}
		return b.String()
	}
	if len(expected) != len(recorded) {
		return fmt.Errorf("expected %d requests, the sandbox received %d:%s", len(expected), len(recorded), listing())
	}
	for i := range expected {
		got, _ := isObject(recorded[i])
		var previous object
		if i > 0 {
			previous, _ = isObject(recorded[i-1])
		}
		if err := checkRequest(expected[i], got, previous); err != nil {
			return fmt.Errorf("request %d: %w\nreceived:%s", i, err, listing())
		}
	}
	return nil
}

func checkRequest(wantJSON any, got, previous object) error {
	want, ok := isObject(wantJSON)
	if !ok {
		return fmt.Errorf("an expected request is a mapping, not %s", show(wantJSON))
	}
	ignored := func(what string) bool {
		list, _ := want["ignore"].([]any)
		for _, w := range list {
			if w == what {
				return true
			}
		}
		return false
	}
	method, _ := want["method"].(string)
	gotMethod, _ := got["method"].(string)
	if method == "" || !strings.EqualFold(method, gotMethod) {
		return fmt.Errorf("expected method %s, got %s", show(want["method"]), gotMethod)
	}
	path, _ := want["path"].(string)
	gotPath, _ := got["path"].(string)
	if prefix, ok := strings.CutSuffix(path, "*"); !ok && path != gotPath || ok && !strings.HasPrefix(gotPath, prefix) || path == "" {
		return fmt.Errorf("expected path %s, got %s", show(want["path"]), gotPath)
	}
	if !ignored("query") {
		if err := checkQuery(want["query"], got["query_pairs"]); err != nil {
			return err
		}
	}
	if err := checkHeaders(want["headers"], got["headers"]); err != nil {
		return err
	}
	if !ignored("body") {
		if err := checkBody(want, got); err != nil {
			return err
		}
	}
	if status, ok := want["status"]; ok && !same(status, got["status"]) {
		return fmt.Errorf("expected the sandbox to answer %s, it answered %s", show(status), show(got["status"]))
	}
	return checkGaps(want, got, previous)
}

func checkQuery(want, pairs any) error {
	got := map[string][]any{}
	var order []string
	list, _ := pairs.([]any)
	for _, p := range list {
		pair, _ := p.([]any)
		if len(pair) != 2 {
			continue
		}
		name, _ := pair[0].(string)
		if _, seen := got[name]; !seen {
			order = append(order, name)
		}
		got[name] = append(got[name], pair[1])
	}
	expected := object{}
	if want != nil {
		m, ok := isObject(want)
		if !ok {
			return fmt.Errorf("`query` is a mapping, not %s", show(want))
		}
		expected = m
	}
	for _, name := range order {
		if _, ok := expected[name]; !ok {
			return fmt.Errorf("unexpected query parameter `%s` (%s)", name, show(got[name]))
		}
	}
	for name, pattern := range expected {
		values, present := got[name]
		var actual any = values
		if _, isList := pattern.([]any); present && len(values) == 1 && !isList {
			actual = values[0]
		}
		if err := check(text(pattern), actual, present, "query "+name); err != nil {
			return err
		}
	}
	return nil
}

func checkHeaders(want, got any) error {
	if want == nil {
		return nil
	}
	headers, ok := isObject(want)
	if !ok {
		return fmt.Errorf("`headers` is a mapping of lowercase names")
	}
	gotHeaders, _ := isObject(got)
	for name, value := range headers {
		var pattern any = value
		if value == nil {
			pattern = object{"$absent": true}
		}
		actual, present := gotHeaders[name]
		if err := check(pattern, actual, present, "header "+name); err != nil {
			return err
		}
	}
	return nil
}

func checkBody(want, got object) error {
	body, _ := got["body"].(string)
	if expected, ok := want["body"]; ok {
		parsed, err := parse([]byte(body))
		if err != nil {
			return fmt.Errorf("expected a JSON body, got %q (%v)", body, err)
		}
		if !same(expected, parsed) {
			return fmt.Errorf("expected the body %s, got %s", show(expected), show(parsed))
		}
		return nil
	}
	if expected, ok := want["body_text"]; ok {
		if expected != body {
			return fmt.Errorf("expected the body text %s, got %q", show(expected), body)
		}
		return nil
	}
	if body != "" {
		return fmt.Errorf("expected no body, got %q", body)
	}
	return nil
}

func checkGaps(want, got, previous object) error {
	received := func(r object) float64 {
		n, _ := number(r["received_ms"])
		return n
	}
	for _, key := range []string{"min_gap_ms", "max_gap_ms"} {
		limit, ok := number(want[key])
		if !ok {
			continue
		}
		if previous == nil {
			return fmt.Errorf("`%s` on the first request has nothing to measure from", key)
		}
		gap := received(got) - received(previous)
		if key == "min_gap_ms" && gap < limit || key == "max_gap_ms" && gap > limit {
			return fmt.Errorf("came %.0f ms after the previous request (%s: %v)", gap, key, limit)
		}
	}
	return nil
}
