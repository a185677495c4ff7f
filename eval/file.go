package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/byref/byref/variable"
)

// The layout of a set directory:
//
//	set.json              {"name": "...", "description": "...", "agent": "..."} (optional)
//	cases/NAME.json       one case each, read in file-name order
//	cassettes/NAME.json   the recorded exchanges of case NAME (optional)
const (
	setFile      = "set.json"
	casesDir     = "cases"
	cassettesDir = "cassettes"
)

// setHeader is set.json.
type setHeader struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Agent       string `json:"agent,omitempty"`
}

// Load reads the set in directory dir: its cases and their cassettes. The
// set's Agent, Types and Predicates are Go: set them on the result.
func Load(dir string) (*Set, error) {
	set := &Set{Dir: dir, Name: filepath.Base(filepath.Clean(dir))}
	if b, err := os.ReadFile(filepath.Join(dir, setFile)); err == nil {
		var h setHeader
		if err := json.Unmarshal(b, &h); err != nil {
			return nil, fmt.Errorf("eval: %s: %w", filepath.Join(dir, setFile), err)
		}
		if h.Name != "" {
			set.Name = h.Name
		}
		set.Description, set.AgentName = h.Description, h.Agent
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("eval: %w", err)
	}
	files, err := filepath.Glob(filepath.Join(dir, casesDir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("eval: %s holds no cases; an eval set is a directory with one JSON file per case in %s/ (%w)", dir, casesDir, ErrNoCases)
	}
	slices.Sort(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		c := new(Case)
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(c); err != nil {
			return nil, fmt.Errorf("eval: %s: %w", f, err)
		}
		if want := strings.TrimSuffix(filepath.Base(f), ".json"); c.Name != want {
			return nil, fmt.Errorf("eval: %s names its case %q; name the file after the case (%s.json)", f, c.Name, c.Name)
		}
		if err := c.check(); err != nil {
			return nil, fmt.Errorf("%w (in %s)", err, f)
		}
		if err := readCassette(dir, c); err != nil {
			return nil, err
		}
		set.Cases = append(set.Cases, c)
	}
	return set, nil
}

// Save writes the set to directory dir in the layout Load reads: set.json,
// every case, and every case's cassette when it has one.
func (s *Set) Save(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, casesDir), 0o755); err != nil {
		return err
	}
	b, err := marshalIndent(setHeader{Name: s.Name, Description: s.Description, Agent: s.AgentName})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, setFile), b, 0o644); err != nil {
		return err
	}
	for _, c := range s.Cases {
		if err := SaveCase(dir, c); err != nil {
			return err
		}
	}
	return nil
}

// SaveCase writes one case, and its cassette when it has one, into the set
// directory dir.
func SaveCase(dir string, c *Case) error {
	if err := c.check(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, casesDir), 0o755); err != nil {
		return err
	}
	cc := *c
	cc.Variables = append([]Var(nil), c.Variables...)
	for i, v := range cc.Variables {
		if v.Go == nil || len(v.JSON) > 0 {
			continue
		}
		raw, err := json.Marshal(v.Go)
		if err != nil {
			return fmt.Errorf("eval: case %s, variable %s cannot be saved as JSON: %w", c.Name, v.Name, err)
		}
		cc.Variables[i].JSON = raw
		if cc.Variables[i].Type == "" {
			cc.Variables[i].Type = variable.TypeName(reflect.TypeOf(v.Go))
		}
	}
	b, err := marshalIndent(&cc)
	if err != nil {
		return fmt.Errorf("eval: case %s: %w", c.Name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, casesDir, c.Name+".json"), b, 0o644); err != nil {
		return err
	}
	return writeCassette(dir, c)
}

// readCassette reads the cassette of case c from the set directory dir,
// when there is one.
func readCassette(dir string, c *Case) error {
	cp := filepath.Join(dir, cassettesDir, c.Name+".json")
	if _, err := os.Stat(cp); err != nil {
		return nil
	}
	cas, err := ReadCassette(cp)
	if err != nil {
		return err
	}
	c.Cassette = cas
	return nil
}

// writeCassette writes the cassette of case c, when it has one, into the
// set directory dir.
func writeCassette(dir string, c *Case) error {
	if c.Cassette == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(dir, cassettesDir), 0o755); err != nil {
		return err
	}
	return c.Cassette.WriteFile(filepath.Join(dir, cassettesDir, c.Name+".json"))
}
