package runtime

import (
	"context"
	"errors"
	"testing"
)

// page is one canned page of a fake list.
type page struct {
	items []string
	next  Resume
	err   error
}

// fakeList answers each fetch with the next page of pages, recording where it was asked.
type fakeList struct {
	pages []page
	asked []string
}

func (f *fakeList) fetch(_ context.Context, at Resume) ([]string, any, Resume, bool, error) {
	f.asked = append(f.asked, at.String())
	p := f.pages[0]
	f.pages = f.pages[1:]
	return p.items, p, p.next, p.next.IsZero(), p.err
}

func collect(t *testing.T, ctx context.Context, p *Pager[string]) ([]string, error) {
	t.Helper()
	var got []string
	for item, err := range All(ctx, p) {
		if err != nil {
			return got, err
		}
		got = append(got, item)
	}
	return got, nil
}

func TestAWalkFollowsCursorsAndLinksToTheEnd(t *testing.T) {
	srv := newServer(t, nil)
	c := newCore(t, testConfig(t, srv.URL+"/v3", nil))
	list := &fakeList{pages: []page{
		{items: []string{"a"}, next: Resume{Cursor: "YWZ0ZXI6MTE="}},
		{items: []string{"b"}, next: Resume{Link: "/v3/units?page=C"}},
		{items: []string{"c"}},
	}}
	got, err := collect(t, context.Background(), NewPager(c, "list_units", list.fetch))
	if err != nil {
		t.Fatal(err)
	}
	equal(t, got, []string{"a", "b", "c"})
	equal(t, list.asked, []string{"", "cursor:YWZ0ZXI6MTE=", "link:" + srv.URL + "/v3/units?page=C"})
}

func TestAWalkThatFailsPartWayResumesFromThePageThatFailed(t *testing.T) {
	boom := &APIError{Operation: "list_units", Status: 500}
	list := &fakeList{pages: []page{
		{items: []string{"a"}, next: Resume{Cursor: "c2"}},
		{err: boom},
		{items: []string{"b"}, next: Resume{Cursor: "c3"}},
		{items: []string{"c"}},
	}}
	p := NewPager(nil, "list_units", list.fetch)
	got, err := collect(t, context.Background(), p)
	var interrupted *PagingInterruptedError
	if !errors.As(err, &interrupted) || interrupted.Resume.String() != "cursor:c2" || !errors.Is(err, ErrServer) {
		t.Fatalf("got %v", err)
	}
	equal(t, got, []string{"a"})
	if ErrorKind(err) != "api" || p.Resume() != (Resume{Cursor: "c2"}) {
		t.Fatalf("kind %s, resume %v", ErrorKind(err), p.Resume())
	}
	// Saved as text and read back, as a caller would between runs.
	at, err := ParseResume(interrupted.Resume.String())
	if err != nil {
		t.Fatal(err)
	}
	rest, err := collect(t, context.Background(), NewPagerAt(nil, "list_units", at, list.fetch))
	if err != nil {
		t.Fatal(err)
	}
	equal(t, rest, []string{"b", "c"})
	equal(t, list.asked, []string{"", "cursor:c2", "cursor:c2", "cursor:c3"})
}

func TestNextAfterAnErrorAsksForTheSamePage(t *testing.T) {
	list := &fakeList{pages: []page{
		{items: []string{"a"}, next: Resume{Cursor: "c2"}},
		{err: errors.New("connection reset")},
		{items: []string{"b"}},
	}}
	p := NewPager(nil, "list_units", list.fetch)
	ctx := context.Background()
	if items, ok, err := p.Next(ctx); !ok || err != nil || len(items) != 1 {
		t.Fatal(items, ok, err)
	}
	if _, _, err := p.Next(ctx); err == nil {
		t.Fatal("no error")
	}
	if items, ok, err := p.Next(ctx); !ok || err != nil || items[0] != "b" {
		t.Fatal(items, ok, err)
	}
	if _, ok, err := p.Next(ctx); ok || err != nil {
		t.Fatal("the walk goes on after its last page")
	}
}

