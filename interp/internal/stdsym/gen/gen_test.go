package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestUpToDate regenerates the symbol tables with the running toolchain and
// fails when the committed ones differ (a new Go version, a changed
// package list, a changed generator). Fix: go generate ./interp/internal/stdsym
func TestUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the allowed packages from source")
	}
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			t.Errorf("%s is missing; run go generate ./interp/internal/stdsym (%v)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale for %s; run go generate ./interp/internal/stdsym", name, runtime.Version())
		}
	}
	committed, _ := filepath.Glob(filepath.Join("..", "zz_*.go"))
	for _, f := range committed {
		if _, ok := files[filepath.Base(f)]; !ok {
			t.Errorf("%s is generated for no allowed package; run go generate ./interp/internal/stdsym", f)
		}
	}
}

// TestExportDataUpToDate rebuilds the export data of the allowed packages
// with the running toolchain and fails when the committed files differ (a
// new Go version, a changed package list). Fix: go generate
// ./interp/internal/stdsym
func TestExportDataUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the allowed packages")
	}
	files, err := exportData()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "export", name))
		if err != nil {
			t.Errorf("export/%s is missing; run go generate ./interp/internal/stdsym (%v)", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("export/%s is stale for %s; run go generate ./interp/internal/stdsym", name, runtime.Version())
		}
	}
	committed, _ := filepath.Glob(filepath.Join("..", "export", "*"))
	for _, f := range committed {
		if _, ok := files[filepath.Base(f)]; !ok {
			t.Errorf("%s is export data of no allowed package; run go generate ./interp/internal/stdsym", f)
		}
	}
}
