// Package page has a generic host type, for the tests of host type names.
package page

// Item is a row of a page.
type Item struct {
	SKU string
}

// Page is one page of results.
type Page[T any] struct {
	Items []T
	Next  string
}
