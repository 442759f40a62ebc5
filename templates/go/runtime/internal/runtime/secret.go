package runtime

import (
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
)

// shownSecret is how a Secret prints, whatever the verb.
const shownSecret = "[redacted]"

// redactedText replaces a secret the service echoed into an error text, as every
// client of the project writes it.
const redactedText = "<redacted>"

// Secret is a credential (a key secret, a password, a token) that never prints: fmt
// under any verb, slog and encoding/json all show "[redacted]"; only Reveal gives the
// value, for the one place that sends it. The zero value is the empty secret.
//
// The value sits behind a pointer, so even a struct printed with %+v that holds a
// Secret in an unexported field (where fmt cannot call its methods) shows an address,
// not the text.
type Secret struct {
	value *string
}

// NewSecret wraps s.
func NewSecret(s string) Secret { return Secret{value: &s} }

// Reveal returns the secret itself.
func (s Secret) Reveal() string {
	if s.value == nil {
		return ""
	}
	return *s.value
}

// IsZero reports whether the secret is empty.
func (s Secret) IsZero() bool { return s.Reveal() == "" }

// String returns "[redacted]".
func (Secret) String() string { return shownSecret }

// GoString returns "[redacted]", for %#v.
func (Secret) GoString() string { return shownSecret }

// Format writes "[redacted]" for every verb, so no verb (%x, %q, %d) reaches the value.
func (Secret) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, shownSecret) }

// LogValue returns "[redacted]", so slog handlers never see the value.
func (Secret) LogValue() slog.Value { return slog.StringValue(shownSecret) }

// MarshalJSON writes "[redacted]": a Secret is sent by the runtime, never serialised
// along with a struct that holds it.
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + shownSecret + `"`), nil }

// redact replaces every secret of four characters or more in text with "<redacted>",
// the longest first so that one secret inside another is not left half shown. Shorter
// ones are left: replacing every "a" would garble the text and hide nothing.
func redact(text string, secrets ...string) string {
	kept := make([]string, 0, len(secrets))
	for _, s := range secrets {
		if len(s) >= 4 && strings.Contains(text, s) {
			kept = append(kept, s)
		}
	}
	slices.SortFunc(kept, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, s := range kept {
		text = strings.ReplaceAll(text, s, redactedText)
	}
	return text
}

// headerSafe reports whether a header can carry value: visible ASCII, spaces and tabs.
// Anything else is refused before sending, as net/http's own refusal would fail later
// and some of its errors name the value.
func headerSafe(value string) bool {
	for i := 0; i < len(value); i++ {
		c := value[i]
		if c != ' ' && c != '\t' && (c < 0x21 || c > 0x7e) {
			return false
		}
	}
	return true
}

// tokenChar reports whether c may be in a header name (RFC 9110 token).
func tokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// headerName reports whether name can be a header's name.
func headerName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !tokenChar(name[i]) {
			return false
		}
	}
	return true
}
