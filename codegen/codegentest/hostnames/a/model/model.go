// Package model is one of two host packages named model, for the tests of
// replaying snippets that name host types (model, model2).
package model

// User is a user of the first model package.
type User struct {
	Name string `json:"name"`
	Age  int    `json:"age"`
}

// Greet greets u, as an action whose parameter is a User of this package.
func Greet(u User) string { return "hello " + u.Name }
