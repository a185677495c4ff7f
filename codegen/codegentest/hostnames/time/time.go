// Package time is a host package named like the standard time package, for
// the tests of replaying snippets that name host types: snippets write it
// as time2.
package time

// Slot is a booking slot.
type Slot struct {
	Start string `json:"start"`
	Hours int    `json:"hours"`
}
