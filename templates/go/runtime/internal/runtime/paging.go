package runtime

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"strconv"
	"strings"
)

// Resume is where a walk goes on from: a cursor, sent as the list's page parameter, or
// a next-page link, called as it is. The zero value is the list's first page.
type Resume struct {
	// Cursor is the page's cursor, or "".
	Cursor string
	// Link is the page's absolute URL, on the base URL's origin, or "".
	Link string
}

// IsZero reports whether r is the first page.
func (r Resume) IsZero() bool { return r == Resume{} }

// String returns r as every client of the project writes a resume point:
// cursor:<cursor> or link:<url>; "" for the first page.
func (r Resume) String() string {
	switch {
	case r.Link != "":
		return "link:" + r.Link
	case r.Cursor != "":
		return "cursor:" + r.Cursor
	}
	return ""
}

// ParseResume reads a resume point as String writes it ("" is the first page), or
// returns a *ConfigError.
func ParseResume(text string) (Resume, error) {
	kind, point, _ := strings.Cut(text, ":")
	switch {
	case text == "":
		return Resume{}, nil
	case kind == "cursor" && point != "":
		return Resume{Cursor: point}, nil
	case kind == "link" && point != "":
		return Resume{Link: point}, nil
	}
	shown := text
	if len(shown) > 40 {
		shown = shown[:40] + "..."
	}
	return Resume{}, &ConfigError{Setting: "resume", Problem: fmt.Sprintf("%q is not a resume point (cursor:... or link:...)", shown)}
}

// PagingStalledError is a walk that came back to a page it had fetched, or met more
// than MaxEmptyPages empty pages in a row that pointed onwards: it stops rather than
// loop, or end as if the list were complete.
type PagingStalledError struct {
	// Operation is the spec's name of the list operation.
	Operation string
	// Reason says what the walk met.
	Reason string
}

// Error names the operation and what the walk met.
func (e *PagingStalledError) Error() string { return e.Operation + ": paging stalled: " + e.Reason }

// PagingInterruptedError is a walk that failed at a page past its start, after the
// records before it: a walk from Resume (NewPagerAt) goes on from the page that failed.
// Err is that page's error, which errors.Is and errors.As reach.
type PagingInterruptedError struct {
	// Resume is the page that failed.
	Resume Resume
	// Err is its error.
	Err error
}

// Error names where the walk can resume, and the page's error.
func (e *PagingInterruptedError) Error() string {
	return "the walk stopped at a page past its start (resume at " + e.Resume.String() + "): " + e.Err.Error()
}

// Unwrap returns the page's error.
func (e *PagingInterruptedError) Unwrap() error { return e.Err }

// PageFunc fetches the page at (the zero Resume: the first) and returns its records,
// the page as read (the list's own type, for Pager.Page) and where the next page is;
// done when there is none. The generated code writes one per list: a cursor goes in the
// page parameter, a link is the Call's Path as it is.
type PageFunc[T any] func(ctx context.Context, at Resume) (items []T, page any, next Resume, done bool, err error)

// Pager walks a list page by page, holding one page at a time. A walk always ends: a
// page it has fetched met again, or more than MaxEmptyPages empty pages in a row
// pointing onwards, is a *PagingStalledError, and a next-page link to another origin a
// *ForeignOriginError (each given by the Next after the page that led there). Not safe
// for concurrent use.
type Pager[T any] struct {
	core      *Core
	operation string
	fetch     PageFunc[T]
	at        Resume
	page      any // the last page read
	seen      map[Resume]struct{}
	pages     int   // pages read
	empty     int   // empty pages in a row
	done      bool  // the last page was read
	err       error // what ended the walk for good
}

// NewPager returns a walk of a list from its first page. c gives the walk its events,
// MaxEmptyPages and base URL (nil: no events, 10 empty pages, links unchecked).
func NewPager[T any](c *Core, operation string, fetch PageFunc[T]) *Pager[T] {
	return NewPagerAt(c, operation, Resume{}, fetch)
}

// NewPagerAt returns a walk of a list from at, a Resume an earlier walk gave.
func NewPagerAt[T any](c *Core, operation string, at Resume, fetch PageFunc[T]) *Pager[T] {
	p := &Pager[T]{core: c, operation: operation, fetch: fetch, seen: map[Resume]struct{}{}}
	if at.Link != "" {
		link, err := p.onOrigin(at.Link, "resume link")
		if err != nil {
			p.err = err
		} else {
			at.Link = link
		}
	}
	p.at = at
	p.seen[at] = struct{}{}
	return p
}

// PageEnd is what a cursor page says of whether it is the list's last, when it has
// no next link or cursor: Last reports it.
type PageEnd struct {
	// Count is the records on the page.
	Count int
	// Null tells that a next link or cursor was there as null.
	Null bool
	// Size is the page size the page echoes, or 0.
	Size int64
	// PerPage is the page size the call asked for, as sent ("" when none).
	PerPage string
}

// Last reports whether the page ends its list: empty, a null link or cursor, or fewer
// records than its page size.
func (e PageEnd) Last() bool {
	size := e.Size
	if n, err := strconv.ParseInt(e.PerPage, 10, 64); size <= 0 && err == nil {
		size = n
	}
	return e.Count == 0 || e.Null || size > 0 && int64(e.Count) < size
}

