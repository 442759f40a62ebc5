package conformance

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	v3 "inspection.dev/client/v3"
)

// pager is a *Pager[T] of either interface, through reflection.
type pager struct{ v reflect.Value }

// next is the pager's Next: the page's records, false once the walk is over.
func (p pager) next(ctx context.Context) ([]reflect.Value, bool, error) {
	outs := p.v.MethodByName("Next").Call([]reflect.Value{reflect.ValueOf(ctx)})
	if e := outs[2]; !e.IsNil() {
		return nil, false, e.Interface().(error)
	}
	items := make([]reflect.Value, outs[0].Len())
	for i := range items {
		items[i] = outs[0].Index(i)
	}
	return items, outs[1].Bool(), nil
}

// page is the last page read, whole.
func (p pager) page() any {
	return p.v.MethodByName("Page").Call(nil)[0].Interface()
}

// callList runs a step's call of a paged list: `send` reads its first page, the walks
// follow it (backwards through the …BackwardFrom method), `items_resumed` resumes.
func callList(ctx context.Context, cv reflect.Value, op *operation, iface string, a *args, mode string) (outcome, error) {
	name := op.name + "_from"
	if mode == "pages_backward" || mode == "items_backward" {
		name = op.name + "_backward_from"
	}
	m, rest, err := bind(cv, name, op, iface, a)
	if err != nil {
		return outcome{}, err
	}
	var at v3.Resume
	if text, given, err := a.string("resume", false); err != nil {
		return outcome{}, err
	} else if given {
		if at, err = v3.ParseResume(text); err != nil {
			return outcome{}, fmt.Errorf("`args.resume`: %w", err)
		}
	}
	if err := a.finish(); err != nil {
		return outcome{}, err
	}
	start := func(from v3.Resume) pager {
		return pager{m.Call(append([]reflect.Value{reflect.ValueOf(from)}, rest...))[0]}
	}
	switch mode {
	case "send":
		return first(ctx, start(at))
	case "pages", "pages_backward":
		return walk(ctx, start(at), true)
	case "items", "items_backward":
		return walk(ctx, start(at), false)
	case "items_resumed":
		return resumed(ctx, start, at)
	}
	return outcome{}, fmt.Errorf("a paged list cannot be called in mode %s", mode)
}

// first is a list's first page, whole, as one call (FetchPage).
func first(ctx context.Context, p pager) (outcome, error) {
	outs := p.v.MethodByName("FetchPage").Call([]reflect.Value{reflect.ValueOf(ctx)})
	if e := outs[2]; !e.IsNil() {
		return outcome{err: e.Interface().(error)}, nil
	}
	page, err := asJSON(outs[0].Interface())
	if err != nil {
		return outcome{}, err
	}
	return succeeded(page), nil
}

// walk collects every page (whole) or record, and the error that ended the walk early.
func walk(ctx context.Context, p pager, pages bool) (outcome, error) {
	collected := []any{}
	for {
		items, more, err := p.next(ctx)
		if err != nil {
			return outcome{result: collected, hasResult: true, err: err}, nil
		}
		if !more {
			return succeeded(collected), nil
		}
		if pages {
			page, err := asJSON(p.page())
			if err != nil {
				return outcome{}, err
			}
			collected = append(collected, page)
			continue
		}
		for _, item := range items {
			record, err := asJSON(item.Interface())
			if err != nil {
				return outcome{}, err
			}
			collected = append(collected, record)
		}
	}
}

// resumed is mode `items_resumed`: a walk that fails past its start is started again at
// its error's resume point, a fresh walk whose first page fails from the start (each at
// most 500 times), until one ends: {records, distinct_ids, interruptions}.
func resumed(ctx context.Context, start func(v3.Resume) pager, at v3.Resume) (outcome, error) {
	var records, interruptions, restarts int64
	ids := map[string]bool{}
	for {
		done, err := walk(ctx, start(at), false)
		if err != nil {
			return outcome{}, err
		}
		at = v3.Resume{}
		list, _ := done.result.([]any)
		records += int64(len(list))
		for _, record := range list {
			m, _ := isObject(record)
			ids[show(m["id"])] = true
		}
		result := object{"records": num(records), "distinct_ids": num(int64(len(ids))), "interruptions": num(interruptions)}
		var interrupted *v3.PagingInterruptedError
		switch {
		case done.err == nil:
			return succeeded(result), nil
		case errors.As(done.err, &interrupted) && interruptions < 500:
			interruptions++
			at = interrupted.Resume
		case records == 0 && restarts < 500:
			restarts++
		default:
			return outcome{result: result, hasResult: true, err: done.err}, nil
		}
	}
}
