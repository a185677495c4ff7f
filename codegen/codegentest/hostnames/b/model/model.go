// Package model is the second host package named model, for the tests of
// replaying snippets that name host types: snippets write it as model2.
package model

// User is a user of the second model package.
type User struct {
	ID    int    `json:"id"`
	Email string `json:"email"`
}

// Next returns u with the next ID, as an action whose parameter and result
// are Users of this package.
func Next(u User) User {
	u.ID++
	return u
}
