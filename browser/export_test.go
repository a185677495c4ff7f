package browser

import "testing"

// Hooks for the external tests (package browser_test).
var (
	TestOptions  = func() Options { return testOpts }
	NeedChromium = func(t testing.TB) { t.Helper(); needChromium(t) }
	SharedTab    = func(t testing.TB) *Browser { t.Helper(); return newTab(t) }
	SiteURL      = siteURL
)
