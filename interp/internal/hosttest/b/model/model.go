// Package model is the second host package named model, for the tests of
// host type names.
package model

// User is named like a/model's User, with other fields.
type User struct {
	ID    int
	Email string
}
