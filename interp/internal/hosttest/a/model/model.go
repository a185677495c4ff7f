// Package model is one of two host packages named model, for the tests of
// host type names.
package model

// User is named like b/model's User.
type User struct {
	Name string
}

// Hello returns a greeting.
func (u User) Hello() string { return "hello " + u.Name }
