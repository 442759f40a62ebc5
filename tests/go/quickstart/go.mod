module example.com/quickstart

go 1.24

require inspection.dev/client v0.0.0

replace inspection.dev/client => ../../../generated/go
