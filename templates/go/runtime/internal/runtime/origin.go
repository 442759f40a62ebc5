package runtime

import (
	"errors"
	"net"
	"net/url"
	"regexp"
	"strings"
)

// urlQuery finds the query and fragment of each URL in a text.
var urlQuery = regexp.MustCompile(`(https?://[^\s?#"'<>]*)[?#][^\s"'<>]*`)

// stripQueries cuts the query and fragment off every URL in text: a pre-signed URL's
// query is its signature, and error texts of net/http quote whole URLs.
func stripQueries(text string) string {
	return urlQuery.ReplaceAllString(text, "$1")
}

// isAbsolute reports whether path is an absolute http(s) URL rather than a path under
// the base URL.
func isAbsolute(path string) bool {
	lower := strings.ToLower(path)
	return strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://")
}

// loopback reports whether host is localhost or a loopback address.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// port returns u's port, or its scheme's when it names none.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	return defaultPort(u.Scheme)
}

// defaultPort is the port of an http(s) URL that names none.
func defaultPort(scheme string) string {
	if strings.EqualFold(scheme, "https") {
		return "443"
	}
	return "80"
}

// sameOrigin reports whether a and b have the same scheme, host and port: credentials
// go only to the base URL's origin.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) &&
		port(a) == port(b)
}

// origin returns scheme://host[:port], the port only when it is not the scheme's.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" && p != defaultPort(scheme) {
		host += ":" + p
	}
	return scheme + "://" + host
}

// withoutQuery returns u's origin and path: how events and errors show a pre-signed
// URL, whose query is its signature.
func withoutQuery(u *url.URL) string {
	return origin(u) + u.EscapedPath()
}

// secureURL parses text as a URL that may carry credentials or a signature: https, or
// plain http on a loopback host only, with no user information. what names it in the
// error; the text itself is never shown, as it may hold a signature.
func secureURL(text, what string) (*url.URL, error) {
	u, err := url.Parse(text)
	if err != nil || !isAbsolute(text) || u.Hostname() == "" {
		return nil, errors.New(what + " is not an absolute http(s) URL")
	}
	if u.User != nil {
		return nil, errors.New(what + " must not carry a user name or password (" + origin(u) + ")")
	}
	if strings.EqualFold(u.Scheme, "http") && !loopback(u.Hostname()) {
		return nil, errors.New(what + " must be https (plain http only for a loopback host), not " + origin(u))
	}
	return u, nil
}

// scrubURLError returns err, a *url.Error as net/http's Client gives it (whose text
// is the whole URL), with its URL cut to origin and path; every other error is
// returned as it is. The cause is kept, so errors.Is and errors.As still reach it.
func scrubURLError(err error) error {
	ue, ok := err.(*url.Error)
	if !ok {
		return err
	}
	shown := stripQueries(ue.URL)
	if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
		shown = withoutQuery(u)
	}
	return &url.Error{Op: ue.Op, URL: shown, Err: ue.Err}
}