func TestPagingThatDoesNotAdvanceStops(t *testing.T) {
	list := &fakeList{pages: []page{
		{items: []string{"a"}, next: Resume{Cursor: "same"}},
		{items: []string{"a"}, next: Resume{Cursor: "same"}},
	}}
	ev := &events{}
	srv := newServer(t, nil)
	c := newCore(t, testConfig(t, srv.URL, ev))
	got, err := collect(t, context.Background(), NewPager(c, "list_units", list.fetch))
	var stalled *PagingStalledError
	if !errors.As(err, &stalled) || ErrorKind(err) != "paging_stalled" {
		t.Fatalf("got %v", err)
	}
	equal(t, got, []string{"a", "a"})
	equal(t, list.asked, []string{"", "cursor:same"})
	equal(t, ev.kinds(), []string{"page:1:1", "page:2:1", "error:paging_stalled"})
}

func TestTooManyEmptyPagesInARowStopTheWalkFewerAreWalkedThrough(t *testing.T) {
	srv := newServer(t, nil)
	cfg := testConfig(t, srv.URL, nil)
	cfg.MaxEmptyPages = 2
	c := newCore(t, cfg)
	stalls := &fakeList{pages: []page{{next: Resume{Cursor: "e1"}}, {next: Resume{Cursor: "e2"}}, {next: Resume{Cursor: "e3"}}}}
	_, err := collect(t, context.Background(), NewPager(c, "list_units", stalls.fetch))
	var stalled *PagingStalledError
	if !errors.As(err, &stalled) || len(stalls.asked) != 3 {
		t.Fatalf("got %v after %d pages", err, len(stalls.asked))
	}
	ends := &fakeList{pages: []page{{next: Resume{Cursor: "e1"}}, {next: Resume{Cursor: "e2"}}, {items: []string{"a"}}}}
	got, err := collect(t, context.Background(), NewPager(c, "list_units", ends.fetch))
	if err != nil {
		t.Fatal(err)
	}
	equal(t, got, []string{"a"})
}

func TestANextLinkToAnotherOriginEndsTheWalkAfterItsPage(t *testing.T) {
	srv := newServer(t, nil)
	c := newCore(t, testConfig(t, srv.URL+"/v3", nil))
	list := &fakeList{pages: []page{{items: []string{"a"}, next: Resume{Link: "http://other.invalid/v3/units?page=x"}}}}
	got, err := collect(t, context.Background(), NewPager(c, "list_units", list.fetch))
	var foreign *ForeignOriginError
	if !errors.As(err, &foreign) || foreign.Origin != "http://other.invalid" || foreign.Via != "link" {
		t.Fatalf("got %v", err)
	}
	equal(t, got, []string{"a"})
	if _, _, err := NewPagerAt(c, "list_units", Resume{Link: "https://other.invalid/x"}, list.fetch).Next(context.Background()); !errors.As(err, &foreign) {
		t.Fatalf("a resume link elsewhere: %v", err)
	}
}

func TestCancellingTheContextEndsTheWalkPromptly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fetches := 0
	p := NewPager(nil, "list_units", func(context.Context, Resume) ([]string, any, Resume, bool, error) {
		fetches++
		return []string{"a", "b", "c"}, nil, Resume{Cursor: "c" + itoa(fetches)}, false, nil
	})
	var got []string
	var last error
	for item, err := range All(ctx, p) {
		if err != nil {
			last = err
			break
		}
		got = append(got, item)
		if len(got) == 4 {
			cancel()
		}
	}
	if !errors.Is(last, context.Canceled) || len(got) != 4 || fetches != 2 {
		t.Fatalf("got %q, %v after %d fetches", got, last, fetches)
	}
}

func TestBreakingOutOfAllStopsTheWalk(t *testing.T) {
	fetches := 0
	p := NewPager(nil, "list_units", func(context.Context, Resume) ([]string, any, Resume, bool, error) {
		fetches++
		return []string{"a", "b"}, nil, Resume{Cursor: "c" + itoa(fetches)}, false, nil
	})
	for item, err := range All(context.Background(), p) {
		if err != nil || item == "b" {
			break
		}
	}
	if fetches != 1 || p.Resume().Cursor != "c1" {
		t.Fatalf("%d fetches, at %v", fetches, p.Resume())
	}
}

