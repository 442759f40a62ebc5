package conformance

import (
	"context"
	"fmt"
	"strings"
	"time"

	v3 "inspection.dev/client/v3"
)

// state is a scenario's as its steps run.
type state struct {
	scenario *scenario
	sandbox  *sandbox
	ops      map[string]*operation
	client   any
	vars     vars
	log      *eventLog
	secrets  []string // what no event may hold: the v3 key secret, the legacy passwords
	listener *listener
}

// secretsOf are a scenario's v3 key secret and legacy password, and those of each
// `login` or `make_client` step.
func secretsOf(sc *scenario) []string {
	var out []string
	add := func(m map[string]any) {
		for _, key := range []string{"key_secret", "password"} {
			if s, ok := m[key].(string); ok && s != "" {
				out = append(out, s)
			}
		}
	}
	creds := object{}
	for k, v := range sc.client.credentials {
		creds[k] = v
	}
	add(creds)
	for _, s := range sc.steps {
		if m, ok := isObject(s.args); ok && (s.call == "login" || s.call == "make_client") {
			add(m)
		}
	}
	return out
}

// run runs a scenario; a failure names the file, the scenario and the step (1-based).
func run(sc *scenario, boxes *sandboxes, ops operations) error {
	sb, err := boxes.get(sc.sandbox)
	if err != nil {
		return err
	}
	if _, err := sb.call("POST", "/_sandbox/reset", nil, false); err != nil {
		return err
	}
	if len(sc.script) > 0 {
		if _, err := sb.call("POST", "/_sandbox/script", sc.script, true); err != nil {
			return err
		}
	}
	st := &state{scenario: sc, sandbox: sb, ops: ops[sc.iface], vars: vars{"origin": sb.origin},
		log: &eventLog{}, secrets: secretsOf(sc)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if st.client, err = newClient(ctx, sb.origin, sc, st.log, sc.client.credentials); err != nil {
		return fmt.Errorf("cannot make the client before the first step: %w", err)
	}
	// The login before step 1 is checked for secrets too.
	if err := checkEvents(st.log.take(), st.secrets, nil, false); err != nil {
		return err
	}
	defer func() {
		if st.listener != nil {
			st.listener.close()
		}
	}()
	for i := range sc.steps {
		s := &sc.steps[i]
		if err := st.step(ctx, s); err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, label(s), err)
		}
	}
	pending, err := sb.call("GET", "/_sandbox/script", nil, false)
	if m, _ := isObject(pending); err != nil || !same(m["pending"], num(0)) {
		return fmt.Errorf("canned answers were left unused at the end: %s %v", show(pending), err)
	}
	return nil
}

func (st *state) step(ctx context.Context, s *step) error {
	if s.control != nil {
		return st.control(s)
	}
	if _, err := st.sandbox.call("DELETE", "/_sandbox/requests", nil, false); err != nil {
		return err
	}
	filled, err := st.vars.fill(s.args)
	if err != nil {
		return err
	}
	a, err := newArgs(filled)
	if err != nil {
		return err
	}
	st.log.take() // only what this step's call reports
	started := time.Now()
	out, err := st.call(ctx, s, a)
	if err != nil {
		return err
	}
	took := float64(time.Since(started).Milliseconds())
	events := st.log.take()
	if err := st.checkOutcome(s, out); err != nil {
		return err
	}
	if s.hasMin && took < s.minMs {
		return fmt.Errorf("took %.0f ms, expected at least %v ms", took, s.minMs)
	}
	if s.hasMax && took > s.maxMs {
		return fmt.Errorf("took %.0f ms, expected at most %v ms", took, s.maxMs)
	}
	if s.hasRequests {
		if err := st.checkRequests(s); err != nil {
			return err
		}
	}
	if err := st.checkStepEvents(events, s); err != nil {
		return err
	}
	// A call that failed as expected saves its error's description (a walk's resume).
	if s.save != "" {
		if out.err != nil {
			st.vars[s.save] = describe(out.err)
		} else if out.hasResult {
			st.vars[s.save] = out.result
		}
	}
	return nil
}

