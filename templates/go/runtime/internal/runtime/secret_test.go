package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

const hidden = "s3cr3t-value-9f8e7d"

type holder struct {
	Key     Secret
	private Secret
	Ptr     *Secret
}

func TestASecretNeverPrints(t *testing.T) {
	s := NewSecret(hidden)
	h := holder{Key: s, private: s, Ptr: &s}
	verbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T %v", "%10s", "%-8v"}
	for _, verb := range verbs {
		for _, v := range []any{s, &s, h, &h, []Secret{s}, map[string]Secret{"k": s}} {
			if out := fmt.Sprintf(verb, v); strings.Contains(out, hidden) || strings.Contains(out, fmt.Sprintf("%x", hidden)) {
				t.Fatalf("%s of %T shows the secret: %s", verb, v, out)
			}
		}
	}
	if fmt.Sprint(s) != "[redacted]" || s.String() != "[redacted]" || s.GoString() != "[redacted]" {
		t.Fatal(fmt.Sprint(s))
	}
	if s.Reveal() != hidden || (Secret{}).Reveal() != "" || !(Secret{}).IsZero() {
		t.Fatal("Reveal")
	}
}

func TestASecretNeverLogsOrMarshals(t *testing.T) {
	s := NewSecret(hidden)
	var buf bytes.Buffer
	for _, handler := range []slog.Handler{slog.NewTextHandler(&buf, nil), slog.NewJSONHandler(&buf, nil)} {
		log := slog.New(handler)
		log.Info("login", "password", s, slog.Any("holder", holder{Key: s, private: s}), slog.Any("ptr", &s))
	}
	if strings.Contains(buf.String(), hidden) || !strings.Contains(buf.String(), "[redacted]") {
		t.Fatal(buf.String())
	}
	out, err := json.Marshal(holder{Key: s, Ptr: &s})
	if err != nil || strings.Contains(string(out), hidden) {
		t.Fatalf("%s %v", out, err)
	}
}

func TestAURLErrorShowsNoQuery(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	cfg := testConfig(t, "http://"+addr, nil)
	cfg.MaxAttempts = 1
	call, err := PresignedCall("GET", "http://"+addr+"/storage/abc?X-Amz-Signature=SIGNATURE-1234&sig=x")
	if err != nil {
		t.Fatal(err)
	}
	_, err = newCore(t, cfg).Send(context.Background(), call)
	var ue *url.Error
	if !errors.As(err, &ue) || strings.Contains(err.Error(), "SIGNATURE") || strings.Contains(ue.Error(), "SIGNATURE") {
		t.Fatalf("got %v", err)
	}
	var op *net.OpError
	if !errors.As(err, &op) || !strings.Contains(err.Error(), "/storage/abc") {
		t.Fatalf("the cause is lost: %v", err)
	}
}

func TestStripQueriesCutsEveryURLsQuery(t *testing.T) {
	in := `Get "https://s3.example/b/k?X-Amz-Signature=abc#frag": dial; see http://x.example/p?q=1 and "http://y/z?s=2"`
	want := `Get "https://s3.example/b/k": dial; see http://x.example/p and "http://y/z"`
	if got := stripQueries(in); got != want {
		t.Fatalf("got %s", got)
	}
}

func TestEventsGoToTheLoggerWithOpenTelemetryNamesAndNoSecret(t *testing.T) {
	srv := newServer(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "req-1")
		if n == 1 {
			w.WriteHeader(503)
			_, _ = io.WriteString(w, `{"errors":"demo-secret"}`)
		}
	})
	var buf bytes.Buffer
	cfg := testConfig(t, srv.URL, nil)
	cfg.Auth = keyAuth()
	cfg.Logger = slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if _, err := newCore(t, cfg).Send(context.Background(), getUnit()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 5 || strings.Contains(buf.String(), "demo-secret") || strings.Contains(buf.String(), "unt_001") {
		t.Fatalf("%d records:\n%s", len(lines), buf.String())
	}
	var retry map[string]any
	if err := json.Unmarshal([]byte(lines[2]), &retry); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"level": "WARN", "inspection.event": "retry", "inspection.operation": "get_unit",
		"http.request.method": "GET", "url.template": "/units/{unit_id}", "http.request.resend_count": 0.0,
		"inspection.retry.reason": "status", "http.response.status_code": 503.0, "inspection.retry_after": false}
	for k, v := range want {
		if retry[k] != v {
			t.Fatalf("%s: got %v in %s", k, retry[k], lines[2])
		}
	}
	if !strings.Contains(lines[1], `"inspection.request_id":"req-1"`) || !strings.Contains(lines[1], `"level":"DEBUG"`) {
		t.Fatalf("response record %s", lines[1])
	}
}

func TestAHookThatPanicsDoesNotBreakTheCall(t *testing.T) {
	srv := newServer(t, func(int64, http.ResponseWriter, *http.Request) {})
	var buf bytes.Buffer
	cfg := testConfig(t, srv.URL, nil)
	cfg.Hook = func(Event) { panic("hook bug") }
	cfg.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	if _, err := newCore(t, cfg).Send(context.Background(), getUnit()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "hook bug") {
		t.Fatal(buf.String())
	}
}
