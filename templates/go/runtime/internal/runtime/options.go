package runtime

import (
	"log/slog"
	"net/http"
	"net/url"
	"time"
)

// Settings are what a generated client's options set as it is made: the core's Config,
// and whether its calls check the documented limits before sending.
type Settings struct {
	// Config is what the client's core is made with.
	Config Config
	// Validate tells whether calls check documented limits first.
	Validate bool
}

// Option changes Settings; each interface package names these for its Client.
type Option func(*Settings) error

// WithBaseURL sends the calls to another root than the service's.
func WithBaseURL(raw string) Option {
	return func(s *Settings) error {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return &ConfigError{Setting: "base URL", Problem: "not an absolute URL: " + raw}
		}
		s.Config.BaseURL = u
		return nil
	}
}

// WithHTTPClient sends through h.
func WithHTTPClient(h *http.Client) Option {
	return func(s *Settings) error {
		s.Config.HTTPClient = h
		return nil
	}
}

// WithRateLimit paces the calls to at most requests per window.
func WithRateLimit(requests int, window time.Duration) Option {
	return func(s *Settings) error {
		s.Config.Rate = Rate{Requests: requests, Window: window}
		return nil
	}
}

// WithoutRateLimit sends without pacing.
func WithoutRateLimit() Option {
	return func(s *Settings) error {
		s.Config.Rate = Rate{}
		return nil
	}
}

// WithMaxAttempts sets how many times a call is tried, the first included.
func WithMaxAttempts(n int) Option {
	return func(s *Settings) error {
		s.Config.MaxAttempts = n
		return nil
	}
}

// WithBackoff sets the first wait between attempts and the longest.
func WithBackoff(initial, longest time.Duration) Option {
	return func(s *Settings) error {
		s.Config.InitialBackoff, s.Config.MaxBackoff = initial, longest
		return nil
	}
}

// WithAttemptTimeout bounds each attempt.
func WithAttemptTimeout(d time.Duration) Option {
	return func(s *Settings) error {
		s.Config.AttemptTimeout = d
		return nil
	}
}

// WithPolling sets how often a 202 is asked again and the first wait.
func WithPolling(maxPolls int, interval time.Duration) Option {
	return func(s *Settings) error {
		s.Config.MaxPolls, s.Config.PollInterval = maxPolls, interval
		return nil
	}
}

// WithMaxResponseBytes sets the longest answer read into memory.
func WithMaxResponseBytes(n int64) Option {
	return func(s *Settings) error {
		s.Config.MaxResponseBytes = n
		return nil
	}
}

// WithMaxErrorBytes sets how much of an error answer is read.
func WithMaxErrorBytes(n int64) Option {
	return func(s *Settings) error {
		s.Config.MaxErrorBytes = n
		return nil
	}
}

// WithMaxEmptyPages sets how many empty pages in a row a walk accepts.
func WithMaxEmptyPages(n int) Option {
	return func(s *Settings) error {
		s.Config.MaxEmptyPages = n
		return nil
	}
}

// WithHook calls hook with every event.
func WithHook(hook func(Event)) Option {
	return func(s *Settings) error {
		s.Config.Hook = hook
		return nil
	}
}

// WithLogger logs every event to logger.
func WithLogger(logger *slog.Logger) Option {
	return func(s *Settings) error {
		s.Config.Logger = logger
		return nil
	}
}

// WithoutValidation sends values without checking their documented limits first.
func WithoutValidation() Option {
	return func(s *Settings) error {
		s.Validate = false
		return nil
	}
}

// CallOption changes one call.
type CallOption func(*Call)

// WithCallAttempts sets the attempts one call may make.
func WithCallAttempts(n int) CallOption {
	return func(c *Call) {
		c.MaxAttempts = n
	}
}

// WithCallAttemptTimeout sets the time each attempt of one call has.
func WithCallAttemptTimeout(d time.Duration) CallOption {
	return func(c *Call) {
		c.AttemptTimeout = d
	}
}

// WithHeader sends a header of the caller's own with one call (credentials win).
func WithHeader(name, value string) CallOption {
	return func(c *Call) {
		if c.Header == nil {
			c.Header = http.Header{}
		}
		c.Header.Set(name, value)
	}
}

// WithContentType sends a body of bytes as this media type.
func WithContentType(mediaType string) CallOption {
	return func(c *Call) {
		c.ContentType = mediaType
	}
}
