// Package time is a host package named like the standard time package, for
// the tests of host type names.
package time

// Slot is a booking slot.
type Slot struct {
	Start, End string
}
