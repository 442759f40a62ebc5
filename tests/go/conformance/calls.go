package conformance

import (
	"context"
	"fmt"
	"reflect"

	"inspection.dev/client/legacy"
)

// operation is what a runner needs of an operation in the IR (generated/ir.json): its
// inputs in the order the methods take them, its body, whether it is a paged list, and
// its alternative media type.
type operation struct {
	name     string
	inputs   []input  // path values and required query values, in the call plan's order
	optional []string // the wire names of its optional query values (one struct)
	body     *body
	paged    bool
	binary   bool   // its answer is bytes
	alt      string // its alternative form (pdf), or ""
}

type input struct {
	path bool
	name string
}

type body struct {
	optional, binary bool
}

// operations are each interface's operations by name.
type operations map[string]map[string]*operation

func loadOperations(path string) (operations, error) {
	doc, err := readJSON(path)
	if err != nil {
		return nil, err
	}
	top, _ := isObject(doc)
	ifaces, _ := top["interfaces"].([]any)
	out := operations{}
	for _, i := range ifaces {
		m, _ := isObject(i)
		name, _ := m["name"].(string)
		out[name] = map[string]*operation{}
		ops, _ := m["operations"].([]any)
		for _, o := range ops {
			op := readOperation(o)
			out[name][op.name] = op
		}
	}
	return out, nil
}

func readOperation(v any) *operation {
	m, _ := isObject(v)
	op := &operation{}
	op.name, _ = m["name"].(string)
	pathParams, _ := m["path_params"].([]any)
	query, _ := m["query"].([]any)
	field := func(list []any, index any) object {
		i, _ := integer(index)
		f, _ := isObject(list[i])
		return f
	}
	call, _ := isObject(m["call"])
	inputs, _ := call["inputs"].([]any)
	for _, in := range inputs {
		entry, _ := isObject(in)
		switch entry["kind"] {
		case "path":
			name, _ := field(pathParams, entry["index"])["name"].(string)
			op.inputs = append(op.inputs, input{path: true, name: name})
		case "query":
			f := field(query, entry["index"])
			name, _ := f["name"].(string)
			if f["required"] == true {
				op.inputs = append(op.inputs, input{name: name})
			} else {
				op.optional = append(op.optional, name)
			}
		}
	}
	op.alt, _ = call["alternative"].(string)
	if b, ok := isObject(m["body"]); ok {
		ty, _ := isObject(b["ty"])
		op.body = &body{optional: b["optional"] == true, binary: ty["builtin"] == "binary"}
	}
	_, op.paged = isObject(m["paging"])
	answer, _ := isObject(m["answer"])
	op.binary = answer["kind"] == "bytes"
	return op
}

// method is the client's method whose name is name in Go's casing (list_units:
// ListUnits, get_inspection_pdf: GetInspectionPDF).
func method(client reflect.Value, name string) (reflect.Value, bool) {
	want := normalized(name)
	t := client.Type()
	for i := 0; i < t.NumMethod(); i++ {
		if normalized(t.Method(i).Name) == want {
			return client.Method(i), true
		}
	}
	return reflect.Value{}, false
}

// values are a method's arguments after its context (or Resume), read from a step's
// args: path and required query values in order, the body, the optional query values'
// struct; and the call options (a body's content type).
func values(m reflect.Value, first int, op *operation, iface string, a *args) ([]reflect.Value, []reflect.Value, error) {
	t := m.Type()
	var out, opts []reflect.Value
	at := first
	param := func() (reflect.Type, error) {
		if at >= t.NumIn()-1 {
			return nil, fmt.Errorf("the method for `%s` takes fewer arguments than the operation has inputs", op.name)
		}
		at++
		return t.In(at - 1), nil
	}
	for _, in := range op.inputs {
		pt, err := param()
		if err != nil {
			return nil, nil, err
		}
		v, err := a.input(in, pt)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, v)
	}
	if op.body != nil {
		pt, err := param()
		if err != nil {
			return nil, nil, err
		}
		v, opt, err := a.bodyValue(op, iface, pt)
		if err != nil {
			return nil, nil, err
		}
		out, opts = append(out, v), append(opts, opt...)
	}
	if len(op.optional) > 0 {
		pt, err := param()
		if err != nil {
			return nil, nil, err
		}
		v, err := a.queryStruct(op.optional, pt)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, v)
	}
	if at != t.NumIn()-1 {
		return nil, nil, fmt.Errorf("the method for `%s` takes %d arguments, the operation has %d inputs", op.name, t.NumIn()-1-first, at-first)
	}
	return out, opts, nil
}

// contentType is the call option that sends a body of bytes as another media type.
func contentType(iface, mediaType string) (reflect.Value, error) {
	if iface != "legacy" {
		return reflect.Value{}, fmt.Errorf("the %s client sends no body of bytes", iface)
	}
	return reflect.ValueOf(legacy.WithContentType(mediaType)), nil
}

// invoke calls m with values and splits what it returns into a value (or none) and an error.
func invoke(m reflect.Value, in []reflect.Value) (reflect.Value, error) {
	outs := m.Call(in)
	var err error
	if e := outs[len(outs)-1]; !e.IsNil() {
		err = e.Interface().(error)
	}
	if len(outs) == 1 {
		return reflect.Value{}, err
	}
	return outs[0], err
}

// bind finds the client's method called name and reads from a its arguments after the
// first (a context or a Resume): the operation's inputs, then the call options.
func bind(cv reflect.Value, name string, op *operation, iface string, a *args) (reflect.Value, []reflect.Value, error) {
	m, ok := method(cv, name)
	if !ok {
		return reflect.Value{}, nil, fmt.Errorf("the %s client has no method for `%s`", iface, name)
	}
	in, opts, err := values(m, 1, op, iface, a)
	if err != nil {
		return reflect.Value{}, nil, err
	}
	return m, append(in, opts...), nil
}

// callOperation runs a step's call of the operation op in mode.
func callOperation(ctx context.Context, client any, op *operation, iface string, a *args, mode string) (outcome, error) {
	cv := reflect.ValueOf(client)
	if op.paged {
		return callList(ctx, cv, op, iface, a, mode)
	}
	name := op.name
	switch {
	case mode == "pdf" && op.alt != "":
		name += "_" + op.alt
	case mode == "pdf" && op.binary, mode == "send":
	default:
		return outcome{}, fmt.Errorf("`%s` cannot be called in mode %s", op.name, mode)
	}
	m, rest, err := bind(cv, name, op, iface, a)
	if err != nil {
		return outcome{}, err
	}
	if err := a.finish(); err != nil {
		return outcome{}, err
	}
	value, callErr := invoke(m, append([]reflect.Value{reflect.ValueOf(ctx)}, rest...))
	if callErr != nil {
		return outcome{err: callErr}, nil
	}
	if !value.IsValid() {
		return succeeded(nil), nil
	}
	result, err := resultJSON(value)
	if err != nil {
		return outcome{}, fmt.Errorf("the answer cannot be written as JSON: %w", err)
	}
	return succeeded(result), nil
}
