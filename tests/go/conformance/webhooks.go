package conformance

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"inspection.dev/client/legacy"
	v3 "inspection.dev/client/v3"
)

// delivery is one POST the listener received: its headers and raw body.
type delivery struct {
	header http.Header
	body   []byte
}

// listener is an HTTP server on 127.0.0.1 (a free port) that answers every POST 200 and
// records it: a scenario's webhook listener, from `listen` until the scenario ends.
type listener struct {
	server *http.Server
	url    string
	mu     sync.Mutex
	got    []delivery
}

func startListener() (*listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l := &listener{url: "http://" + ln.Addr().String() + "/hook"}
	l.server = &http.Server{Handler: l, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = l.server.Serve(ln) }()
	return l, nil
}

func (l *listener) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if r.Method != http.MethodPost || err != nil {
		w.Header().Set("Allow", "POST")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	l.mu.Lock()
	l.got = append(l.got, delivery{header: r.Header.Clone(), body: body})
	l.mu.Unlock()
}

// waitFor waits until count deliveries came (or timeout passed) and gives what came.
func (l *listener) waitFor(count int, timeout time.Duration) []delivery {
	deadline := time.Now().Add(timeout)
	for {
		l.mu.Lock()
		got := append([]delivery(nil), l.got...)
		l.mu.Unlock()
		if len(got) >= count || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (l *listener) close() { _ = l.server.Close() }

// header is `{name, value}` at args.<key>, or nil when not given.
func header(a *args, key string) (object, error) {
	v, ok := a.take(key)
	if !ok {
		return nil, nil
	}
	m, isMap := isObject(v)
	_, hasName := m["name"].(string)
	_, hasValue := m["value"].(string)
	if !isMap || !hasName || !hasValue || len(m) != 2 {
		return nil, fmt.Errorf("`args.%s` is {name, value}, not %s", key, show(v))
	}
	return m, nil
}

// listen is the `listen` step: a listener, registered with the sandbox for the
// scenario's interface.
func (st *state) listen(a *args) (outcome, error) {
	h, err := header(a, "header")
	if err != nil {
		return outcome{}, err
	}
	if err := a.finish(); err != nil {
		return outcome{}, err
	}
	if st.listener != nil {
		return outcome{}, fmt.Errorf("a scenario has one listener: `listen` came twice")
	}
	if st.listener, err = startListener(); err != nil {
		return outcome{}, err
	}
	registration := object{"interface": st.scenario.iface, "url": st.listener.url}
	if h != nil {
		registration["header"] = h
	}
	if _, err := st.sandbox.call("POST", "/_sandbox/webhooks", registration, true); err != nil {
		return outcome{}, err
	}
	return succeeded(object{"url": st.listener.url}), nil
}

// deliveries is the `deliveries` step: waits for them, then verifies and parses each.
func (st *state) deliveries(a *args) (outcome, error) {
	count, _ := a.take("count")
	n, ok := integer(count)
	if !ok || n < 0 {
		return outcome{}, fmt.Errorf("`args.count` is a whole number, not %s", show(count))
	}
	timeout := int64(5000)
	if t, given := a.take("timeout_ms"); given {
		if timeout, ok = integer(t); !ok {
			return outcome{}, fmt.Errorf("`args.timeout_ms` is a whole number, not %s", show(t))
		}
	}
	verify, err := header(a, "verify")
	if err != nil {
		return outcome{}, err
	}
	if err := a.finish(); err != nil {
		return outcome{}, err
	}
	if st.listener == nil {
		return outcome{}, fmt.Errorf("`deliveries` needs a `listen` step before it")
	}
	came := st.listener.waitFor(int(n), time.Duration(timeout)*time.Millisecond)
	if int64(len(came)) != n {
		return outcome{}, fmt.Errorf("expected %d deliveries, the listener received %d within %d ms", n, len(came), timeout)
	}
	events := []any{}
	for _, d := range came {
		if verify != nil {
			if err := v3.VerifyDelivery(d.header, verify["name"].(string), verify["value"].(string)); err != nil {
				return outcome{err: err}, nil
			}
		}
		event, err := parseEvent(st.scenario.iface, d.body)
		if err != nil {
			return outcome{err: err}, nil
		}
		written, err := asJSON(event)
		if err != nil {
			return outcome{}, err
		}
		events = append(events, written)
	}
	return succeeded(events), nil
}

func parseEvent(iface string, body []byte) (any, error) {
	if iface == "v3" {
		return v3.ParseEvent(body)
	}
	return legacy.ParseEvent(body)
}
