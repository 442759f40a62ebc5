package conformance

import (
	"fmt"
	"strings"
	"sync"
	"time"

	v3 "inspection.dev/client/v3"
)

// eventLog keeps what the hooks of a scenario's clients report (calls in parallel report
// in parallel).
type eventLog struct {
	mu     sync.Mutex
	events []v3.Event
}

func (l *eventLog) hook(e v3.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

// take gives the events since the last take.
func (l *eventLog) take() []v3.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.events
	l.events = nil
	return out
}

// ms is a duration as whole milliseconds, as the README writes waits and durations.
func ms(d time.Duration) any { return num(d.Milliseconds()) }

// eventJSON is an event as the README writes it, with the keys of its kind.
func eventJSON(e v3.Event) object {
	out := object{"event": string(e.Kind), "operation": e.Operation}
	switch e.Kind {
	case "request":
		out["method"], out["url_template"], out["attempt"] = e.Method, e.Template, num(int64(e.Attempt))
		out["server_address"], out["server_port"] = e.ServerAddress, num(int64(e.ServerPort))
	case "response":
		out["method"], out["url_template"], out["attempt"] = e.Method, e.Template, num(int64(e.Attempt))
		out["status"], out["duration_ms"] = num(int64(e.Status)), ms(e.Duration)
		out["request_id"] = nil
		if e.RequestID != "" {
			out["request_id"] = e.RequestID
		}
	case "retry":
		out["attempt"], out["reason"], out["wait_ms"] = num(int64(e.Attempt)), e.Reason, ms(e.Wait)
		out["retry_after"], out["status"] = e.RetryAfter, nil
		if e.Reason == "status" {
			out["status"] = num(int64(e.Status))
		}
	case "pause":
		out["reason"], out["wait_ms"] = e.Reason, ms(e.Wait)
	case "page":
		out["page"], out["items"] = num(int64(e.Page)), num(int64(e.Items))
	case "error":
		out["error_type"], out["attempt"], out["status"] = e.ErrorType, num(int64(e.Attempt)), nil
		if e.ErrorType == "api" {
			out["status"] = num(int64(e.Status))
		}
	}
	return out
}

// checkEvents checks a step's events: none holds a secret in any field; then, when
// expected is given, exactly as many as reported, each matching its pattern in order.
func checkEvents(events []v3.Event, secrets []string, expected []any, has bool) error {
	actual := make([]any, len(events))
	for i, e := range events {
		full := fmt.Sprintf("%#v", e)
		for _, secret := range secrets {
			if strings.Contains(full, secret) {
				return fmt.Errorf("an event holds the secret `%s`: %s", secret, full)
			}
		}
		actual[i] = eventJSON(e)
	}
	if !has {
		return nil
	}
	list := func() string {
		var b strings.Builder
		for _, e := range actual {
			b.WriteString("\n    " + show(e))
		}
		return b.String()
	}
	if len(actual) != len(expected) {
		return fmt.Errorf("expected %d events, the client reported %d:%s", len(expected), len(actual), list())
	}
	for i, pattern := range expected {
		if _, ok := isObject(pattern); !ok {
			return fmt.Errorf("expect_events[%d] is a mapping, not %s", i, show(pattern))
		}
		if err := check(pattern, actual[i], true, fmt.Sprintf("event %d", i+1)); err != nil {
			return fmt.Errorf("%w; the events:%s", err, list())
		}
	}
	return nil
}
