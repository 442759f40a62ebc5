package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// tokenService logs users in and accepts only its latest token.
type tokenService struct {
	logins atomic.Int64
	refuse atomic.Bool // every token is refused
	mu     sync.Mutex
	valid  string
	token  func(n int64) string // the token of login n
}

func (s *tokenService) handle(_ int64, w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/api/users/authenticate" {
		if r.Header.Get("Authorization") != "" {
			w.WriteHeader(400) // a login carries no token
			return
		}
		n := s.logins.Add(1)
		time.Sleep(20 * time.Millisecond) // long enough for the other calls to queue up
		tok := s.token(n)
		s.mu.Lock()
		s.valid = "Token " + tok
		s.mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]string{"auth_token": tok})
		return
	}
	s.mu.Lock()
	ok := r.Header.Get("Authorization") == s.valid && !s.refuse.Load()
	s.mu.Unlock()
	if !ok {
		w.WriteHeader(401)
		_, _ = io.WriteString(w, `{"errors":"log in again"}`)
	}
}

func (s *tokenService) revoke() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.valid = "revoked"
}

// tokenCore is a legacy-like client of svc, logging in with a password.
func tokenCore(t *testing.T, svc *tokenService, ev *events) *Core {
	srv := newServer(t, svc.handle)
	cfg := testConfig(t, srv.URL, ev)
	var c *Core
	cfg.Auth = TokenLogin(Login{Header: "Authorization", Scheme: "Token", Field: "auth_token",
		Secrets: []Secret{NewSecret("hunter2-secret")},
		Do: func(ctx context.Context) (Secret, int, error) {
			ans, err := c.Send(ctx, &Call{Operation: "authenticate", Method: "POST", Template: "/api/users/authenticate",
				Path: "/api/users/authenticate", NoAuth: true, Body: []byte(`{"password":"hunter2-secret"}`)})
			if err != nil {
				return Secret{}, 0, err
			}
			var out struct {
				AuthToken string `json:"auth_token"`
			}
			if err := json.Unmarshal(ans.Body, &out); err != nil {
				return Secret{}, 0, err
			}
			return NewSecret(out.AuthToken), ans.Status, nil
		}})
	c = newCore(t, cfg)
	return c
}

func listLocations() *Call {
	return &Call{Operation: "list_locations", Method: "GET", Template: "/api/locations", Path: "/api/locations", Resend: true}
}

func sendMany(t *testing.T, c *Core, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Send(context.Background(), listLocations()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

func TestOneLoginServesManyConcurrentCallsAndOneReLoginAfterA401(t *testing.T) {
	svc := &tokenService{token: func(n int64) string { return fmt.Sprintf("eyJ-token-%d", n) }}
	c := tokenCore(t, svc, nil)
	sendMany(t, c, 20)
	if n := svc.logins.Load(); n != 1 {
		t.Fatalf("%d logins for the first calls", n)
	}
	svc.revoke()
	sendMany(t, c, 20)
	if n := svc.logins.Load(); n != 2 {
		t.Fatalf("%d logins after the token was revoked", n)
	}
}

func TestAReLoginIsTheNextAttemptAndHappensOncePerCall(t *testing.T) {
	svc := &tokenService{token: func(n int64) string { return fmt.Sprintf("eyJ-token-%d", n) }}
	ev := &events{}
	c := tokenCore(t, svc, ev)
	if _, err := c.Send(context.Background(), listLocations()); err != nil {
		t.Fatal(err)
	}
	svc.revoke()
	ev.mu.Lock()
	ev.all = nil
	ev.mu.Unlock()
	if _, err := c.Send(context.Background(), listLocations()); err != nil {
		t.Fatal(err)
	}
	equal(t, ev.kinds(), []string{"request:1", "response:1:401", "request:1", "response:1:200", "request:2", "response:2:200"})
	// A service that refuses every token: one re-login, then the 401 stands.
	svc.refuse.Store(true)
	before := svc.logins.Load()
	_, err := c.Send(context.Background(), listLocations())
	if !errors.Is(err, ErrUnauthorized) || svc.logins.Load() != before+1 {
		t.Fatalf("got %v after %d logins", err, svc.logins.Load()-before)
	}
}

func TestNoErrorShowsThePasswordOrTheToken(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "authenticate") {
			_, _ = io.WriteString(w, `{"auth_token":"eyJ-token-9f8e7d"}`)
			return
		}
		w.WriteHeader(403)
		_, _ = io.WriteString(w, `{"errors":"token eyJ-token-9f8e7d of hunter2-secret may not"}`)
	})
	var c *Core
	cfg := testConfig(t, srv.URL, nil)
	cfg.Auth = TokenLogin(Login{Header: "Authorization", Scheme: "Token", Field: "auth_token",
		Secrets: []Secret{NewSecret("hunter2-secret")},
		Do: func(ctx context.Context) (Secret, int, error) {
			_, err := c.Send(ctx, &Call{Operation: "authenticate", Method: "POST", Path: "/api/users/authenticate", NoAuth: true})
			return NewSecret("eyJ-token-9f8e7d"), 200, err
		}})
	c = newCore(t, cfg)
	_, err := c.Send(context.Background(), listLocations())
	var api *APIError
	if !errors.As(err, &api) || api.Message != "token <redacted> of <redacted> may not" || strings.Contains(string(api.Body), "hunter2") {
		t.Fatalf("got %v", err)
	}
}

