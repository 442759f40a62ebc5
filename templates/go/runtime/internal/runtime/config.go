package runtime

import (
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is what a generated client's options map onto. NewCore takes it as it is:
// DefaultConfig gives the values every client of the project starts from.
type Config struct {
	// BaseURL is what every call's Path is joined to (https://host/v3): https, or plain
	// http on a loopback host only, with no query, fragment or user information.
	BaseURL *url.URL
	// HTTPClient sends the requests; nil: one whose transport is a clone of
	// http.DefaultTransport (so it keeps ProxyFromEnvironment). The core uses a shallow
	// copy with its own CheckRedirect (it follows redirects itself: net/http would
	// forward custom headers such as the key secret to another host), no Jar (a cookie
	// is a credential, and would follow requests to pre-signed URLs) and no Timeout
	// (AttemptTimeout bounds each attempt instead).
	HTTPClient *http.Client
	// UserAgent is sent with every request but pre-signed ones; "": Go's default.
	UserAgent string
	// Accept is the media type a call asks for when its Header names none, except
	// pre-signed ones (the interface's default, application/json; version=1 on the
	// legacy one); "": application/json.
	Accept string
	// MaxAttempts is the attempts per call, the first included (at least 1).
	MaxAttempts int
	// InitialBackoff is the backoff before the first retry, doubled at each (with
	// jitter) up to MaxBackoff.
	InitialBackoff time.Duration
	// MaxBackoff is the longest backoff, and the longest Retry-After the client waits
	// out: a longer one fails the call at once.
	MaxBackoff time.Duration
	// AttemptTimeout bounds each attempt, redirects and the whole answer's body
	// included, always inside the context's deadline.
	AttemptTimeout time.Duration
	// Rate paces the client: at most Rate.Requests sends in any Rate.Window, shared by
	// every call of the core. The zero Rate paces nothing.
	Rate Rate
	// MaxResponseBytes is the longest success body read into memory; a longer one is a
	// *TooLargeError, with no more than this read. A Sink has no limit.
	MaxResponseBytes int64
	// MaxErrorBytes is how much of an error body is read for its message; the rest is
	// never read.
	MaxErrorBytes int64
	// MaxPolls is how often a 202 ("still rendering") is asked again.
	MaxPolls int
	// PollInterval is the wait before the first poll when the 202 has no Retry-After;
	// doubled at each poll, up to MaxBackoff.
	PollInterval time.Duration
	// MaxEmptyPages is how many empty pages in a row a walk accepts while the service
	// still points onwards; one more is a *PagingStalledError.
	MaxEmptyPages int
	// ErrorMessageField is the member of a JSON error body holding the service's
	// message; "": errors.
	ErrorMessageField string
	// Auth gives each request its credentials; nil: none.
	Auth Auth
	// Hook is given every Event as it happens, on the goroutine of the call (so calls
	// in parallel call it in parallel); nil: none. A hook that panics is logged and the
	// call goes on.
	Hook func(Event)
	// Logger gets every Event as a record (retries at Warn, the rest at Debug) with
	// the attributes of Event.Attrs; nil: no logging.
	Logger *slog.Logger
}

// Rate is a client-side rate limit: at most Requests sends in any Window.
type Rate struct {
	// Requests is the sends allowed per window; 0: no pacing.
	Requests int
	// Window is the window's length.
	Window time.Duration
}

// DefaultConfig returns the settings every client of the project starts from (the
// other clients' defaults), for base: 4 attempts, backoff from 10 ms to 5 s, 10 s per
// attempt, 64 MiB success bodies, 64 KiB of error bodies, 10 polls 20 ms apart, 10
// empty pages, no pacing, no auth.
func DefaultConfig(base *url.URL) Config {
	return Config{
		BaseURL:          base,
		UserAgent:        "inspection-client (go)",
		MaxAttempts:      4,
		InitialBackoff:   10 * time.Millisecond,
		MaxBackoff:       5 * time.Second,
		AttemptTimeout:   10 * time.Second,
		MaxResponseBytes: 64 << 20,
		MaxErrorBytes:    64 << 10,
		MaxPolls:         10,
		PollInterval:     20 * time.Millisecond,
		MaxEmptyPages:    10,
	}
}

// Core sends the calls of one client: pacing, credentials, retries, deadlines,
// redirects and 202 polling, with bounded bodies. It is safe for concurrent use, and
// everything that shares it shares its pacing and its 429 pauses.
type Core struct {
	cfg      Config
	base     *url.URL
	baseText string // the base URL without a trailing slash
	http     *http.Client
	pacer    *pacer
	rep      reporter
}

// NewCore returns a core for cfg, or a *ConfigError naming the first setting it
// cannot use.
func NewCore(cfg Config) (*Core, error) {
	base, err := checkBase(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if err := checkConfig(&cfg); err != nil {
		return nil, err
	}
	if cfg.ErrorMessageField == "" {
		cfg.ErrorMessageField = "errors"
	}
	c := &Core{cfg: cfg, base: base, baseText: strings.TrimSuffix(base.String(), "/"),
		http: ownClient(cfg.HTTPClient), pacer: newPacer(cfg.Rate), rep: reporter{hook: cfg.Hook, log: cfg.Logger}}
	return c, nil
}

// checkBase returns a copy of the base URL, or why it cannot be one.
func checkBase(base *url.URL) (*url.URL, error) {
	if base == nil {
		return nil, &ConfigError{Setting: "BaseURL", Problem: "none given"}
	}
	u, err := secureURL(base.String(), "the base URL")
	if err != nil {
		return nil, &ConfigError{Setting: "BaseURL", Problem: err.Error()}
	}
	if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return nil, &ConfigError{Setting: "BaseURL", Problem: "the base URL must have no query or fragment"}
	}
	return u, nil
}

// checkConfig returns a *ConfigError for the first setting out of its range.
func checkConfig(cfg *Config) error {
	checks := []struct {
		bad     bool
		setting string
		problem string
	}{
		{cfg.MaxAttempts < 1, "MaxAttempts", "must be at least 1, got " + strconv.Itoa(cfg.MaxAttempts)},
		{cfg.InitialBackoff < 0, "InitialBackoff", "must not be negative"},
		{cfg.MaxBackoff < cfg.InitialBackoff, "MaxBackoff", "must be at least InitialBackoff"},
		{cfg.AttemptTimeout <= 0, "AttemptTimeout", "must be positive"},
		{cfg.Rate.Requests < 0, "Rate.Requests", "must not be negative"},
		{cfg.Rate.Requests > 0 && cfg.Rate.Window <= 0, "Rate.Window", "must be positive when Rate.Requests is set"},
		{cfg.MaxResponseBytes < 1, "MaxResponseBytes", "must be at least 1"},
		{cfg.MaxErrorBytes < 1, "MaxErrorBytes", "must be at least 1"},
		{cfg.MaxPolls < 0, "MaxPolls", "must not be negative"},
		{cfg.PollInterval < 0, "PollInterval", "must not be negative"},
		{cfg.MaxEmptyPages < 0, "MaxEmptyPages", "must not be negative"},
		{!headerSafe(cfg.UserAgent), "UserAgent", "a header cannot carry it: it must be visible ASCII, spaces and tabs"},
		{!headerSafe(cfg.Accept), "Accept", "a header cannot carry it: it must be visible ASCII, spaces and tabs"},
	}
	for _, c := range checks {
		if c.bad {
			return &ConfigError{Setting: c.setting, Problem: c.problem}
		}
	}
	if v, ok := cfg.Auth.(interface{ check() error }); ok {
		return v.check()
	}
	return nil
}

// ownClient returns the client the core sends with: a shallow copy of given (or of a
// default one) that follows no redirect, keeps no cookie and has no overall timeout.
func ownClient(given *http.Client) *http.Client {
	var c http.Client
	if given != nil {
		c = *given
	} else if t, ok := http.DefaultTransport.(*http.Transport); ok {
		c.Transport = t.Clone()
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.Jar = nil
	c.Timeout = 0
	return &c
}

// Redact returns text with every secret the core's Auth holds now (of four characters
// or more) replaced by "<redacted>": for texts built from what the service echoed,
// such as a decode error quoting a value.
func (c *Core) Redact(text string) string {
	if c.cfg.Auth == nil {
		return text
	}
	return c.cfg.Auth.Redact(text)
}

// String names the core by its base URL's origin, and nothing else.
func (c *Core) String() string { return "runtime.Core(" + origin(c.base) + ")" }