// Resume returns where the walk stands: the page the next call of Next fetches (after
// an error, the page that failed), to save and go on with later through NewPagerAt.
func (p *Pager[T]) Resume() Resume { return p.at }

// Page returns the last page Next read, whole, as the list's own type answered it
// (v3.Page[v3.Unit], legacy.TransactionList, ...: its records and paging members, and
// the members the client does not know), or nil before the first.
func (p *Pager[T]) Page() any { return p.page }

// FetchPage reads the page the walk stands at as one call of the list, whole (the
// list's own type, as Page gives it), and where the next page is (zero: none): to look
// at one page, or to keep the cursor yourself. The walk does not move, and no page of a
// walk is reported.
func (p *Pager[T]) FetchPage(ctx context.Context) (any, Resume, error) {
	if p.err != nil {
		return nil, Resume{}, p.err
	}
	_, page, next, done, err := p.fetch(ctx, p.at)
	if err != nil {
		return nil, Resume{}, err
	}
	if done {
		next = Resume{}
	}
	return page, next, nil
}

// Next fetches the next page and returns its records; false once the walk is over.
// After an error from the page's fetch, Next again asks for the same page; an error
// of the walk itself (stalled paging, a link elsewhere) is given again.
func (p *Pager[T]) Next(ctx context.Context) ([]T, bool, error) {
	if p.err != nil {
		return nil, false, p.err
	}
	if p.done {
		return nil, false, nil
	}
	items, page, next, done, err := p.fetch(ctx, p.at)
	if err != nil {
		if !p.at.IsZero() {
			return nil, false, &PagingInterruptedError{Resume: p.at, Err: err}
		}
		return nil, false, err
	}
	p.pages++
	p.page = page
	if p.core != nil {
		p.core.rep.page(ctx, p.operation, p.pages, len(items))
	}
	if len(items) == 0 {
		p.empty++
	} else {
		p.empty = 0
	}
	if done {
		p.done = true
		return items, true, nil
	}
	if next.IsZero() {
		// No way on, and nothing saying the list ends here: it may go on.
		p.err = &PagingStalledError{Operation: p.operation, Reason: fmt.Sprintf("the page held %d records, "+
			"no next link or cursor, and nothing saying it is the last (a null link, or fewer records than "+
			"the page size); the list may go on, so the walk stops rather than end as if complete", len(items))}
		if p.core != nil {
			p.core.rep.walkFailed(ctx, p.operation, p.err)
		}
		return items, true, nil
	}
	if p.err = p.step(next); p.err != nil && p.core != nil {
		p.core.rep.walkFailed(ctx, p.operation, p.err)
	}
	return items, true, nil
}

// step moves the walk to next, or returns why it cannot go there.
func (p *Pager[T]) step(next Resume) error {
	if next.Link != "" {
		link, err := p.onOrigin(next.Link, "next-page link")
		if err != nil {
			return err
		}
		next.Link = link
	}
	maxEmpty := 10
	if p.core != nil {
		maxEmpty = p.core.cfg.MaxEmptyPages
	}
	if p.empty > maxEmpty {
		return &PagingStalledError{Operation: p.operation,
			Reason: fmt.Sprintf("%d empty pages in a row, each pointing to another", p.empty)}
	}
	if _, ok := p.seen[next]; ok {
		return &PagingStalledError{Operation: p.operation, Reason: "the walk came back to a page it had fetched"}
	}
	p.seen[next] = struct{}{}
	p.at = next
	return nil
}

// onOrigin resolves link against the base URL, and refuses one on another origin:
// the link would be called with the client's credentials.
func (p *Pager[T]) onOrigin(link, what string) (string, error) {
	if p.core == nil {
		return link, nil
	}
	u, err := p.core.base.Parse(link)
	if err != nil {
		return "", &ConfigError{Setting: what, Problem: "the " + what + " of " + p.operation + " is not a URL"}
	}
	if !sameOrigin(u, p.core.base) {
		shown := "an unreadable URL"
		if u.Hostname() != "" {
			shown = origin(u)
		}
		return "", &ForeignOriginError{Operation: p.operation, Origin: shown, Via: "link"}
	}
	return u.String(), nil
}

// All returns every record of p's walk, for `for item, err := range All(ctx, p)`.
// It stops after the first error, which it yields (with T's zero value), and stops
// promptly, yielding ctx's error, once ctx is done.
func All[T any](ctx context.Context, p *Pager[T]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		for {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			items, ok, err := p.Next(ctx)
			if err != nil {
				yield(zero, err)
				return
			}
			if !ok {
				return
			}
			for _, item := range items {
				if ctx.Err() != nil {
					break // yielded at the top of the loop
				}
				if !yield(item, nil) {
					return
				}
			}
		}
	}
}

// walkFailed reports a walk's own error (stalled paging, a link elsewhere). It has no
// attempt of its own: its page was fetched.
func (r reporter) walkFailed(ctx context.Context, operation string, err error) {
	if !r.listening(ctx, slog.LevelDebug) {
		return
	}
	e := Event{Kind: EventError, Operation: operation, ErrorType: ErrorKind(err)}
	r.emit(ctx, slog.LevelDebug, e, func() string { return operation + " walk failed: " + e.ErrorType })
}