func TestALoginTokenAHeaderCannotCarryIsADecodeErrorThatShowsNothingOfIt(t *testing.T) {
	srv := newServer(t, func(int64, http.ResponseWriter, *http.Request) {})
	cfg := testConfig(t, srv.URL, nil)
	cfg.Auth = TokenLogin(Login{Header: "Authorization", Scheme: "Token", Field: "auth_token",
		Do: func(context.Context) (Secret, int, error) { return NewSecret("eyJ\r\nX-Evil: 1"), 201, nil }})
	_, err := newCore(t, cfg).Send(context.Background(), listLocations())
	var decode *DecodeError
	if !errors.As(err, &decode) || decode.Path != "$.auth_token" || decode.Status != 201 ||
		strings.Contains(err.Error(), "Evil") || srv.requests() != 0 {
		t.Fatalf("got %v", err)
	}
}

func TestAKeyAHeaderCannotCarryIsRefusedNamingTheHeaderOnly(t *testing.T) {
	for _, secret := range []string{"TOP-SECRET\r\nX-Evil: 1", "s3cr3t-€-9f8e7d", "s3cr3t-ü-9f8e7d"} {
		cfg := testConfig(t, "https://api.example/v3", nil)
		cfg.Auth = KeyHeaders(map[string]string{"api-key-id": "demo-key"}, map[string]Secret{"api-key-secret": NewSecret(secret)})
		_, err := NewCore(cfg)
		var config *ConfigError
		if !errors.As(err, &config) || !strings.Contains(err.Error(), "api-key-secret") {
			t.Fatalf("got %v", err)
		}
		for _, part := range []string{"SECRET", "Evil", "s3cr3t", "9f8e7d", "€", "ü", "\r", `\r`} {
			if strings.Contains(err.Error(), part) {
				t.Fatalf("%q shows %q", err, part)
			}
		}
	}
}

func TestAnEchoedKeySecretIsRedactedTheKeyIdIsNot(t *testing.T) {
	srv := newServer(t, func(_ int64, w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(403)
		_, _ = io.WriteString(w, `{"errors":"key demo-key/demo-secret may not read units"}`)
	})
	cfg := testConfig(t, srv.URL, nil)
	cfg.Auth = keyAuth()
	c := newCore(t, cfg)
	call := getUnit()
	call.Hint = "only users with the manager role may call it"
	_, err := c.Send(context.Background(), call)
	var api *APIError
	if !errors.As(err, &api) || api.Message != "key demo-key/<redacted> may not read units" || !errors.Is(err, ErrForbidden) ||
		err.Error() != "get_unit: GET /units/{unit_id} answered 403: key demo-key/<redacted> may not read units (only users with the manager role may call it)" {
		t.Fatalf("got %v", err)
	}
	if c.Redact("a demo-secret") != "a <redacted>" {
		t.Fatal(c.Redact("a demo-secret"))
	}
}

func TestNewCoreRefusesBadSettingsNamingThem(t *testing.T) {
	cases := map[string]func(*Config){
		"BaseURL":          func(c *Config) { c.BaseURL.Scheme = "http" },
		"MaxAttempts":      func(c *Config) { c.MaxAttempts = 0 },
		"AttemptTimeout":   func(c *Config) { c.AttemptTimeout = 0 },
		"MaxBackoff":       func(c *Config) { c.MaxBackoff = c.InitialBackoff - 1 },
		"Rate.Window":      func(c *Config) { c.Rate = Rate{Requests: 3} },
		"MaxResponseBytes": func(c *Config) { c.MaxResponseBytes = 0 },
		"MaxEmptyPages":    func(c *Config) { c.MaxEmptyPages = -1 },
		"UserAgent":        func(c *Config) { c.UserAgent = "a\nb" },
	}
	for setting, spoil := range cases {
		cfg := testConfig(t, "https://api.example/v3", nil)
		spoil(&cfg)
		_, err := NewCore(cfg)
		var config *ConfigError
		if !errors.As(err, &config) || config.Setting != setting || ErrorKind(err) != "config" {
			t.Errorf("%s: got %v", setting, err)
		}
	}
	cfg := testConfig(t, "https://api.example/v3?x=1", nil)
	if _, err := NewCore(cfg); err == nil {
		t.Error("a base URL with a query was taken")
	}
	cfg = testConfig(t, "http://localhost:8080/v3/", nil)
	if c, err := NewCore(cfg); err != nil || c.baseText != "http://localhost:8080/v3" {
		t.Errorf("a loopback base URL: %v", err)
	}
}
