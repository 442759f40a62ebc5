//go:build tools

// Package tools pins the Go tools CI runs on the generated module.
package tools

import _ "honnef.co/go/tools/cmd/staticcheck"
