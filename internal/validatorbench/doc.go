// Package validatorbench compares JSON Schema validators on byref's own
// schemas. It is a separate Go module so that the comparison dependency
// (github.com/xeipuuv/gojsonschema) never enters byref's go.mod. Everything
// lives in _test.go files; run it with `go test -bench . -benchmem`.
package validatorbench