func TestErrorKindNamesEveryError(t *testing.T) {
	cases := map[string]error{
		"api":            &APIError{Status: 404},
		"transport":      &TransportError{Err: errors.New("reset")},
		"timeout":        &TimeoutError{},
		"decode":         &DecodeError{},
		"validation":     &ValidationError{},
		"not_ready":      &NotReadyError{},
		"too_large":      &TooLargeError{},
		"foreign_origin": &ForeignOriginError{},
		"paging_stalled": &PagingStalledError{},
		"config":         &ConfigError{},
		"interrupted":    &ContextError{Err: context.Canceled},
		"client":         errors.New("other"),
	}
	for want, err := range cases {
		if got := ErrorKind(&PagingInterruptedError{Resume: Resume{Cursor: "c"}, Err: err}); got != want {
			t.Errorf("%T: got %s, want %s", err, got, want)
		}
	}
	if ErrorKind(&ContextError{Err: context.DeadlineExceeded, Last: &APIError{Status: 429}}) != "timeout" {
		t.Error("a deadline after a 429")
	}
}

func TestResumePointsReadAndWrite(t *testing.T) {
	for _, text := range []string{"", "cursor:YWZ0ZXI6MTE=", "link:https://api.example/v3/units?page=B"} {
		r, err := ParseResume(text)
		if err != nil || r.String() != text {
			t.Fatalf("%q: %v %v", text, r, err)
		}
	}
	for _, bad := range []string{"cursor:", "YWZ0", "page:1"} {
		if _, err := ParseResume(bad); ErrorKind(err) != "config" {
			t.Fatalf("%q: %v", bad, err)
		}
	}
}

func TestFetchPageReadsOnePageWholeWithoutMovingTheWalk(t *testing.T) {
	var events []Event
	cfg := testConfig(t, "http://127.0.0.1:1/v3", nil)
	cfg.Hook = func(e Event) { events = append(events, e) }
	list := &fakeList{pages: []page{
		{items: []string{"a"}, next: Resume{Cursor: "c1"}},
		{items: []string{"a"}, next: Resume{Cursor: "c1"}},
	}}
	p := NewPager(newCore(t, cfg), "list_units", list.fetch)
	got, next, err := p.FetchPage(context.Background())
	if err != nil || next != (Resume{Cursor: "c1"}) || got.(page).items[0] != "a" {
		t.Fatalf("got %v %v %v", got, next, err)
	}
	if !p.Resume().IsZero() || p.Page() != nil || len(events) != 0 {
		t.Fatalf("the walk moved to %v, or reported %v", p.Resume(), events)
	}
	if items, _, _ := p.Next(context.Background()); len(items) != 1 || len(events) != 1 || events[0].Kind != EventPage {
		t.Fatalf("the walk then read %v, reporting %v", items, events)
	}
}

func TestAPageWithNoWayOnThatDoesNotSayItIsTheLastStopsTheWalkAfterItsRecords(t *testing.T) {
	p := NewPager(nil, "list_units", func(context.Context, Resume) ([]string, any, Resume, bool, error) {
		return []string{"a", "b"}, nil, Resume{}, false, nil
	})
	got, err := collect(t, context.Background(), p)
	var stalled *PagingStalledError
	if !errors.As(err, &stalled) || len(got) != 2 {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestAPageSaysItIsTheLast(t *testing.T) {
	for _, c := range []struct {
		end  PageEnd
		last bool
	}{
		{PageEnd{Count: 0}, true},
		{PageEnd{Count: 2, Null: true}, true},
		{PageEnd{Count: 1, Size: 2}, true},
		{PageEnd{Count: 1, PerPage: "2"}, true},
		{PageEnd{Count: 2, Size: 2, PerPage: "5"}, false},
		{PageEnd{Count: 2, PerPage: "2"}, false},
		{PageEnd{Count: 2, PerPage: "x"}, false},
		{PageEnd{Count: 2}, false},
	} {
		if c.end.Last() != c.last {
			t.Errorf("%+v: Last is %v", c.end, !c.last)
		}
	}
}
