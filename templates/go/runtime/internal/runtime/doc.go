// Package runtime is the hand-written part of the generated client: the optional value
// type Opt, the dates, the unknown members of objects, and the JSON Decoder and Encoder
// the generated models read and write themselves with; the checks of documented limits;
// and the HTTP core every generated call goes through (Core: pacing to the quota,
// retries that never blindly resend a POST, redirects under the origin rules, deadlines,
// 202 polling, bounded bodies, both auth regimes, secrets kept out of every text, events
// for hooks and log/slog) with the pager every list walks with.
//
// Users do not import it: it is internal to the client's module. The interface packages
// re-export, as aliases, the types users name (Opt, Members, Date, DecodeError, ...), so
// the generated code and users see the same types.
//
// The Decoder and Encoder are used instead of encoding/json's reflection so that
// decoding is strict, allocation-lean and reports where a document went wrong as a
// JSON path, and so that encoding is deterministic and writes no HTML escapes.
package runtime
