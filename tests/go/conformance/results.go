package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	v3 "inspection.dev/client/v3"
)

// outcome is what a call gave: a result, an error, or for a walk both.
type outcome struct {
	result    any
	hasResult bool
	err       error
}

func succeeded(result any) outcome { return outcome{result: result, hasResult: true} }

var rawType = reflect.TypeOf(json.RawMessage(nil))
var bytesType = reflect.TypeOf([]byte(nil))

// resultJSON is a call's answer as the JSON the expectations compare: bytes as {size,
// text}, an upsert as {created, value}, a value written back as the client writes it.
func resultJSON(v reflect.Value) (any, error) {
	switch {
	case v.Type() == rawType:
		if v.Len() == 0 {
			return nil, nil
		}
		return parse(v.Bytes())
	case v.Type() == bytesType:
		return object{"size": num(int64(v.Len())), "text": strings.ToValidUTF8(string(v.Bytes()), "\uFFFD")}, nil
	case v.Kind() == reflect.Struct && strings.HasPrefix(v.Type().Name(), "Upserted["):
		value, err := asJSON(v.FieldByName("Value").Interface())
		if err != nil {
			return nil, err
		}
		return object{"created": v.FieldByName("Created").Bool(), "value": value}, nil
	}
	return asJSON(v.Interface())
}

// describe is an error as the JSON `expect.error` is matched against: its kind as the
// client names it, and what each kind carries.
func describe(err error) object {
	var interrupted *v3.PagingInterruptedError
	if errors.As(err, &interrupted) {
		inner := describe(interrupted.Err)
		inner["resume"] = interrupted.Resume.String()
		return inner
	}
	out := object{"kind": v3.ErrorKind(err)}
	var (
		api      *v3.APIError
		invalid  *v3.ValidationError
		decode   *v3.DecodeError
		notReady *v3.NotReadyError
		tooLarge *v3.TooLargeError
		foreign  *v3.ForeignOriginError
	)
	switch {
	case errors.As(err, &api):
		out["status"], out["message"], out["retry_after_s"] = num(int64(api.Status)), nil, nil
		if api.Message != "" {
			out["message"] = api.Message
		}
		if api.HasRetryAfter {
			out["retry_after_s"] = num(int64(api.RetryAfter.Seconds()))
		}
	case errors.As(err, &invalid):
		paths := make([]string, len(invalid.Violations))
		for i, v := range invalid.Violations {
			paths[i] = v.Path
		}
		sort.Strings(paths)
		list := make([]any, len(paths))
		for i, p := range paths {
			list[i] = p
		}
		out["paths"] = list
	case errors.As(err, &decode):
		// The README's paths start at the document (data[0].id, year): Go's at $.
		out["status"], out["path"] = nil, strings.TrimPrefix(strings.TrimPrefix(decode.Path, "$"), ".")
		if decode.Status != 0 {
			out["status"] = num(int64(decode.Status))
		}
	case errors.As(err, &notReady):
		out["attempts"], out["retry_after_s"] = num(int64(notReady.Attempts)), nil
		if notReady.RetryAfter > 0 {
			out["retry_after_s"] = num(int64(notReady.RetryAfter.Seconds()))
		}
	case errors.As(err, &tooLarge):
		out["limit"] = num(tooLarge.Limit)
	case errors.As(err, &foreign):
		out["origin"], out["via"] = foreign.Origin, foreign.Via
	}
	if out["kind"] == "client" {
		out["debug"] = fmt.Sprintf("%#v", err)
	}
	return out
}

// errorText is what a user sees of an error: its text, and its value under %+v and %#v.
func errorText(err error) string {
	return fmt.Sprintf("%v %+v %#v", err, err, err)
}