// control sends a `sandbox` step's request.
func (st *state) control(s *step) error {
	method, path, ok := strings.Cut(strings.TrimSpace(s.control.request), " ")
	if !ok {
		return fmt.Errorf("`sandbox` is `METHOD /_sandbox/...`")
	}
	body, err := st.vars.fill(s.control.body)
	if err != nil {
		return err
	}
	if _, err := st.sandbox.call(method, strings.TrimSpace(path), body, s.control.hasBody); err != nil {
		return err
	}
	return st.checkStepEvents(st.log.take(), s)
}

func (st *state) checkStepEvents(events []v3.Event, s *step) error {
	expected, err := st.vars.fill(s.events)
	if err != nil {
		return err
	}
	list, _ := expected.([]any)
	return checkEvents(events, st.secrets, list, s.hasEvents)
}

func (st *state) checkRequests(s *step) error {
	filled, err := st.vars.fill(s.requests)
	if err != nil {
		return err
	}
	recorded, err := st.sandbox.call("GET", "/_sandbox/requests", nil, false)
	if err != nil {
		return err
	}
	list, ok := recorded.([]any)
	if !ok {
		return fmt.Errorf("GET /_sandbox/requests gave %s", show(recorded))
	}
	expected, _ := filled.([]any)
	return checkRequests(expected, list)
}

// call runs a step's call: a client action, or an operation.
func (st *state) call(ctx context.Context, s *step, a *args) (outcome, error) {
	sc := st.scenario
	switch {
	case s.call == "make_client" || s.call == "login" && sc.iface == "legacy":
		creds, err := stepCredentials(sc, s.call, a)
		if err != nil {
			return outcome{}, err
		}
		client, err := newClient(ctx, st.sandbox.origin, sc, st.log, creds)
		if err != nil {
			return outcome{err: err}, nil
		}
		st.client = client
		return succeeded(nil), nil
	case s.call == "listen":
		return st.listen(a)
	case s.call == "deliveries":
		return st.deliveries(a)
	}
	if op, ok := st.ops[s.call]; ok {
		return callOperation(ctx, st.client, op, sc.iface, a, s.mode)
	}
	out, handled, err := presignedAction(ctx, st.client, s.call, a)
	if !handled {
		return outcome{}, fmt.Errorf("`%s` is no %s operation or client action", s.call, sc.iface)
	}
	return out, err
}

func (st *state) checkOutcome(s *step, out outcome) error {
	e := s.expect
	switch {
	case out.err != nil && !e.hasError:
		return fmt.Errorf("failed: %v (%s)", out.err, show(describe(out.err)))
	case out.err == nil && e.hasError:
		return fmt.Errorf("expected an error matching %s, got %s", show(e.error), show(out.result))
	case out.err != nil:
		if err := st.checkError(e.error, out.err); err != nil {
			return err
		}
	}
	if e.hasOK {
		pattern, err := st.vars.fill(e.ok)
		if err != nil {
			return err
		}
		if err := check(pattern, out.result, out.hasResult, ""); err != nil {
			return err
		}
	}
	if e.hasEquals {
		want, err := st.vars.fill(e.equals)
		if err != nil {
			return err
		}
		if !out.hasResult || !same(want, out.result) {
			return fmt.Errorf("expected exactly %s, got %s", show(want), show(out.result))
		}
	}
	if list, ok := out.result.([]any); e.hasCount && (!ok || int64(len(list)) != e.count) {
		return fmt.Errorf("expected %d entries, got %s", e.count, show(out.result))
	}
	return nil
}

// checkError matches the error's description, and its text against text_excludes and
// text_includes.
func (st *state) checkError(pattern any, failure error) error {
	filled, err := st.vars.fill(pattern)
	if err != nil {
		return err
	}
	m, _ := isObject(filled)
	excluded, err := words(m, "text_excludes")
	if err != nil {
		return err
	}
	included, err := words(m, "text_includes")
	if err != nil {
		return err
	}
	described, _ := asJSON(describe(failure))
	if err := check(filled, described, true, "the error"); err != nil {
		return fmt.Errorf("%w (the error: %v)", err, failure)
	}
	shown := errorText(failure)
	for _, w := range excluded {
		if strings.Contains(shown, w) {
			return fmt.Errorf("the error's text shows `%s`: %s", w, shown)
		}
	}
	for _, w := range included {
		if !strings.Contains(shown, w) {
			return fmt.Errorf("the error's text does not show `%s`: %s", w, shown)
		}
	}
	return nil
}
