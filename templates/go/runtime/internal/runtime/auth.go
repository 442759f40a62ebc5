package runtime

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// Auth gives requests their credentials. The core calls Apply before each attempt of
// every call but those with NoAuth, and Renew once per call when an attempt is answered
// 401.
type Auth interface {
	// Apply sets the credentials of a request in h; a token auth logs in first when it
	// has no token yet (one login at a time, shared by the calls that wait for it).
	Apply(ctx context.Context, h http.Header) error
	// Renew is called after a 401 to a request sent with the headers sent: a token auth
	// logs in again, unless another call already did since, and reports true (the
	// request is then sent again). false means nothing can be renewed: the 401 stands.
	// A nil sent always logs in.
	Renew(ctx context.Context, sent http.Header) (bool, error)
	// Redact returns text with every secret the auth holds now (a key secret, a
	// password, the current token) of four characters or more replaced by
	// "<redacted>".
	Redact(text string) string
}

// keyHeaders is fixed headers sent with every request (an API key id and secret).
type keyHeaders struct {
	names   []string // sorted, for a stable order
	values  map[string]string
	secrets []string
}

// KeyHeaders returns an Auth sending fixed headers with every request: plain ones (the
// key id, which errors may show) and secret ones (the key secret, redacted wherever the
// service echoes it). NewCore refuses a value a header cannot carry, naming the header
// and nothing of the value.
func KeyHeaders(plain map[string]string, secret map[string]Secret) Auth {
	k := &keyHeaders{values: make(map[string]string, len(plain)+len(secret))}
	for name, v := range plain {
		k.values[name] = v
	}
	for name, v := range secret {
		k.values[name] = v.Reveal()
		k.secrets = append(k.secrets, v.Reveal())
	}
	for name := range k.values {
		k.names = append(k.names, name)
	}
	slices.Sort(k.names)
	return k
}

// check refuses a header name or value a request cannot carry: the message names the
// header, never the value or any of its characters.
func (k *keyHeaders) check() error {
	for _, name := range k.names {
		if !headerName(name) {
			return &ConfigError{Setting: "Auth", Problem: "a credential header's name is not a header name"}
		}
		if !headerSafe(k.values[name]) {
			return &ConfigError{Setting: "Auth", Problem: "the " + name + " header cannot carry this credential: " +
				"it must be visible ASCII, spaces and tabs (the value is not shown)"}
		}
	}
	return nil
}

// Apply sets the headers.
func (k *keyHeaders) Apply(_ context.Context, h http.Header) error {
	for _, name := range k.names {
		h.Set(name, k.values[name])
	}
	return nil
}

// Renew reports false: fixed keys cannot be renewed.
func (k *keyHeaders) Renew(context.Context, http.Header) (bool, error) { return false, nil }

// Redact replaces the secret values.
func (k *keyHeaders) Redact(text string) string { return redact(text, k.secrets...) }

// Login is how a token auth logs in and sends its token.
type Login struct {
	// Header is the header the token goes in (Authorization).
	Header string
	// Scheme is the word before the token (Token); "": the token alone.
	Scheme string
	// Field is the token's member in the login's answer (auth_token), which the error
	// for a token a header cannot carry names.
	Field string
	// Secrets are the login's own secrets (the password), kept out of every error text.
	Secrets []Secret
	// Do sends the login (a call with NoAuth) and returns the token its answer holds,
	// and the answer's status.
	Do func(ctx context.Context) (Secret, int, error)
}

// tokenAuth is a token a login answers: logged in at the first call, and again after a
// 401, one login at a time across goroutines.
type tokenAuth struct {
	login Login
	turn  chan struct{} // held while logging in; a channel, so waiting honours ctx
	mu    sync.Mutex
	token Secret
}

// TokenLogin returns an Auth that logs in with l.Do before the first call that needs
// it, sends "<Scheme> <token>" in l.Header, and logs in again when a call is answered
// 401 (once per call): however many calls meet the 401 together, one login serves
// them all.
func TokenLogin(l Login) Auth {
	return &tokenAuth{login: l, turn: make(chan struct{}, 1)}
}

func (t *tokenAuth) check() error {
	if !headerName(t.login.Header) || !headerSafe(t.login.Scheme) || strings.ContainsAny(t.login.Scheme, " \t") {
		return &ConfigError{Setting: "Auth", Problem: "the token's header or scheme cannot be sent"}
	}
	if t.login.Do == nil {
		return &ConfigError{Setting: "Auth", Problem: "the token login has no Do"}
	}
	return nil
}

// current returns the token, or the zero Secret before the first login.
func (t *tokenAuth) current() Secret {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.token
}

// value returns the header's value for tok.
func (t *tokenAuth) value(tok Secret) string {
	if t.login.Scheme == "" {
		return tok.Reveal()
	}
	return t.login.Scheme + " " + tok.Reveal()
}

// Apply sets the token's header, logging in first when there is no token.
func (t *tokenAuth) Apply(ctx context.Context, h http.Header) error {
	tok := t.current()
	if tok.IsZero() {
		var err error
		if tok, err = t.logIn(ctx, func(cur Secret) bool { return !cur.IsZero() }); err != nil {
			return err
		}
	}
	h.Set(t.login.Header, t.value(tok))
	return nil
}

// Renew logs in again unless the token changed since sent was sent.
func (t *tokenAuth) Renew(ctx context.Context, sent http.Header) (bool, error) {
	renewed := func(cur Secret) bool {
		return sent != nil && !cur.IsZero() && t.value(cur) != sent.Get(t.login.Header)
	}
	if _, err := t.logIn(ctx, renewed); err != nil {
		return false, err
	}
	return true, nil
}

// logIn logs in unless done reports, once it is this goroutine's turn, that another
// login made it needless; it returns the token then current.
func (t *tokenAuth) logIn(ctx context.Context, done func(Secret) bool) (Secret, error) {
	select {
	case t.turn <- struct{}{}:
	case <-ctx.Done():
		return Secret{}, ctx.Err()
	}
	defer func() { <-t.turn }()
	if cur := t.current(); done(cur) {
		return cur, nil
	}
	tok, status, err := t.login.Do(ctx)
	if err != nil {
		return Secret{}, err
	}
	if tok.IsZero() || !headerSafe(tok.Reveal()) {
		return Secret{}, &DecodeError{Path: t.tokenPath(), Status: status, Message: "the login's token cannot " +
			"be sent in the " + t.login.Header + " header: it must be visible ASCII (the value is not shown)"}
	}
	t.mu.Lock()
	t.token = tok
	t.mu.Unlock()
	return tok, nil
}

// LogIn logs in now when c's Auth is a token login, whatever token it holds (a failed
// login returns its error, and the next call logs in again); other Auths need nothing.
func (c *Core) LogIn(ctx context.Context) error {
	t, ok := c.cfg.Auth.(*tokenAuth)
	if !ok {
		return nil
	}
	_, err := t.logIn(ctx, func(Secret) bool { return false })
	return err
}

func (t *tokenAuth) tokenPath() string {
	if strings.HasPrefix(t.login.Field, "$") {
		return t.login.Field
	}
	return "$." + t.login.Field
}

// Redact replaces the login's secrets and the current token.
func (t *tokenAuth) Redact(text string) string {
	secrets := make([]string, 0, len(t.login.Secrets)+1)
	for _, s := range t.login.Secrets {
		secrets = append(secrets, s.Reveal())
	}
	return redact(text, append(secrets, t.current().Reveal())...)
}
