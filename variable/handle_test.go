package variable_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/byref/byref/variable"
)

// leaked is the secret every value below holds where only unexported
// fields (or a handle's insides) keep it.
const leaked = "hunter2"

// keyDriver is a database/sql driver registered by this test alone: its
// connections answer every query with one row, (1).
type keyDriver struct{}

func (keyDriver) Open(string) (driver.Conn, error) { return keyConn{}, nil }

type keyConn struct{}

func (keyConn) Prepare(string) (driver.Stmt, error) { return keyStmt{}, nil }
func (keyConn) Close() error                        { return nil }
func (keyConn) Begin() (driver.Tx, error)           { return keyTx{}, nil }

type keyTx struct{}

func (keyTx) Commit() error   { return nil }
func (keyTx) Rollback() error { return nil }

type keyStmt struct{}

func (keyStmt) Close() error                               { return nil }
func (keyStmt) NumInput() int                              { return -1 }
func (keyStmt) Exec([]driver.Value) (driver.Result, error) { return driver.RowsAffected(0), nil }
func (keyStmt) Query([]driver.Value) (driver.Rows, error)  { return &keyRows{}, nil }

// keyRows is one row, (1).
type keyRows struct{ done bool }

func (r *keyRows) Columns() []string { return []string{"n"} }
func (r *keyRows) Close() error      { return nil }
func (r *keyRows) Next(dest []driver.Value) error {
	if r.done {
		return io.EOF
	}
	r.done, dest[0] = true, int64(1)
	return nil
}

func (keyDriver) OpenConnector(dsn string) (driver.Connector, error) { return keyConnector{dsn}, nil }

// keyConnector keeps the DSN, as real drivers' connectors do.
type keyConnector struct{ dsn string }

func (c keyConnector) Connect(context.Context) (driver.Conn, error) { return keyConn{}, nil }
func (keyConnector) Driver() driver.Driver                          { return keyDriver{} }

func init() { sql.Register("variable-handle-test", keyDriver{}) }

// credentials hold their secret in unexported fields only.
type credentials struct {
	User     string
	password string
	inner    *vaultConfig
}

type vaultConfig struct{ Token string }

// customers is a host type that wraps a database handle.
type customers struct {
	Name string
	DB   *sql.DB
	dsn  string
}

// jsonOnly shows itself through MarshalJSON.
type jsonOnly struct{ key string }

func (j jsonOnly) MarshalJSON() ([]byte, error) { return []byte(`{"key":"***"}`), nil }

// named is a host handle that names itself.
type named struct{ dsn string }

func (*named) HandleIdentity() string { return "orders" }

// marked is a library's type a host registers as a handle: its exported
// field holds the secret.
type marked struct{ DSN string }

func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("variable-handle-test", "file:customers.db?user=app&password="+leaked)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestPreviewNeverLeaks previews the standard library's handle types and
// host structs that hold a secret in unexported fields: no preview holds
// the secret, at any limit.
func TestPreviewNeverLeaks(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	stmt, err := db.Prepare("select 1")
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	file, err := os.CreateTemp(t.TempDir(), "notes")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	transport := &http.Transport{ProxyConnectHeader: http.Header{"Proxy-Authorization": {leaked}}}
	client := &http.Client{Transport: transport}
	var rt http.RoundTripper = transport
	cmd := exec.Command("login", "--password", leaked)
	variable.RegisterHandle(reflect.TypeFor[*marked]())

	tests := []struct {
		name string
		v    any
		want string // "" when only the absence of the secret is checked
	}{
		{"sql.DB", db, "*sql.DB handle (driver variable_test.keyDriver)"},
		{"sql.Conn", conn, "*sql.Conn handle"},
		{"sql.Tx", tx, "*sql.Tx handle"},
		{"sql.Stmt", stmt, "*sql.Stmt handle"},
		{"os.File", file, "*os.File handle (" + file.Name() + ")"},
		{"net.Listener", ln, "*net.TCPListener handle"},
		{"net.Conn", a, ""},
		{"http.Client", client, "*http.Client handle"},
		{"http.Transport", transport, "*http.Transport handle"},
		{"http.RoundTripper", &rt, "&*http.Transport handle"},
		{"exec.Cmd", cmd, "*exec.Cmd handle"},
		{"struct holding a DB", customers{Name: "eu", DB: db, dsn: "password=" + leaked}, `customers{Name: "eu", DB: *sql.DB handle (driver variable_test.keyDriver)}`},
		{"credentials", credentials{User: "app", password: leaked, inner: &vaultConfig{Token: leaked}}, `credentials{User: "app"}`},
		{"credentials in a list", []credentials{{User: "a", password: leaked}}, ""},
		{"credentials in a map", map[string]*credentials{"a": {password: leaked}}, ""},
		{"credentials behind an interface", []any{credentials{password: leaked}}, ""},
		{"MarshalJSON", jsonOnly{key: leaked}, `{"key":"***"}`},
		{"url.URL with a password", &url.URL{Scheme: "postgres", User: url.UserPassword("app", leaked), Host: "db:5432", Path: "/tickets"}, "postgres://app:xxxxx@db:5432/tickets"},
		{"host handle", &named{dsn: leaked}, "*variable_test.named handle (orders)"},
		{"registered handle", &marked{DSN: leaked}, "*variable_test.marked handle"},
		{"nil handle", (*sql.DB)(nil), "nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, limit := range []int{0, 40, 2000} {
				got := variable.Preview(tt.v, limit)
				if strings.Contains(got, leaked) {
					t.Fatalf("Preview(limit %d) = %q: holds the secret", limit, got)
				}
				if limit == 2000 && tt.want != "" && got != tt.want {
					t.Errorf("Preview = %q, want %q", got, tt.want)
				}
			}
		})
	}
	if got := variable.Preview(a, 0); !strings.HasSuffix(got, " handle") {
		t.Errorf("net.Pipe's conn previews as %q, want its type and \" handle\"", got)
	}
}

// TestHandleReadIsNoChange: a read-only query changes a *sql.DB's pool,
// not which database it is: its fingerprint stays; another handle in its
// place changes it.
func TestHandleReadIsNoChange(t *testing.T) {
	db := openDB(t)
	holder := &customers{Name: "eu", DB: db}
	before, beforeHolder := variable.Fingerprint(db), variable.Fingerprint(holder)
	var n int
	if err := db.QueryRow("select 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("query: %d, %v", n, err)
	}
	_ = variable.Preview(db, 0)
	if variable.Fingerprint(db) != before || variable.Fingerprint(holder) != beforeHolder {
		t.Error("a read-only query changed the handle's fingerprint")
	}
	holder.DB = openDB(t)
	if variable.Fingerprint(holder) == beforeHolder {
		t.Error("another handle in the field left the fingerprint as it was")
	}
	holder.Name = "us"
	if variable.Fingerprint(holder) == variable.Fingerprint(&customers{Name: "eu", DB: holder.DB}) {
		t.Error("a change to an exported field went unseen")
	}
}

// TestMarshalJSONPreview: a type with MarshalJSON and no other
// description shows its JSON.
func TestMarshalJSONPreview(t *testing.T) {
	raw := json.RawMessage(`{"a":1}`)
	if got := variable.Preview(raw, 0); got != `{"a":1}` {
		t.Errorf("Preview(json.RawMessage) = %q", got)
	}
}
